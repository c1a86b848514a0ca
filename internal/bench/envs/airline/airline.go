// Package airline ports τ²-bench's airline domain: a reservation system whose
// agent looks up users, reservations and flights, and books, changes or
// cancels trips under a written policy.
//
// The loaded database (flights, users, reservations) is shared by every
// simulation and never modified. A simulation's Env holds copy-on-write views
// of the three tables, so a fresh environment is one small allocation and a
// write copies only the records it touches.
//
// Tool names, parameters, output formats, error texts and quirks follow
// upstream's AirlineTools (src/tau2/domains/airline/tools.py) exactly,
// including its unvalidated arguments: a tool sees the decoded JSON values
// and checks them where and as Python and pydantic would (see pyvalue.go);
// the tool descriptions are our own. The tests compare outputs and final
// databases with upstream's own toolkit run on the same calls
// (testdata/oracle.py).
//
// Known departures, all on inputs no recorded run contains:
//   - update_reservation_flights with no flights and a cabin that is not a
//     string, and update_reservation_passengers with as many non-object
//     passengers as the reservation has: upstream stores the bad value, the
//     port returns an error (its typed records cannot hold it);
//   - integers beyond 64 bits in arguments are refused;
//   - calculate is package pycalc's Tau2, with its departures: int results
//     beyond 2^22 bits are refused (CPython computes them for minutes), and
//     the nesting limits are approximate.
package airline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/pyschema"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Name is the domain's name.
const Name = "airline"

// toolkitClass is upstream's toolkit class name, used in argument error texts.
const toolkitClass = "AirlineTools"

// Domain is the loaded airline domain: database, policy, tasks and tools.
// envs.Single provides Name, Policy, AgentTools, UserTools and Tasks.
type Domain struct {
	envs.Single[*Env]
	db *DB
}

var _ envs.Domain = (*Domain)(nil)

// Load reads the airline files (db.json, policy.md, tasks.json,
// split_tasks.json) from a data directory.
func Load(root string) (*Domain, error) {
	dir := data.Tau2Domain(root, Name)
	dbPath := filepath.Join(dir, "db.json")
	raw, err := os.ReadFile(dbPath)
	if err != nil {
		return nil, fmt.Errorf("read airline db: %w", err)
	}
	db, err := loadDB(raw)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", dbPath, err)
	}
	policy, err := os.ReadFile(filepath.Join(dir, "policy.md"))
	if err != nil {
		return nil, fmt.Errorf("read airline policy: %w", err)
	}
	ts, err := tasks.LoadTau2(dir, Name)
	if err != nil {
		return nil, fmt.Errorf("load airline tasks: %w", err)
	}
	d := New(db, string(policy), ts)
	tools, err := pyschema.Described(d.Toolset(), data.Tau2Source(root, "domains/airline/tools.py"), toolkitClass,
		data.Tau2Source(root, "domains/airline/data_model.py"))
	if err != nil {
		return nil, fmt.Errorf("airline tools: %w", err)
	}
	d.SetToolset(tools)
	return d, nil
}

// loadDB decodes db.json: lazily when it is the pinned file (checked by
// hash while the records are split), else in full, validating every record.
func loadDB(raw []byte) (*DB, error) {
	return data.DecodePinned(data.Tau2, path.Join(data.Tau2DomainPath(Name), "db.json"), raw, decodePinnedDB, DecodeDB)
}

// New builds a domain over an already decoded database (tests use small
// fixture databases). db must not be modified afterwards. Its tools have no
// descriptions and only the parameter structure of their argument types:
// what the model is shown comes from upstream's source, which Load reads.
func New(db *DB, policy string, ts *tasks.Set) *Domain {
	return &Domain{Single: envs.NewSingle(Name, policy, ts, newToolSet()), db: db}
}

// DB returns the shared loaded database. It must not be modified.
func (d *Domain) DB() *DB { return d.db }

// NewEnv returns a fresh environment (implements envs.Domain).
func (d *Domain) NewEnv() envs.Env { return d.Env() }

// Env returns a fresh environment with its concrete type.
func (d *Domain) Env() *Env {
	return &Env{
		d:            d,
		flights:      table.New(&d.db.Flights, cloneFlight),
		users:        table.New(&d.db.Users, cloneUser),
		reservations: table.New(&d.db.Reservations, cloneReservation),
	}
}

