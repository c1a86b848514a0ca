package banking

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// The transactional database (upstream's TransactionalDB in
// src/tau2/domains/banking_knowledge/data_model.py): named tables, each
// {"data": {record id: record dict}, "notes": str}. Records are free-form
// Python dicts; here a *pyjson.Dict holding Python values (nil, bool, str,
// int, float64, json.Number from the file, []any, *pyjson.Dict).

// tableNames are TransactionalDB's fields in declaration order (model_dump's
// order). A table db.json lacks is empty with empty notes (the field's
// default factory).
var tableNames = []string{
	"users",
	"accounts",
	"debit_cards",
	"referrals",
	"credit_card_applications",
	"user_discoverable_tools",
	"user_discoverable_tool_calls",
	"verification_history",
	"credit_card_transaction_history",
	"cash_back_disputes",
	"bank_account_transaction_history",
	"credit_card_accounts",
	"agent_discoverable_tools",
	"task_config",
	"human_transfer_requests",
	"transaction_disputes",
	"credit_card_orders",
	"debit_card_orders",
	"credit_card_closure_reasons",
	"credit_card_account_flags",
	"credit_limit_increase_requests",
	"payment_history",
	"debit_card_disputes",
}

// Table indexes into tableNames.
type tableID int

const (
	tUsers tableID = iota
	tAccounts
	tDebitCards
	tReferrals
	tCreditCardApplications
	tUserDiscoverableTools
	tUserDiscoverableToolCalls
	tVerificationHistory
	tCreditCardTransactions
	tCashBackDisputes
	tBankTransactions
	tCreditCardAccounts
	tAgentDiscoverableTools
	tTaskConfig
	tHumanTransferRequests
	tTransactionDisputes
	tCreditCardOrders
	tDebitCardOrders
	tClosureReasons
	tAccountFlags
	tCreditLimitRequests
	tPaymentHistory
	tDebitCardDisputes
	numTables
)

// tableByName finds a table as getattr(db, name, None) does: a field of
// TransactionalDB, or none.
func tableByName(name string) (tableID, bool) {
	i := slices.Index(tableNames, name)
	return tableID(i), i >= 0
}

// queryTables are the tables db_query's _load_databases exposes to
// query_database_tool, in its order (users, accounts, referrals and
// applications first, then the others as its hasattr checks list them).
var queryTables = []tableID{
	tUsers, tAccounts, tReferrals, tCreditCardApplications,
	tUserDiscoverableTools, tUserDiscoverableToolCalls, tAgentDiscoverableTools, tTaskConfig,
	tVerificationHistory, tCreditCardTransactions, tCashBackDisputes, tBankTransactions,
	tCreditCardAccounts, tHumanTransferRequests, tTransactionDisputes, tCreditCardOrders,
	tClosureReasons, tAccountFlags, tDebitCards, tDebitCardOrders, tDebitCardDisputes,
	tCreditLimitRequests, tPaymentHistory,
}

// DB is the loaded database, shared by every simulation and never modified.
type DB struct {
	tables [numTables]dbTable
}

type dbTable struct {
	data  omap.Map[*pyjson.Dict]
	notes string
}

// DecodeDB parses and validates a db.json in full, as
// TransactionalDB.model_validate does: an object of known tables (extra
// keys forbidden), each an object whose "data" maps ids to dicts and whose
// "notes" is a str (other keys of a table are ignored).
func DecodeDB(raw []byte) (*DB, error) {
	v, err := pyjson.Decode(raw)
	if err != nil {
		return nil, err
	}
	top, ok := v.(*pyjson.Dict)
	if !ok {
		return nil, fmt.Errorf("db: want an object, not %s", pyjson.TypeName(v))
	}
	db := &DB{}
	for i, name := range top.Keys {
		id, ok := tableByName(name)
		if !ok {
			return nil, fmt.Errorf("db: unknown table %q (extra fields not permitted)", name)
		}
		t, err := decodeTable(top.Values[i])
		if err != nil {
			return nil, fmt.Errorf("db: table %s: %w", name, err)
		}
		db.tables[id] = t
	}
	return db, nil
}

