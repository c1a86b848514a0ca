// Package telehealth is τ-Trait's telehealth domain (collinear-ai/tau-trait):
// a τ-Bench v1 style, single-control environment in which an agent
// authenticates patients, manages appointments, reads medical records and
// updates prescriptions, with 23 tools over nine JSON tables.
//
// Upstream invokes tools as Tool.invoke(data, **kwargs) and turns any
// exception into the observation "Error: <text>"; Env.Call returns those
// texts as errors (envs.Respond adds the prefix). Tool outputs, error texts
// and database changes follow upstream byte for byte, Python formatting
// included (float repr, :.2f, str.title(), json.dumps defaults, TypeError,
// KeyError and AttributeError texts for arguments of the wrong shape).
//
// The reward is τ-Bench v1's: the final database must equal the one a replay
// of the gold actions produces (transfer_to_human_support, which ends the
// episode, is skipped in that replay; it changes nothing). Env.DataHash is
// upstream's data hash, for comparing with recorded runs.
package telehealth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Name is the domain's name.
const Name = "telehealth"

// TerminateTool ends the episode when called (upstream's terminate_tools).
const TerminateTool = "transfer_to_human_support"

// BenchmarkDate is the day cancel_appointment stamps by default. Upstream
// uses the local date; 2025-10-28 reproduces the data hashes recorded in
// upstream's GPT-5 runs.
func BenchmarkDate() time.Time { return time.Date(2025, 10, 28, 12, 0, 0, 0, time.UTC) }

// Domain is the loaded telehealth domain: data shared by all simulations.
// envs.Single provides Name, Policy, AgentTools, UserTools and Tasks.
type Domain struct {
	envs.Single[*Env]
	db      *DB
	classes map[string]string // tool name → upstream class name
	now     func() time.Time
	hashes  *hashCache
}

// Option configures Load.
type Option func(*Domain)

// WithClock sets the clock cancel_appointment reads (default: always
// BenchmarkDate). Use time.Now for upstream's live behaviour.
func WithClock(now func() time.Time) Option { return func(d *Domain) { d.now = now } }

// Load reads the telehealth files under a data directory.
func Load(root string, opts ...Option) (*Domain, error) {
	dir := data.Telehealth(root)
	db, err := LoadDB(filepath.Join(dir, "data"))
	if err != nil {
		return nil, err
	}
	policy, err := os.ReadFile(filepath.Join(dir, "wiki.md"))
	if err != nil {
		return nil, fmt.Errorf("telehealth: read policy: %w", err)
	}
	ts, err := LoadTasks(dir)
	if err != nil {
		return nil, err
	}
	schemas, err := LoadSchemas(dir)
	if err != nil {
		return nil, err
	}
	d := New(db, string(policy), ts)
	if err := d.setSchemas(schemas); err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(d)
	}
	return d, nil
}

// New assembles a domain from loaded parts (tests build small ones). Its
// tools have no descriptions and the parameter schemas of their argument
// types until the upstream schemas are set (Load reads them from the tool
// modules' get_info()).
func New(db *DB, policy string, ts *tasks.Set) *Domain {
	defs := newTools()
	list := make([]tool.Tool[*Env], len(defs))
	classes := make(map[string]string, len(defs))
	for i, def := range defs {
		list[i] = def.tool
		classes[def.tool.Name] = def.class
	}
	return &Domain{Single: envs.NewSingle(Name, policy, ts, tool.NewSet("TelehealthTools", list...)),
		db: db, classes: classes, now: BenchmarkDate, hashes: &hashCache{}}
}

// setSchemas gives the tools upstream's descriptions and parameter schemas
// (LoadSchemas order, which is the tools' order), checking that they
// declare the parameters the tools take (tool.Set.Described).
func (d *Domain) setSchemas(schemas []Schema) error {
	tools, err := d.Toolset().Described(tauv1.SchemaSource[*Env]{Schemas: schemas, Tools: d.Toolset()})
	if err != nil {
		return fmt.Errorf("telehealth: tool schemas: %w", err)
	}
	d.SetToolset(tools)
	return nil
}

// DB is the shared, read-only database as loaded.
func (d *Domain) DB() *DB { return d.db }

// Terminates reports whether calling the tool ends the episode
// (envs.Terminator): only transfer_to_human_support does.
func (d *Domain) Terminates(name string) bool { return name == TerminateTool }

// OutputsInReplies marks the outputs check as τ-bench v1's: only the
// agent's replies count (envs.ReplyOutputs).
func (d *Domain) OutputsInReplies() {}

// NewEnv returns a fresh simulation state (an *Env).
func (d *Domain) NewEnv() envs.Env { return d.Env() }

// Env returns a fresh simulation state: empty copy-on-write views over the
// shared appointments and medical records, the only tables tools change.
func (d *Domain) Env() *Env {
	return &Env{
		d:            d,
		appointments: table.New(&d.db.Appointments, cloneAppointment),
		records:      table.New(&d.db.MedicalRecords, cloneRecord),
	}
}

