// Package tautraittelecom is τ-Trait's own telecom domain
// (collinear-ai/tau-trait, tau_trait/envs/telecom), named tautrait-telecom:
// a τ-Bench v1 style, single-control environment in which an agent looks up
// customers, manages their services, devices and billing, troubleshoots
// devices and files support tickets, with 18 tools over five JSON tables.
// It is unrelated to τ²-bench's dual-control telecom domain.
//
// Upstream invokes tools as Tool.invoke(data, **kwargs) and turns any
// exception into the observation "Error: <text>"; Env.Call returns those
// texts as errors (envs.Respond adds the prefix). Tool outputs, error texts
// and database changes follow upstream byte for byte: Python's argument
// binding errors, its KeyError, TypeError, AttributeError and ValueError
// texts, json.dumps, float repr and :.2f.
//
// What upstream's own code does, kept as it is:
//   - tasks_dev.py defines its list as TASKS_TEST, so upstream's dev split
//     raises ImportError: dev is not offered; the file's eight tasks are the
//     split dev-misnamed.
//   - the environment's terminate tool (transfer_to_human_support) is not
//     among its tools: calling it is an "Unknown action", and no tool ends
//     the episode.
//   - gold actions that name retired tools (manage_devices,
//     check_network_status) answer "Unknown action …"; others pass
//     arguments the tools do not take and fail with Python's TypeError.
//
// The reward is τ-Bench v1's: the final database must equal the one a
// replay of the gold actions produces, and every expected output must
// appear in one of the agent's replies.
package tautraittelecom

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Name is the domain's name.
const Name = "tautrait-telecom"

// UpstreamEnv is the domain's environment name upstream (--env telecom).
const UpstreamEnv = "telecom"

// toolsPackage is the Python package of the tool modules (for Python's
// binding errors, tauv1.CheckInvoke).
const toolsPackage = "tau_trait.envs.telecom.tools"

// TerminateTool is the environment's terminate tool (env.py); it is not one
// of the domain's tools, so it never ends an episode.
const TerminateTool = "transfer_to_human_support"

// Splits are the task lists: test (the default, 18 tasks) and train (1),
// which upstream loads, and tasks_dev.py's list as dev-misnamed; upstream's
// dev split is unavailable.
func Splits() tauv1.Splits {
	return tauv1.Splits{
		Default: "test",
		Lists: []tauv1.Split{
			{Name: "test", File: "tasks_test.py"},
			{Name: "train", File: "tasks_train.py"},
			{Name: "dev-misnamed", File: "tasks_dev.py", List: "TASKS_TEST"},
		},
		Unavailable: map[string]string{
			"dev": "upstream's tasks_dev.py defines TASKS_TEST, not TASKS_DEV, so upstream's dev split raises ImportError; its 8 tasks are the split dev-misnamed",
		},
	}
}

// Domain is the loaded domain: data shared by all simulations. envs.Single
// provides Name, Policy, AgentTools, UserTools and Tasks.
type Domain struct {
	envs.Single[*Env]
	db      *DB
	classes map[string]string // tool name → upstream class name
	steps   steps
	rules   string
}

// Load reads the domain's files under a data directory: the five data
// tables, wiki.md (the agent's policy), rules.py, the task lists and each
// tool's get_info() and troubleshooting answers from tools/*.py. Any
// missing or malformed file is an error naming it; nothing is returned
// then.
func Load(root string) (*Domain, error) {
	dir := data.TauTraitEnv(root, UpstreamEnv)
	db, err := LoadDB(filepath.Join(dir, "data"))
	if err != nil {
		return nil, err
	}
	policy, err := os.ReadFile(filepath.Join(dir, "wiki.md"))
	if err != nil {
		return nil, fmt.Errorf("%s: read policy: %w", Name, err)
	}
	rules, err := loadRules(filepath.Join(dir, "rules.py"))
	if err != nil {
		return nil, err
	}
	ts, err := tauv1.LoadTasks(Name, "τ-Trait telecom", dir, Splits())
	if err != nil {
		return nil, err
	}
	st, err := loadSteps(dir)
	if err != nil {
		return nil, err
	}
	d := New(db, string(policy), ts, st)
	d.rules = rules
	schemas, err := LoadSchemas(dir)
	if err != nil {
		return nil, err
	}
	tools, err := tauv1.Describe(d.Toolset(), schemas)
	if err != nil {
		return nil, fmt.Errorf("%s: tool schemas: %w", Name, err)
	}
	d.SetToolset(tools)
	return d, nil
}

// loadRules reads RULES from rules.py (a string constant).
func loadRules(path string) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: read rules: %w", Name, err)
	}
	s, err := pyliteral.StringAssignment(src, "RULES")
	if err != nil {
		return "", fmt.Errorf("%s: %s: RULES: %w", Name, path, err)
	}
	return s, nil
}

// LoadSchemas reads the get_info() dict of every tool, in ALL_TOOLS order,
// from the pulled tool modules under dir (the telecom folder).
func LoadSchemas(dir string) ([]tauv1.Schema, error) {
	defs := newTools()
	names := make([]tauv1.Def, len(defs))
	for i, def := range defs {
		names[i] = tauv1.Def{Name: def.tool.Name, Class: def.class}
	}
	return tauv1.LoadSchemas(Name, dir, names)
}