// Env is one simulation's state: copy-on-write views of the three tables
// over the shared database.
type Env struct {
	d            *Domain
	flights      table.Table[Flight]
	users        table.Table[User]
	reservations table.Table[Reservation]
}

var _ envs.Env = (*Env)(nil)

// Call runs an agent tool (upstream's make_tool_call; envs.Single.CallTool).
// Airline has no user tools.
func (e *Env) Call(ctx context.Context, requestor message.Requestor, name string, args json.RawMessage) (any, error) {
	return e.d.CallTool(ctx, e, requestor, name, args)
}

// RunFunction calls a toolkit function by name (upstream's
// run_env_function_call; envs.Single.RunToolFunction).
func (e *Env) RunFunction(ctx context.Context, side message.Requestor, name string, args json.RawMessage) (any, error) {
	return e.d.RunToolFunction(ctx, e, side, name, args)
}

// Sync is a no-op: airline has a single database.
func (e *Env) Sync() {}

// SameDB reports whether two airline states hold equal databases, as
// upstream compares them: a hash of json.dumps(model_dump(), sort_keys=True),
// so dict order is ignored but 2 and 2.0 differ. user is always true.
func (e *Env) SameDB(other envs.Env) (agent, user bool) {
	o, ok := other.(*Env)
	if !ok {
		return false, true
	}
	if o.d.db != e.d.db {
		return canonicalDB(e.Snapshot()) == canonicalDB(o.Snapshot()), true
	}
	return sameTable(&e.flights, &o.flights) && sameTable(&e.users, &o.users) &&
		sameTable(&e.reservations, &o.reservations), true
}

// sameTable compares two views over the same base; only records either view
// touched can differ.
func sameTable[V any](a, b *table.Table[V]) bool {
	if a.Len() != b.Len() {
		return false
	}
	for _, t := range [2]*table.Table[V]{a, b} {
		for _, k := range t.Touched() {
			va, okA := a.Get(k)
			vb, okB := b.Get(k)
			if okA != okB || (va != vb && !sameRecord(va, vb)) {
				return false
			}
		}
	}
	return true
}

// sameRecord compares two records as upstream's sorted-key dumps do; equal
// dumps in dict order (the usual case) settle it without sorting.
func sameRecord(a, b any) bool {
	return pyjson.SameDump(a, b) || canonical(a) == canonical(b)
}

// canonicalDB is json.dumps(db.model_dump(), sort_keys=True), the string
// upstream hashes to compare databases.
func canonicalDB(db *DB) string {
	var b strings.Builder
	b.WriteString(`{"flights": `)
	canonicalTable(&b, &db.Flights)
	b.WriteString(`, "reservations": `)
	canonicalTable(&b, &db.Reservations)
	b.WriteString(`, "users": `)
	canonicalTable(&b, &db.Users)
	b.WriteString("}")
	return b.String()
}

func canonicalTable[V any](b *strings.Builder, m *omap.Map[*V]) {
	keys := slices.Clone(m.Keys())
	slices.Sort(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(pyjson.AppendString(nil, k, true))
		b.WriteString(": ")
		v, _ := m.Get(k)
		b.WriteString(canonical(v))
	}
	b.WriteByte('}')
}

// canonical is json.dumps(v, sort_keys=True) of a record's model dump.
func canonical(v any) string {
	b, err := pyjson.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	d, err := pyjson.Decode(b)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	out, err := pyjson.MarshalOptions(d, pyjson.Options{SortKeys: true})
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(out)
}

// DumpDB returns a snapshot of the database, which encodes (pyjson) as
// upstream's FlightDB.model_dump. There is no user database.
func (e *Env) DumpDB() (agent, user any) { return e.Snapshot(), nil }

// Snapshot returns the current database as a DB value independent of later
// calls. Unchanged records are shared with the loaded database and must not
// be modified.
func (e *Env) Snapshot() *DB {
	return &DB{
		Flights:      e.flights.Snapshot(),
		Users:        e.users.Snapshot(),
		Reservations: e.reservations.Snapshot(),
	}
}

// MarshalJSON encodes the database as upstream's model_dump JSON.
func (db *DB) MarshalJSON() ([]byte, error) { return pyjson.Marshal(db) }

// MarshalsByPyjson: MarshalJSON is pyjson.Marshal (pyjson.SelfMarshaled).
func (*DB) MarshalsByPyjson() {}