// Env is one simulation's state.
type Env struct {
	d            *Domain
	appointments table.Table[Appointment]
	records      table.Table[Record]
}

// UnknownAction is upstream's observation for a name that is neither a tool
// nor respond. It is an observation, not an error: Call returns it as the
// result.
func UnknownAction(name string) string { return "Unknown action " + name }

// Call runs a tool like upstream's Env.step: Python's argument binding
// errors, then the tool. An unknown name yields the UnknownAction text as
// the result. Unlike τ²'s domains (envs.Single.CallTool) τ-Trait has no
// requestors: every action is the agent's, so any requestor but the user
// (the empty one included) runs the tool; a user call fails as it would in
// τ² with no user tools (envs.ErrNoUserTools).
func (e *Env) Call(ctx context.Context, requestor message.Requestor, name string, args json.RawMessage) (any, error) {
	if requestor == message.ByUser {
		return nil, envs.ErrNoUserTools
	}
	info, ok := e.d.Toolset().Lookup(name)
	if !ok {
		return UnknownAction(name), nil
	}
	class := e.d.classes[name]
	if bytes.Contains(args, []byte(`"data"`)) {
		var top map[string]json.RawMessage
		if json.Unmarshal(args, &top) == nil {
			if _, dup := top["data"]; dup {
				return nil, fmt.Errorf("tau_trait.envs.telehealth.tools.%s.%s.invoke() got multiple values for keyword argument 'data'", name, class)
			}
		}
	}
	if err := tool.CheckArgs(class, tool.Info{Name: "invoke", Params: info.Params}, args); err != nil {
		return nil, err
	}
	return e.d.Toolset().Call(ctx, e, name, args)
}

// RunFunction is Call: the domain has no environment functions besides its
// tools and nothing to sync.
func (e *Env) RunFunction(ctx context.Context, side message.Requestor, name string, args json.RawMessage) (any, error) {
	return e.Call(ctx, side, name, args)
}

// Sync does nothing: there is one database.
func (e *Env) Sync() {}

// Terminates reports whether calling the tool ends the episode.
func (e *Env) Terminates(name string) bool { return name == TerminateTool }

// SameDB compares the databases as upstream's hash does (dict key order
// does not matter; values, types and list order do). The user side has no
// database.
func (e *Env) SameDB(other envs.Env) (agent, user bool) {
	o, ok := other.(*Env)
	if !ok {
		return false, true
	}
	if o.d != e.d {
		return e.DataHash() == o.DataHash(), true
	}
	return sameTable(&e.appointments, &o.appointments) && sameTable(&e.records, &o.records), true
}

func sameTable[V any](a, b *table.Table[V]) bool {
	if a.Len() != b.Len() {
		return false
	}
	for _, ks := range [][]string{a.Touched(), b.Touched()} {
		for _, k := range ks {
			va, oka := a.Get(k)
			vb, okb := b.Get(k)
			if oka != okb {
				return false
			}
			if va != vb && canonical(va) != canonical(vb) {
				return false
			}
		}
	}
	return true
}