// decodeTable validates one DatabaseTable value.
func decodeTable(v any) (dbTable, error) {
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return dbTable{}, fmt.Errorf("want an object, not %s", pyjson.TypeName(v))
	}
	var t dbTable
	if data, ok := d.Get("data"); ok {
		recs, ok := data.(*pyjson.Dict)
		if !ok {
			return dbTable{}, fmt.Errorf("data: want an object, not %s", pyjson.TypeName(data))
		}
		for j, k := range recs.Keys {
			rec, ok := recs.Values[j].(*pyjson.Dict)
			if !ok {
				return dbTable{}, fmt.Errorf("data.%s: want a dict, not %s", k, pyjson.TypeName(recs.Values[j]))
			}
			t.data.Set(k, rec)
		}
	}
	if n, ok := d.Get("notes"); ok {
		s, ok := n.(string)
		if !ok {
			return dbTable{}, fmt.Errorf("notes: want a str, not %s", pyjson.TypeName(n))
		}
		t.notes = s
	}
	return t, nil
}

// decodePinnedDB reads the pinned db.json (which the tests decode in full,
// TestPinnedDBLazy): the tables are split into records in one pass and
// each record is decoded when first used.
func decodePinnedDB(raw []byte) (*DB, error) {
	db := &DB{}
	err := pyjson.Object(raw, func(name string, tv []byte) error {
		id, ok := tableByName(name)
		if !ok {
			return fmt.Errorf("unknown table %q", name)
		}
		return pyjson.Object(tv, func(k string, v []byte) error {
			switch k {
			case "data":
				var e omap.Entries
				err := pyjson.Object(v, func(rk string, rv []byte) error {
					e.Keys = append(e.Keys, rk)
					e.Raw = append(e.Raw, rv)
					return nil
				})
				db.tables[id].data = omap.LazyFrom(e, decodeRecord)
				return err
			case "notes":
				s, err := pyjson.DecodeString(v)
				db.tables[id].notes = s
				return err
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return db, nil
}

func decodeRecord(b []byte) (*pyjson.Dict, error) {
	v, err := pyjson.Decode(b)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return nil, errors.New("record is not a dict")
	}
	return d, nil
}

// loadDB decodes db.json: lazily when it is the pinned file, else in full.
func loadDB(raw []byte) (*DB, error) {
	return data.DecodePinned(data.Tau2, path.Join(data.Tau2DomainPath(Name), "db.json"), raw, decodePinnedDB, DecodeDB)
}

// cloneDict deep-copies a record (dicts and lists; other values are
// immutable).
func cloneDict(d *pyjson.Dict) *pyjson.Dict {
	out := &pyjson.Dict{Keys: slices.Clone(d.Keys), Values: make([]any, len(d.Values))}
	for i, v := range d.Values {
		out.Values[i] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case *pyjson.Dict:
		return cloneDict(x)
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = cloneValue(el)
		}
		return out
	}
	return v
}

// state is one simulation's database: a copy-on-write view of each table.
type state struct {
	tables [numTables]table.Table[pyjson.Dict]
	notes  [numTables]string
}

func (db *DB) newState() state {
	var s state
	for i := range db.tables {
		s.tables[i] = table.New(&db.tables[i].data, cloneDict)
		s.notes[i] = db.tables[i].notes
	}
	return s
}

// EncodePy writes the database as TransactionalDB.model_dump (tables in
// field order, each {"data", "notes"}).
func (s *state) EncodePy(e *pyjson.Encoder) {
	e.BeginObject()
	for i, name := range tableNames {
		e.Key(name, i == 0)
		e.BeginObject()
		e.Key("data", true)
		e.Value(s.tables[i])
		e.Key("notes", false)
		e.String(s.notes[i])
		e.EndObject(false)
	}
	e.EndObject(false)
}

// MarshalJSON writes the model dump as JSON.
func (s *state) MarshalJSON() ([]byte, error) { return pyjson.Marshal(s) }

// MarshalsByPyjson: MarshalJSON is pyjson.Marshal (pyjson.SelfMarshaled).
func (*state) MarshalsByPyjson() {}

// sameAs reports whether two states over the same loaded database hash
// alike under upstream's get_dict_hash (json.dumps with sort_keys): the
// same record ids in every table (order does not matter) and equal
// records, compared only where either state changed them.
func (s *state) sameAs(o *state) bool {
	for i := range s.tables {
		if s.notes[i] != o.notes[i] {
			return false
		}
		a, b := &s.tables[i], &o.tables[i]
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.Touched() {
			if !sameRecord(a, b, k) {
				return false
			}
		}
		for _, k := range b.Touched() {
			if !sameRecord(a, b, k) {
				return false
			}
		}
	}
	return true
}

func sameRecord(a, b *table.Table[pyjson.Dict], k string) bool {
	va, okA := a.Get(k)
	vb, okB := b.Get(k)
	if !okA || !okB {
		return false
	}
	if va == vb {
		return true
	}
	return sortedDump(va) == sortedDump(vb)
}

// sortedDump is json.dumps(v, sort_keys=True), the form upstream hashes.
func sortedDump(v any) string {
	b, err := pyjson.MarshalOptions(v, pyjson.Options{SortKeys: true})
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

// update applies initialization data (upstream's update_db:
// update_pydantic_model_with_dict, a recursive dict merge of the update
// into the model dump, then TransactionalDB.model_validate).
func (s *state) update(raw json.RawMessage) error {
	v, err := pyjson.Decode(raw)
	if err != nil {
		return fmt.Errorf("initialization data: %w", err)
	}
	if v == nil {
		return nil
	}
	up, ok := v.(*pyjson.Dict)
	if !ok {
		return fmt.Errorf("initialization data: want an object, not %s", pyjson.TypeName(v))
	}
	for i, name := range up.Keys {
		id, ok := tableByName(name)
		if !ok {
			return fmt.Errorf("initialization data: unknown table %q (extra fields not permitted)", name)
		}
		tv, ok := up.Values[i].(*pyjson.Dict)
		if !ok {
			return fmt.Errorf("initialization data: table %s: want an object, not %s", name, pyjson.TypeName(up.Values[i]))
		}
		if err := s.mergeTable(id, tv); err != nil {
			return fmt.Errorf("initialization data: table %s: %w", name, err)
		}
	}
	return nil
}

// mergeTable merges one table's update: its records into data (a record
// present on both sides merged key by key, recursively), notes replaced.
func (s *state) mergeTable(id tableID, tv *pyjson.Dict) error {
	for i, k := range tv.Keys {
		switch k {
		case "data":
			recs, ok := tv.Values[i].(*pyjson.Dict)
			if !ok {
				return fmt.Errorf("data: want an object, not %s", pyjson.TypeName(tv.Values[i]))
			}
			t := &s.tables[id]
			for j, rk := range recs.Keys {
				upd, ok := recs.Values[j].(*pyjson.Dict)
				if !ok {
					return fmt.Errorf("data.%s: want a dict, not %s", rk, pyjson.TypeName(recs.Values[j]))
				}
				if cur, ok := t.Mut(rk); ok {
					mergeDict(cur, upd)
				} else {
					t.Add(rk, cloneDict(upd))
				}
			}
		case "notes":
			n, ok := tv.Values[i].(string)
			if !ok {
				return fmt.Errorf("notes: want a str, not %s", pyjson.TypeName(tv.Values[i]))
			}
			s.notes[id] = n
		}
	}
	return nil
}

// mergeDict is addict's Dict.update: a key whose old and new values are
// both dicts is merged recursively, any other is replaced (a new key goes
// last).
func mergeDict(dst, src *pyjson.Dict) {
	for i, k := range src.Keys {
		nv := src.Values[i]
		if old, ok := dst.Get(k); ok {
			od, ok1 := old.(*pyjson.Dict)
			nd, ok2 := nv.(*pyjson.Dict)
			if ok1 && ok2 {
				mergeDict(od, nd)
				continue
			}
		}
		dst.Set(k, cloneValue(nv))
	}
}
