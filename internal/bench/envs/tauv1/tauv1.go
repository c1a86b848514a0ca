// Package tauv1 is what τ-bench v1's environments (sierra-research/tau-bench,
// tau_bench/envs) and τ-Trait's copies of them (collinear-ai/tau-trait,
// tau_trait/envs) share: task lists read from Python literals, tool schemas
// from each tool module's get_info(), the data as load_data returns it
// (dicts of records, copy-on-write per simulation), Env.step's handling of
// a call (Python's argument binding errors, "Unknown action <name>"), and
// the data hash the reward compares.
//
// A domain package (internal/bench/envs/v1airline, v1retail) supplies its
// tools, tables and splits in a Config; Load reads either benchmark's copy
// of the environment (Source) with the same code, so τ-Trait's airline and
// τ-bench v1's airline are one port over two data folders.
//
// Upstream invokes a tool as Tool.invoke(data, **kwargs) and turns any
// exception into the observation "Error: <text>"; Env.Call returns those
// texts as errors (envs.Respond adds the prefix), and so the failures the
// tools return as text ("Error: user not found"): the observation is the
// same, and the call counts as failed, as a recording's reader counts it.
//
// The reward is τ-bench v1's: the final data must equal what a replay of the
// gold actions produces (terminate tools skipped), and each of the task's
// outputs must appear in a reply of the agent. The shared evaluator computes
// it from the DB and COMMUNICATE criteria the task mapping sets.
package tauv1

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Source is one upstream copy of the v1 environments.
type Source struct {
	// Benchmark is the source's name in task metadata ("tau-trait",
	// "tau-bench").
	Benchmark string
	// Folder is the data directory's folder of the repository.
	Folder string
	// Package is the Python package ("tau_trait", "tau_bench"), which shows
	// in some of Python's error texts.
	Package string
	// Label names the benchmark in task notes ("τ-Trait", "τ-bench v1").
	Label string
}

// The two sources.
var (
	TauTrait = Source{Benchmark: "tau-trait", Folder: data.TauTrait, Package: "tau_trait", Label: "τ-Trait"}
	TauBench = Source{Benchmark: "tau-bench", Folder: data.TauBench, Package: "tau_bench", Label: "τ-bench v1"}
)

// Rel is an environment's slash path inside the repository
// ("tau_trait/envs/airline").
func (s Source) Rel(env string) string { return path.Join(s.Package, "envs", env) }

// Dir is an environment's folder in a data directory.
func (s Source) Dir(root, env string) string {
	return filepath.Join(root, s.Folder, filepath.FromSlash(s.Rel(env)))
}

// Def is one upstream tool: its class name and its implementation.
type Def struct {
	Class string
	Tool  tool.Tool[*Env]
}

// Config describes one environment.
type Config struct {
	Name   string // the domain's name ("tautrait-airline")
	Env    string // the environment's folder ("airline")
	Source Source
	// Tables are load_data's tables in its order (data/<name>.json).
	Tables []string
	// Splits are the task splits env.py can load, the default first.
	Splits []Split
	// Tools are the tools in ALL_TOOLS order (checked against
	// tools/__init__.py); Class names the toolkit in errors.
	Tools []Def
	Class string
	// Terminate lists env.terminate_tools.
	Terminate []string
}

// Domain is a loaded v1 environment: data shared by all its simulations.
// envs.Single provides Name, Policy (the wiki), AgentTools, UserTools and
// Tasks.
type Domain struct {
	envs.Single[*Env]
	cfg     Config
	db      *DB
	rules   []string
	classes map[string]string // tool name → class name
}

// Load reads an environment from a data directory: its data, wiki.md (the
// agent's system prompt), rules.py, task splits and tool schemas. A missing
// or malformed file is an error naming it; nothing is half-loaded.
func Load(root string, cfg Config) (*Domain, error) {
	dir := cfg.Source.Dir(root, cfg.Env)
	db, err := LoadDB(dir, cfg.Source.Folder, cfg.Source.Rel(cfg.Env), cfg.Tables)
	if err != nil {
		return nil, err
	}
	wiki, err := os.ReadFile(filepath.Join(dir, "wiki.md"))
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	rules, err := loadRules(filepath.Join(dir, "rules.py"))
	if err != nil {
		return nil, err
	}
	ts, err := LoadTasks(dir, cfg.Name, cfg.Source.Label+" "+cfg.Env, cfg.Source.Benchmark, cfg.Splits)
	if err != nil {
		return nil, err
	}
	names := make([]Tool, len(cfg.Tools))
	for i, t := range cfg.Tools {
		names[i] = Tool{Name: t.Tool.Name, Class: t.Class}
	}
	if err := CheckToolOrder(dir, names); err != nil {
		return nil, err
	}
	schemas, err := LoadSchemas(dir, names)
	if err != nil {
		return nil, err
	}
	d := New(cfg, db, string(wiki), ts)
	tools, err := d.Toolset().Described(SchemaSource[*Env]{Schemas: schemas, Tools: d.Toolset()})
	if err != nil {
		return nil, fmt.Errorf("tool schemas: %w", err)
	}
	d.SetToolset(tools)
	d.rules = rules
	return d, nil
}