// canonical is a value's JSON with sorted keys: equal exactly when
// upstream's hashes of the values are equal.
func canonical(v any) string {
	tree, err := decodedTree(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	out, err := pyjson.MarshalOptions(tree, pyjson.Options{SortKeys: true})
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(out)
}

// dump is the database as load_data returns it, with this simulation's
// changes.
type dump struct {
	Patients            *omap.Map[*Patient]                `json:"patients"`
	Providers           *omap.Map[*Provider]               `json:"providers"`
	Appointments        table.Table[Appointment]           `json:"appointments"`
	MedicalRecords      table.Table[Record]                `json:"medical_records"`
	MedicationSuppliers *omap.Map[[]*Supplier]             `json:"medication_suppliers"`
	DrugInteractions    *omap.Map[*omap.Map[*Interaction]] `json:"drug_interactions"`
	TelemetryInventory  []*Device                          `json:"telemetry_inventory"`
	TelemetryUploads    []*Upload                          `json:"telemetry_uploads"`
	RegimenPlans        *omap.Map[*RegimenPlan]            `json:"regimen_plans"`
}

// MarshalJSON writes the dump as json.dumps would (for encoding/json users).
func (d dump) MarshalJSON() ([]byte, error) { return pyjson.Marshal(d) }

// MarshalsByPyjson: MarshalJSON is pyjson.Marshal (pyjson.SelfMarshaled).
func (dump) MarshalsByPyjson() {}

// DumpDB returns the database (it encodes as upstream's data dict, with
// pyjson or encoding/json); there is no user database.
func (e *Env) DumpDB() (agent, user any) { return e.dump(), nil }

func (e *Env) dump() dump {
	db := e.d.db
	return dump{&db.Patients, &db.Providers, e.appointments, e.records, &db.MedicationSuppliers,
		&db.DrugInteractions, db.TelemetryInventory, db.TelemetryUploads, &db.RegimenPlans}
}

// DataHash is upstream's get_data_hash: sha256 of str(to_hashable(data)),
// where dicts become tuples of (key, value) pairs sorted by key and lists
// become tuples.
func (e *Env) DataHash() string {
	hc := e.d.hashes.get(e.d.db)
	var b bytes.Buffer
	b.Grow(hc.size)
	b.WriteByte('(')
	for i, name := range hc.order {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + pyjson.ReprString(name) + ", ")
		switch name {
		case "appointments":
			writeTableHash(&b, &e.appointments, hc.appointments)
		case "medical_records":
			writeTableHash(&b, &e.records, hc.records)
		default:
			b.WriteString(hc.static[name])
		}
		b.WriteByte(')')
	}
	b.WriteByte(')')
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// hashCache holds the hash text of everything simulations share: the
// read-only tables whole, and each loaded appointment and record.
type hashCache struct {
	once         sync.Once
	order        []string          // table names, sorted
	static       map[string]string // read-only table → str(to_hashable(table))
	appointments map[string]string // key → str(to_hashable((key, record)))
	records      map[string]string
	size         int
}

func (c *hashCache) get(db *DB) *hashCache {
	c.once.Do(func() {
		tree, err := decodedTree(dump{&db.Patients, &db.Providers, table.New(&db.Appointments, cloneAppointment),
			table.New(&db.MedicalRecords, cloneRecord), &db.MedicationSuppliers, &db.DrugInteractions,
			db.TelemetryInventory, db.TelemetryUploads, &db.RegimenPlans})
		c.static, c.appointments, c.records = map[string]string{}, map[string]string{}, map[string]string{}
		if err != nil {
			c.static["<error>"] = err.Error()
			return
		}
		all := tree.(*pyjson.Dict)
		c.order = slices.Sorted(slices.Values(all.Keys))
		for i, name := range all.Keys {
			switch name {
			case "appointments", "medical_records":
				m := c.appointments
				if name == "medical_records" {
					m = c.records
				}
				t := all.Values[i].(*pyjson.Dict)
				for j, k := range t.Keys {
					m[k] = tauv1.PairHashable(k, t.Values[j])
					c.size += len(m[k]) + 2
				}
			default:
				var b bytes.Buffer
				tauv1.WriteHashable(&b, all.Values[i])
				c.static[name] = b.String()
				c.size += b.Len()
			}
		}
		c.size += 1024
	})
	return c
}

// writeTableHash writes str(to_hashable(table)) for a copy-on-write table,
// reusing the cached text of records the simulation has not touched.
func writeTableHash[V any](b *bytes.Buffer, t *table.Table[V], base map[string]string) {
	touched := map[string]bool{}
	for _, k := range t.Touched() {
		touched[k] = true
	}
	keys := make([]string, 0, t.Len())
	for k := range t.All() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteByte('(')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		if text, ok := base[k]; ok && !touched[k] {
			b.WriteString(text)
			continue
		}
		v, _ := t.Get(k)
		tree, err := decodedTree(v)
		if err != nil {
			b.WriteString("<" + err.Error() + ">")
			continue
		}
		b.WriteString(tauv1.PairHashable(k, tree))
	}
	if len(keys) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
}

// nonFinite maps the stand-in strings decodedTree's scan puts for
// non-finite floats to the floats.
func nonFinite(s string) (float64, bool) {
	switch s {
	case "\x00float:nan":
		return math.NaN(), true
	case "\x00float:inf":
		return math.Inf(1), true
	case "\x00float:-inf":
		return math.Inf(-1), true
	}
	return 0, false
}

// restoreFloats replaces decodedTree's stand-in strings by the floats.
func restoreFloats(v any) any {
	switch x := v.(type) {
	case string:
		if f, ok := nonFinite(x); ok {
			return f
		}
	case []any:
		for i := range x {
			x[i] = restoreFloats(x[i])
		}
	case *pyjson.Dict:
		for i := range x.Values {
			x.Values[i] = restoreFloats(x.Values[i])
		}
	}
	return v
}

// decodedTree encodes v as json.dumps would and decodes it again into
// plain values. json.dumps writes NaN and ±Infinity (a supplier price can be
// float("inf")), which JSON decoders refuse; they come back as float64s.
func decodedTree(v any) (any, error) {
	raw, err := pyjson.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out []byte
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			out = append(out, c)
			switch c {
			case '\\':
				i++
				out = append(out, raw[i])
			case '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			out = append(out, c)
		case bytes.HasPrefix(raw[i:], []byte("NaN")):
			out = append(out, `"\u0000float:nan"`...)
			i += 2
		case bytes.HasPrefix(raw[i:], []byte("Infinity")):
			out = append(out, `"\u0000float:inf"`...)
			i += 7
		case bytes.HasPrefix(raw[i:], []byte("-Infinity")):
			out = append(out, `"\u0000float:-inf"`...)
			i += 8
		default:
			out = append(out, c)
		}
	}
	tree, err := pyjson.Decode(out)
	if err != nil {
		return nil, err
	}
	return restoreFloats(tree), nil
}
