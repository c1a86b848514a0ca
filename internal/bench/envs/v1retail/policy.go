package v1retail

// LedgerAgent's ledger and gate for v1 retail, and its gate audits, are τ²
// retail's (internal/bench/envs/retail, ledger.go, gate.go, audit.go) run
// over this domain's own data. τ²-bench derived its retail domain from
// τ-bench v1's: the write tools take the same arguments, the read tools
// return the same records, and wiki.md states, clause by clause, the rules
// τ²'s policy.md states (compared by TestPolicyClauses):
//
//	τ² policy.md                     v1 wiki.md                       the same rule
//	-------------------------------  -------------------------------  ---------------------------------------------
//	Retail agent policy              Retail agent policy              authenticate by email or name + zip; one user
//	                                                                  per conversation; confirmation before writes
//	Generic action rules             Domain basic                     exchange or modify tools called once (τ²
//	                                                                  adds "per order", which the gate reads)
//	Cancel pending order             Cancel pending order             pending only; reason 'no longer needed' or
//	                                                                  'ordered by mistake' (τ² adds "Other reasons
//	                                                                  are not acceptable")
//	Modify pending order             Modify pending order             pending only; address, payment or items
//	Modify payment                   Modify payment                   one method other than the original; a gift
//	                                                                  card must cover the total
//	Modify items                     Modify items                     once; same product, other option, available;
//	                                                                  a gift card must cover the difference
//	Return delivered order           Return delivered order           delivered only; refund to the original
//	                                                                  method or an existing gift card
//	Exchange delivered order         Exchange delivered order         delivered only; as for item changes
//
// So the predicates are τ²'s, citing wiki.md's headings: "Generic action
// rules", which wiki.md has not, becomes "Domain basic", where wiki.md
// states the rule. τ² retail's extra read tool (get_item_details) is not
// here and none of its routes or evidence reads need it.
//
// One departure: v1's gold trajectories of test tasks 18, 91 and 108 (of
// both copies) exchange an item for the item itself, which "an available
// new item of the same product but of different product option" forbids
// (τ² re-annotated those tasks). The gate lets such a pair through
// (retail.Domain.AllowSameItem) so that the gold trajectory keeps its
// reward through LedgerAgent; every other same_product check stands.

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/retail"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// clauses maps the headings τ²'s predicates cite to wiki.md's.
var clauses = map[string]string{"Generic action rules": "Domain basic"}

func clause(c string) string {
	if v, ok := clauses[c]; ok {
		return v
	}
	return c
}

// policy is τ² retail's machinery over this domain's data, built on first
// use (it decodes the whole data once).
type policy struct {
	once sync.Once
	d    *retail.Domain
	err  error
}

// shadow returns τ² retail over the domain's data.
func (d *Domain) shadow() *retail.Domain {
	d.pol.once.Do(func() {
		raw, err := pyjson.Marshal(d.DB().NewState().Dump())
		if err != nil {
			d.pol.err = err
			return
		}
		db, err := retail.DecodeDB(raw)
		if err != nil {
			d.pol.err = fmt.Errorf("v1 retail data as τ² retail's: %w", err)
			return
		}
		d.pol.d = retail.New(db, d.Policy(), nil)
		d.pol.d.AllowSameItem()
	})
	if d.pol.err != nil {
		// TestPolicyData decodes the pinned data: only modified data
		// (--allow-modified-data) that τ²'s schema refuses gets here.
		panic(fmt.Sprintf("%s: ledger policy: %v", d.Name(), d.pol.err))
	}
	return d.pol.d
}

// Route implements ledger.Router (τ² retail's path map). v1's user records
// do not carry their id, as τ²'s do: get_user_details' output gets it from
// the call's arguments.
func (d *Domain) Route(tool string, args json.RawMessage, output string) []ledger.Entry {
	if tool == "get_user_details" {
		output = withUserID(args, output)
	}
	return d.shadow().Route(tool, args, output)
}

// withUserID puts the call's user_id first in a user record that has none.
func withUserID(args json.RawMessage, output string) string {
	var a struct {
		UserID string `json:"user_id"`
	}
	if json.Unmarshal(args, &a) != nil || a.UserID == "" {
		return output
	}
	rec, err := pyjson.Decode([]byte(output))
	d, ok := rec.(*pyjson.Dict)
	if err != nil || !ok {
		return output
	}
	if _, has := d.Get("user_id"); has {
		return output
	}
	out := &pyjson.Dict{Keys: append([]string{"user_id"}, d.Keys...), Values: append([]any{a.UserID}, d.Values...)}
	b, err := pyjson.Marshal(out)
	if err != nil {
		return output
	}
	return string(b)
}

// GatePredicates implements ledgeragent.Policy: τ² retail's predicates,
// citing wiki.md's headings.
func (d *Domain) GatePredicates() []ledger.Predicate {
	preds := d.shadow().GatePredicates()
	for i := range preds {
		preds[i].Clause = clause(preds[i].Clause)
	}
	return preds
}

// DecodeArgs implements ledgeragent.Policy.
func (d *Domain) DecodeArgs(tool string, raw json.RawMessage) (any, *ledger.Failure) {
	a, f := d.shadow().DecodeArgs(tool, raw)
	if f != nil {
		f.Clause = clause(f.Clause)
	}
	return a, f
}

// EvidenceReads implements ledgeragent.Auditor.
func (d *Domain) EvidenceReads(tool string, args json.RawMessage) []message.ToolCall {
	return d.shadow().EvidenceReads(tool, args)
}

// Mutations implements ledgeragent.Auditor.
func (d *Domain) Mutations(tool string, args json.RawMessage, l *ledger.Ledger) []ledger.Mutation {
	return d.shadow().Mutations(tool, args, l)
}