// New assembles a domain from loaded parts (tests build small ones); its
// tools have the schemas of their argument types until Load sets
// upstream's.
func New(cfg Config, db *DB, policy string, ts *tasks.Set) *Domain {
	list := make([]tool.Tool[*Env], len(cfg.Tools))
	classes := make(map[string]string, len(cfg.Tools))
	for i, def := range cfg.Tools {
		list[i] = def.Tool
		classes[def.Tool.Name] = def.Class
	}
	return &Domain{Single: envs.NewSingle(cfg.Name, policy, ts, tool.NewSet(cfg.Class, list...)),
		cfg: cfg, db: db, classes: classes}
}

// loadRules reads RULES from rules.py: a list of str (τ-bench v1), or one
// str (τ-Trait's telecom), which is one rule.
func loadRules(p string) ([]string, error) {
	src, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read rules: %w", err)
	}
	a, err := pyliteral.Assignment(src, func(n string) bool { return n == "RULES" })
	if err != nil {
		return nil, fmt.Errorf("%s: RULES: %w", p, err)
	}
	if s, ok := a.Value.(string); ok {
		return []string{s}, nil
	}
	list, ok := a.Value.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: line %d: RULES is not a list or a str", p, a.Line)
	}
	out := make([]string, len(list))
	for i, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s: line %d: RULES[%d] is not a str", p, a.Line, i)
		}
		out[i] = s
	}
	return out, nil
}

// Config returns the domain's description.
func (d *Domain) Config() Config { return d.cfg }

// DB is the shared, read-only data as loaded.
func (d *Domain) DB() *DB { return d.db }

// Rules is rules.py's RULES (upstream's Env keeps them; its tool-calling
// agent does not show them).
func (d *Domain) Rules() []string { return d.rules }

// Terminates reports whether calling the tool ends the episode
// (envs.Terminator).
func (d *Domain) Terminates(name string) bool { return slices.Contains(d.cfg.Terminate, name) }

// OutputsInReplies marks the outputs check as v1's: only the agent's replies
// (respond actions) count (envs.ReplyOutputs).
func (d *Domain) OutputsInReplies() {}

// NewEnv returns a fresh simulation state (an *Env).
func (d *Domain) NewEnv() envs.Env { return d.Env() }

// Env returns a fresh simulation state.
func (d *Domain) Env() *Env { return &Env{d: d, State: d.db.NewState()} }

// Env is one simulation's state: the data, copy-on-write.
type Env struct {
	d *Domain
	*State
}

// Domain is the environment's domain.
func (e *Env) Domain() *Domain { return e.d }

// UnknownAction is upstream's observation for a name that is neither a tool
// nor respond. It is an observation, not an error: Call returns it as the
// result.
func UnknownAction(name string) string { return "Unknown action " + name }

// Call runs a tool as upstream's Env.step does: Python's argument binding
// errors, then the tool. An unknown name yields the UnknownAction text as
// the result. Every action is the agent's: any requestor but the user (the
// empty one included) runs the tool; a user call fails as it would in τ²
// with no user tools (envs.ErrNoUserTools).
func (e *Env) Call(ctx context.Context, requestor message.Requestor, name string, args json.RawMessage) (any, error) {
	if requestor == message.ByUser {
		return nil, envs.ErrNoUserTools
	}
	d := e.d
	info, ok := d.Toolset().Lookup(name)
	if !ok {
		return UnknownAction(name), nil
	}
	class := d.classes[name]
	if bytes.Contains(args, []byte(`"data"`)) {
		var top map[string]json.RawMessage
		if json.Unmarshal(args, &top) == nil {
			if _, dup := top["data"]; dup {
				return nil, fmt.Errorf("%s.envs.%s.tools.%s.%s.invoke() got multiple values for keyword argument 'data'", d.cfg.Source.Package, d.cfg.Env, name, class)
			}
		}
	}
	if err := tool.CheckArgs(class, tool.Info{Name: "invoke", Params: info.Params}, args); err != nil {
		return nil, err
	}
	res, err := d.Toolset().Call(ctx, e, name, args)
	if s, ok := res.(string); ok && err == nil {
		if text, failed := strings.CutPrefix(s, ErrorPrefix); failed {
			// A failure the tool returns as text is an error here (the
			// observation is the same: envs.Respond writes the prefix).
			return nil, errors.New(text)
		}
	}
	return res, err
}

// ErrorPrefix starts the observation of a failed call: the text tools
// return on a failure and Env.step's form of an exception.
const ErrorPrefix = "Error: "

// RunFunction is Call: the environment has no functions besides its tools
// and nothing to sync.
func (e *Env) RunFunction(ctx context.Context, side message.Requestor, name string, args json.RawMessage) (any, error) {
	return e.Call(ctx, side, name, args)
}

// Sync does nothing: there is one database.
func (e *Env) Sync() {}

// Terminates reports whether calling the tool ends the episode.
func (e *Env) Terminates(name string) bool { return e.d.Terminates(name) }

// SameDB compares the data as upstream's hash does; there is no user side.
func (e *Env) SameDB(other envs.Env) (agent, user bool) {
	o, ok := other.(*Env)
	if !ok {
		return false, true
	}
	return e.State.Same(o.State), true
}

// DumpDB returns the data (it encodes as upstream's data dict, with pyjson
// or encoding/json); there is no user database.
func (e *Env) DumpDB() (agent, user any) { return e.State.Dump(), nil }