// New assembles a domain from loaded parts (tests build small ones). Its
// tools have no descriptions and the parameter schemas of their argument
// types until upstream's are set (Load reads them).
func New(db *DB, policy string, ts *tasks.Set, st steps) *Domain {
	defs := newTools()
	list := make([]tool.Tool[*Env], len(defs))
	classes := make(map[string]string, len(defs))
	for i, def := range defs {
		list[i] = def.tool
		classes[def.tool.Name] = def.class
	}
	return &Domain{Single: envs.NewSingle(Name, policy, ts, tool.NewSet("TelecomTools", list...)),
		db: db, classes: classes, steps: st}
}

// DB is the shared, read-only database as loaded.
func (d *Domain) DB() *DB { return d.db }

// Rules is rules.py's RULES, which upstream hands the environment but its
// tool-calling agent does not show the model.
func (d *Domain) Rules() string { return d.rules }

// Terminates reports whether calling the tool ends the episode
// (envs.Terminator): a terminate tool ends it only when it is one of the
// domain's tools (Env.step checks terminate_tools inside its tools branch),
// and telecom's is not, so nothing does.
func (d *Domain) Terminates(name string) bool {
	_, ok := d.Toolset().Lookup(name)
	return ok && name == TerminateTool
}

// NewEnv returns a fresh simulation state (an *Env).
func (d *Domain) NewEnv() envs.Env { return d.Env() }

// Env returns a fresh simulation state: empty copy-on-write views over the
// customers, billing and support tickets, the only tables tools change.
func (d *Domain) Env() *Env {
	return &Env{
		d:         d,
		customers: table.New(&d.db.Customers, cloneDict),
		billing:   table.New(&d.db.Billing, cloneDict),
		tickets:   table.New(&d.db.Tickets, cloneDict),
	}
}

// Env is one simulation's state.
type Env struct {
	d                           *Domain
	customers, billing, tickets table.Table[pyjson.Dict]
}

// Call runs a tool like upstream's Env.step: an unknown name (a retired
// tool, the terminate tool) yields tauv1.UnknownAction's text as the
// result; then Python's argument binding errors, then the tool. τ-Trait has
// no requestors: every action is the agent's; a user call fails as it would
// in τ² with no user tools (envs.ErrNoUserTools).
func (e *Env) Call(ctx context.Context, requestor message.Requestor, name string, args json.RawMessage) (any, error) {
	if requestor == message.ByUser {
		return nil, envs.ErrNoUserTools
	}
	info, ok := e.d.Toolset().Lookup(name)
	if !ok {
		return tauv1.UnknownAction(name), nil
	}
	if err := tauv1.CheckInvoke(toolsPackage, e.d.classes[name], info, args); err != nil {
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

// SameDB compares the databases as upstream's data hash does (dict key
// order does not matter; values, types and list order do). The user side
// has no database.
func (e *Env) SameDB(other envs.Env) (agent, user bool) {
	o, ok := other.(*Env)
	if !ok {
		return false, true
	}
	if o.d != e.d {
		return e.DataHash() == o.DataHash(), true
	}
	return sameTable(&e.customers, &o.customers) && sameTable(&e.billing, &o.billing) && sameTable(&e.tickets, &o.tickets), true
}

func sameTable(a, b *table.Table[pyjson.Dict]) bool {
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
			if va != vb && tauv1.Hashable(va) != tauv1.Hashable(vb) {
				return false
			}
		}
	}
	return true
}

// dump is the database as load_data returns it, with this simulation's
// changes.
type dump struct {
	Customers table.Table[pyjson.Dict] `json:"customers"`
	Services  *omap.Map[*pyjson.Dict]  `json:"services"`
	Devices   *omap.Map[*pyjson.Dict]  `json:"devices"`
	Billing   table.Table[pyjson.Dict] `json:"billing"`
	Tickets   table.Table[pyjson.Dict] `json:"support_tickets"`
}

// MarshalJSON writes the dump as json.dumps would (for encoding/json users).
func (d dump) MarshalJSON() ([]byte, error) { return pyjson.Marshal(d) }

// DumpDB returns the database (it encodes as upstream's data dict, with
// pyjson or encoding/json); there is no user database.
func (e *Env) DumpDB() (agent, user any) { return e.dump(), nil }

func (e *Env) dump() dump {
	return dump{e.customers, &e.d.db.Services, &e.d.db.Devices, e.billing, e.tickets}
}

// Data is the database as one decoded tree, upstream's data dict.
func (e *Env) Data() *pyjson.Dict {
	out := &pyjson.Dict{}
	tbl := func(t *table.Table[pyjson.Dict]) *pyjson.Dict {
		d := &pyjson.Dict{}
		for k, v := range t.All() {
			d.Set(k, v)
		}
		return d
	}
	m := func(t *omap.Map[*pyjson.Dict]) *pyjson.Dict {
		d := &pyjson.Dict{}
		for k, v := range t.All() {
			d.Set(k, v)
		}
		return d
	}
	out.Set("customers", tbl(&e.customers))
	out.Set("services", m(&e.d.db.Services))
	out.Set("devices", m(&e.d.db.Devices))
	out.Set("billing", tbl(&e.billing))
	out.Set("support_tickets", tbl(&e.tickets))
	return out
}

// DataHash is upstream's get_data_hash of this state's data.
func (e *Env) DataHash() string { return tauv1.Hash(e.Data()) }

// Terminates reports whether calling the tool ends the episode.
func (e *Env) Terminates(name string) bool { return e.d.Terminates(name) }
