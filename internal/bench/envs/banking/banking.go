// Package banking ports τ²-bench's banking_knowledge domain: a bank's
// customer service, where the agent verifies customers, reads their
// accounts, cards and transactions, finds in a knowledge base of 698
// documents what the bank's procedures are (and which hidden "discoverable"
// tools they name), and acts through those tools; the customer has tools
// of their own, some handed over by the agent.
//
// The transactional database (db.json) is loaded once and shared; each
// simulation changes it through copy-on-write tables. The retrieval
// variant (upstream's --retrieval-config, default alltools) decides the
// agent's retrieval tools and the prompt template its policy is assembled
// from; the retrieval engines are internal/bench/knowledge's.
//
// Tool names, parameters, outputs, error texts and quirks follow upstream's
// KnowledgeTools and KnowledgeUserTools (src/tau2/domains/banking_knowledge/
// tools.py and db_query.py): arguments are taken as json.loads hands them
// over, with Python's semantics for their types. The tools' descriptions,
// schemas, the discoverable tools' docstrings and the tools' output and
// error texts (texts.go) are read from the pulled source; the policy from
// the pulled prompt templates.
//
// Deliberate differences from upstream, none reachable by the shipped
// tasks or their gold trajectories:
//   - a lone surrogate escape (\ud800) in a JSON "arguments" string becomes
//     U+FFFD (Go strings cannot hold it).
//   - --retrieval-config-kwargs values of the wrong type (top_k "5") are
//     refused up front; upstream stores them and fails later.
package banking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/pyschema"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Name is the domain's name, as upstream's.
const Name = "banking_knowledge"

// Options choose the retrieval variant.
type Options struct {
	// Variant is a retrieval variant name ("": DefaultVariant).
	Variant string
	// Kwargs are the variant's overrides, a JSON object ({"top_k": 5}).
	Kwargs json.RawMessage
	// Knowledge are what the retrieval engines need from the layers above
	// (embedders, the reranker's backbone, the embeddings cache, sandbox
	// options); the zero value serves the offline variants.
	Knowledge knowledge.Deps
	// Shell configures the shell variants' sandboxes.
	Shell knowledge.ShellOptions
}

// Domain is the loaded domain for one retrieval variant.
type Domain struct {
	variant *Variant
	kwargs  json.RawMessage
	db      *DB
	tasks   *tasks.Set
	// knowledge reads the knowledge base, once.
	knowledge func() (*knowledge.Base, error)
	// policy is the assembled policy (for golden_retrieval, with the
	// {{required_documents}} placeholder still in it).
	policy string

	agent, user *tool.Set[*Env]
	// mix is the variant's retrieval tools (mixNames), built on first use.
	mix      func() (*tool.Set[*Env], error)
	mixInfos func() (*tool.Set[*Env], error)
	mixNames []string
	// agentClass is the Python class of the variant's composed toolkit.
	agentClass string
	agentDisc  *dset
	userDisc   *dset
	shell      *knowledge.Shell
	// pipes are the variant's KB_search pipelines once built (Prepare
	// indexes them).
	pipes []*knowledge.Pipeline
	// bypassCode is the knowledge base's account recovery bypass code
	// (gate.go), read from it on first use.
	bypassCode func() string

	// src is what the tools read from upstream's source (lists, tables,
	// texts); described holds the tools with upstream's descriptions.
	src       *source
	described func() (toolInfos, error)
}

type toolInfos struct{ agent, user []tool.Info }

var _ envs.Domain = (*Domain)(nil)

// Files upstream reads, relative to the domain's data directory.
const (
	dbFile       = "db.json"
	documentsDir = "documents"
	promptsDir   = "prompts"
	tasksDir     = "tasks"
)

// Source files, relative to src/tau2.
const (
	toolsFile = "domains/banking_knowledge/tools.py"
	modelFile = "domains/banking_knowledge/data_model.py"
)

// Load loads the domain from a data directory with the default variant.
func Load(root string) (*Domain, error) { return LoadVariant(root, Options{}) }

// LoadVariant loads the domain for a retrieval variant. The documents,
// tasks and prompt files it reads are those of the data manifest: a file
// missing from the data is an error naming it.
func LoadVariant(root string, o Options) (*Domain, error) {
	name := o.Variant
	if name == "" {
		name = DefaultVariant
	}
	v, err := ResolveVariant(name, o.Kwargs)
	if err != nil {
		return nil, err
	}
	dir := data.Tau2Domain(root, Name)
	d := &Domain{variant: v, kwargs: o.Kwargs, agentDisc: agentDiscoverable(), userDisc: userDiscoverable()}
	raw, err := os.ReadFile(filepath.Join(dir, dbFile))
	if err != nil {
		return nil, fmt.Errorf("read banking db: %w", err)
	}
	if d.db, err = loadDB(raw); err != nil {
		return nil, fmt.Errorf("decode %s: %w", filepath.Join(dir, dbFile), err)
	}
	m, err := data.LoadManifest()
	if err != nil {
		return nil, err
	}
	if d.tasks, err = loadTasks(m, dir); err != nil {
		return nil, err
	}
	docsDir, docs := filepath.Join(dir, documentsDir), manifestDocs(m)
	if err := present(docsDir, docs); err != nil {
		return nil, err
	}
	d.knowledge = sync.OnceValues(func() (*knowledge.Base, error) { return knowledge.Load(docsDir, docs) })
	d.bypassCode = sync.OnceValue(func() string {
		kb, err := d.knowledge()
		if err != nil {
			return ""
		}
		return bypassCodeOf(kb.Docs())
	})
	if v.prompt != standardPrompt {
		// the policy inlines documents: read them now
		if _, err := d.knowledge(); err != nil {
			return nil, err
		}
	}
	if d.src, err = loadSource(root, d.agentDisc, d.userDisc); err != nil {
		return nil, err
	}
	if d.policy, err = d.buildPolicy(filepath.Join(dir, promptsDir)); err != nil {
		return nil, err
	}
	d.buildTools(root, o)
	return d, nil
}

// manifestDocs lists the document files the data manifest pins.
func manifestDocs(m *data.Manifest) []string {
	prefix := data.Tau2DomainPath(Name) + "/" + documentsDir + "/"
	var out []string
	for _, f := range m.Files {
		if f.Folder == data.Tau2 {
			if rest, ok := strings.CutPrefix(f.Path, prefix); ok {
				out = append(out, rest)
			}
		}
	}
	return out
}

// loadTasks reads tasks/task_*.json in file-name order, as upstream's
// get_tasks does (not the aggregate tasks.json); the file names are the
// manifest's, so a missing task file is an error naming it. Tasks are
// decoded as they are selected.
func loadTasks(m *data.Manifest, dir string) (*tasks.Set, error) {
	prefix := data.Tau2DomainPath(Name) + "/" + tasksDir + "/"
	var names []string
	for _, f := range m.Files {
		if rest, ok := strings.CutPrefix(f.Path, prefix); ok && f.Folder == data.Tau2 && strings.HasPrefix(rest, "task_") && strings.HasSuffix(rest, ".json") {
			names = append(names, rest)
		}
	}
	slices.Sort(names)
	paths := make([]string, len(names))
	parts := make([][]byte, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(dir, tasksDir, n)
		b, err := os.ReadFile(paths[i])
		if err != nil {
			return nil, fmt.Errorf("load banking tasks: %w", err)
		}
		parts[i] = b
	}
	set, err := tasks.LoadParts(Name, paths, parts)
	if err != nil {
		return nil, fmt.Errorf("load banking tasks: %w", err)
	}
	// Upstream has no splits for this domain (get_tasks ignores the
	// split): every task is in "base", the default, as the leaderboard
	// counts them.
	ids := make([]string, 0, len(names))
	for _, n := range names {
		ids = append(ids, strings.TrimSuffix(n, ".json"))
	}
	set.Splits, set.DefaultSplit = tasks.Splits{"base": ids}, "base"
	return set, nil
}

// buildPolicy assembles the variant's policy (build_policy).
func (d *Domain) buildPolicy(dir string) (string, error) {
	var kb *knowledge.Base
	if d.variant.prompt == fullKBPrompt {
		kb = d.kbase()
	}
	p, err := loadTemplate(dir, d.variant.Template, kb)
	if err != nil {
		return "", err
	}
	if d.variant.KBSearchBM25 != nil && d.variant.KBSearchDense != nil {
		p = strings.ReplaceAll(p, "{{all_tools_dense_instructions}}", d.src.denseInstructions(d.variant.KBSearchDense))
	}
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("policy is empty for retrieval variant %q", d.variant.Name)
	}
	return p, nil
}

// toolkitClass is the composed toolkit class build_tools picks.
func toolkitClass(v *Variant) string {
	switch {
	case v.KBSearchBM25 != nil && v.KBSearchDense != nil && v.Shell != nil:
		return "KnowledgeToolsAllTools"
	case v.Shell != nil:
		return "KnowledgeToolsWithShell"
	case v.KBSearch != nil && v.Grep != nil:
		return "KnowledgeToolsWithKBSearchAndGrep"
	case v.KBSearch != nil:
		return "KnowledgeToolsWithKBSearch"
	case v.Grep != nil:
		return "KnowledgeToolsWithGrep"
	}
	return "KnowledgeToolsPlain"
}

// mixinNames lists the retrieval tools a variant adds, in upstream's
// order (the mixins come before KnowledgeTools in the MRO).
func mixinNames(v *Variant) []string {
	switch {
	case v.KBSearchBM25 != nil && v.KBSearchDense != nil && v.Shell != nil:
		return []string{knowledge.KBSearchBM25Name, knowledge.KBSearchDenseName, knowledge.ShellName}
	case v.Shell != nil:
		return []string{knowledge.ShellName}
	}
	var out []string
	if v.KBSearch != nil {
		out = append(out, knowledge.KBSearchName)
	}
	if v.Grep != nil {
		out = append(out, knowledge.GrepName)
	}
	return out
}

// buildTools sets up the agent's toolkit for the variant (build_tools):
// the retrieval mixins' tools first, then KnowledgeTools'. The retrieval
// tools (their pipelines, embedders and sandboxes) are built on first use:
// by Describe, which every job that shows tools to a model calls before it
// starts (so a dense variant's missing embeddings key is reported then),
// or by a first retrieval call; verify and rescore replay only the banking
// tools and need none of them.
func (d *Domain) buildTools(root string, o Options) {
	d.agentClass = toolkitClass(d.variant)
	d.mixNames = mixinNames(d.variant)
	d.agent = agentTools()
	d.user = userTools()
	d.mix = sync.OnceValues(func() (*tool.Set[*Env], error) { return d.buildMixins(root, o, false) })
	d.mixInfos = sync.OnceValues(func() (*tool.Set[*Env], error) { return d.buildMixins(root, o, true) })
	d.described = sync.OnceValues(func() (toolInfos, error) { return d.describe(root) })
}

// buildMixins builds the variant's retrieval tools; infoOnly builds them
// without their pipelines and sandboxes, for their descriptions only (such
// tools must never be called).
func (d *Domain) buildMixins(root string, o Options, infoOnly bool) (*tool.Set[*Env], error) {
	v := d.variant
	var mix []tool.Tool[*Env]
	if len(d.mixNames) == 0 {
		return tool.NewSet[*Env](d.agentClass), nil
	}
	src, err := knowledge.LoadSource(root)
	if err != nil {
		return nil, err
	}
	deps := o.Knowledge
	deps.Source = src
	add := func(t tool.Tool[*Env], err error) error {
		if err != nil {
			return err
		}
		mix = append(mix, t)
		return nil
	}
	pipe := func(spec *knowledge.PipelineSpec) (*knowledge.Pipeline, error) {
		if infoOnly {
			return nil, nil
		}
		kb, err := d.knowledge()
		if err != nil {
			return nil, err
		}
		p, err := knowledge.NewPipeline(kb, *spec, deps)
		if err == nil {
			d.pipes = append(d.pipes, p)
		}
		return p, err
	}
	for _, name := range d.mixNames {
		var err error
		switch name {
		case knowledge.KBSearchBM25Name, knowledge.KBSearchDenseName, knowledge.KBSearchName:
			spec := map[string]*knowledge.PipelineSpec{knowledge.KBSearchBM25Name: v.KBSearchBM25,
				knowledge.KBSearchDenseName: v.KBSearchDense, knowledge.KBSearchName: v.KBSearch}[name]
			p, perr := pipe(spec)
			if perr != nil {
				return nil, fmt.Errorf("retrieval variant %s: %s: %w", v.Name, name, perr)
			}
			switch name {
			case knowledge.KBSearchBM25Name:
				err = add(knowledge.KBSearchBM25Tool[*Env](src, p))
			case knowledge.KBSearchDenseName:
				err = add(knowledge.KBSearchDenseTool[*Env](src, p))
			default:
				err = add(knowledge.KBSearchTool[*Env](src, p))
			}
		case knowledge.GrepName:
			kb, kerr := d.knowledge()
			if kerr != nil {
				return nil, kerr
			}
			err = add(knowledge.GrepTool[*Env](src, knowledge.NewGrepPipeline(kb, *v.Grep)))
		case knowledge.ShellName:
			if !infoOnly {
				kb, kerr := d.knowledge()
				if kerr != nil {
					return nil, kerr
				}
				sh, serr := knowledge.NewShell(context.Background(), kb, *v.Shell, o.Shell)
				if serr != nil {
					return nil, fmt.Errorf("retrieval variant %s: %w", v.Name, serr)
				}
				d.shell = sh
			}
			err = add(knowledge.ShellTool(src, func(e *Env) *knowledge.Session { return e.session() }))
		}
		if err != nil {
			return nil, err
		}
	}
	return tool.NewSet(d.agentClass, mix...), nil
}

// Prepare builds the variant's retrieval tools now (embedders, pipelines,
// sandboxes) and embeds the documents of its dense pipelines (or reads
// them from the embeddings cache), reporting what is missing or failing
// before a job starts (envs.Preparer).
func (d *Domain) Prepare(ctx context.Context) error {
	if _, err := d.mix(); err != nil {
		return err
	}
	for _, p := range d.pipes {
		if err := p.Index(ctx); err != nil {
			return fmt.Errorf("retrieval variant %s: %w", d.variant.Name, err)
		}
	}
	return nil
}

// describe gives both toolkits upstream's descriptions and schemas (the
// mixins' tools have theirs from the knowledge package).
func (d *Domain) describe(root string) (toolInfos, error) {
	mix, err := d.mixInfos()
	if err != nil {
		return toolInfos{}, err
	}
	tf := data.Tau2Source(root, toolsFile)
	a, err := pyschema.Described(d.agent, tf, agentClass, data.Tau2Source(root, modelFile))
	if err != nil {
		return toolInfos{}, fmt.Errorf("banking agent tools: %w", err)
	}
	u, err := pyschema.Described(d.user, tf, userClass, data.Tau2Source(root, modelFile))
	if err != nil {
		return toolInfos{}, fmt.Errorf("banking user tools: %w", err)
	}
	return toolInfos{agent: append(mix.Infos(), a.Infos()...), user: u.Infos()}, nil
}

// Describe reads the tools' descriptions from upstream's source, once
// (envs.Describer); verify and rescore never need them.
func (d *Domain) Describe() error {
	_, err := d.described()
	return err
}

func (d *Domain) tools() toolInfos {
	t, err := d.described()
	if err != nil {
		panic(fmt.Sprintf("banking tools used without a successful Describe: %v", err))
	}
	return t
}

// Name is "banking_knowledge".
func (d *Domain) Name() string { return Name }

// Policy is the variant's assembled policy; for golden_retrieval, whose
// policy depends on the task, upstream's placeholder (TaskPolicy gives
// each task's).
func (d *Domain) Policy() string {
	if d.variant.prompt == goldenPrompt {
		return d.src.goldenPlaceholder
	}
	return d.policy
}

// TaskPolicy is the policy the agent gets for a task (envs.TaskPolicier).
func (d *Domain) TaskPolicy(t *tasks.Task) string { return d.policyOf(t) }

// PolicyPerTask reports whether the policy depends on the task
// (golden_retrieval).
func (d *Domain) PolicyPerTask() bool { return d.variant.prompt == goldenPrompt }

// AgentTools lists the agent's tools in upstream's order: the variant's
// retrieval tools, then KnowledgeTools' (discoverable tools are not shown).
func (d *Domain) AgentTools() []tool.Info { return d.tools().agent }

// UserTools lists the customer's tools.
func (d *Domain) UserTools() []tool.Info { return d.tools().user }

// Tasks returns the 97 tasks.
func (d *Domain) Tasks() *tasks.Set { return d.tasks }

// Variant is the resolved retrieval variant.
func (d *Domain) Variant() *Variant { return d.variant }

// Kwargs are the variant's overrides as given.
func (d *Domain) Kwargs() json.RawMessage { return d.kwargs }

// Knowledge is the knowledge base.
// It is read on first use (a malformed document is then an error naming
// it); Load has checked that every document file is there.
func (d *Domain) Knowledge() (*knowledge.Base, error) { return d.knowledge() }

// kbase is the knowledge base of a domain whose variant needed it at load
// (full_kb and golden_retrieval, which read it in LoadVariant).
func (d *Domain) kbase() *knowledge.Base {
	kb, err := d.knowledge()
	if err != nil {
		panic(fmt.Sprintf("banking: knowledge base used after a failed load: %v", err))
	}
	return kb
}

// present checks that every document file of the manifest is in dir (a
// missing one is a load error naming it), without reading them.
func present(dir string, names []string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("load knowledge base: %w", err)
	}
	have := make(map[string]bool, len(ents))
	for _, e := range ents {
		have[e.Name()] = true
	}
	for _, n := range names {
		if !have[n] {
			return fmt.Errorf("load knowledge base document %s: %w", filepath.Join(dir, n), fs.ErrNotExist)
		}
	}
	return nil
}

// Close releases the variant's sandboxes (the exported documents and what
// simulations left of their private copies).
func (d *Domain) Close() error {
	if d.shell != nil {
		return d.shell.Close()
	}
	return nil
}

// ToolKind finds a tool's kind without the descriptions (envs.ToolKinder):
// the listed tools and the discoverable ones, which upstream's use_tool
// runs when called by name.
func (d *Domain) ToolKind(requestor message.Requestor, name string) (tool.Kind, bool) {
	set, disc := d.agent, d.agentDisc
	if requestor == message.ByUser {
		set, disc = d.user, d.userDisc
	} else if slices.Contains(d.mixNames, name) {
		return tool.Read, true // every retrieval mixin's tool is READ
	}
	if ti, ok := set.Lookup(name); ok {
		return ti.Kind, true
	}
	if t, ok, _ := disc.lookup(name); ok {
		return t.kind, true
	}
	return "", false
}

// MutatesState is upstream's tool_mutates_state (envs.StateMutator): the
// write tools, give_discoverable_user_tool and
// unlock_discoverable_agent_tool (generic tools declared mutating), and
// the discoverable write tools.
func (d *Domain) MutatesState(requestor message.Requestor, name string) (bool, bool) {
	set, disc := d.agent, d.agentDisc
	if requestor == message.ByUser {
		set, disc = d.user, d.userDisc
	} else if slices.Contains(mutatingGeneric, name) {
		return true, true
	} else if slices.Contains(d.mixNames, name) {
		return false, true
	}
	if ti, ok := set.Lookup(name); ok {
		return ti.Kind == tool.Write, true
	}
	if t, ok, _ := disc.lookup(name); ok {
		return t.mutates, true
	}
	return false, false
}

// NewEnv returns a fresh simulation state without a task (no read-log
// allowlist).
func (d *Domain) NewEnv() envs.Env { return d.newEnv(nil) }

// NewTaskEnv returns a fresh state for a task (envs.TaskEnver): the
// discoverable read tools its gold actions call through
// call_discoverable_agent_tool are logged when called (upstream's
// read_log_allowlist, from _derive_read_log_allowlist).
func (d *Domain) NewTaskEnv(t *tasks.Task) envs.Env { return d.newEnv(t) }

func (d *Domain) newEnv(t *tasks.Task) *Env {
	e := &Env{d: d, db: d.db.newState()}
	if t != nil {
		for _, a := range t.GoldActions() {
			if a.Name != "call_discoverable_agent_tool" {
				continue
			}
			v, err := pyjson.Decode(a.Arguments)
			if err != nil {
				continue
			}
			args, _ := v.(*pyjson.Dict)
			if n, ok := args.Get("agent_tool_name"); ok {
				if s, ok := n.(string); ok && s != "" {
					if e.allowlist == nil {
						e.allowlist = map[string]bool{}
					}
					e.allowlist[s] = true
				}
			}
		}
	}
	return e
}

// Env is one simulation's state.
type Env struct {
	d  *Domain
	db state
	// unlocked are the agent tools unlocked so far (in memory, as
	// upstream's _agent_discoverable_tools_state); userGiven the tools
	// handed to the user (the record is in the database).
	unlocked  []string
	userGiven []string
	allowlist map[string]bool
	sess      *knowledge.Session
}

var _ envs.Env = (*Env)(nil)

// Close removes the simulation's private sandbox copy, if it made one.
func (e *Env) Close() error {
	if e.sess != nil {
		return e.sess.Close()
	}
	return nil
}

func (e *Env) session() *knowledge.Session {
	if e.d.shell == nil {
		return nil
	}
	if e.sess == nil {
		e.sess = e.d.shell.NewSession()
	}
	return e.sess
}

// Call runs a tool for the agent or the user, without syncing (upstream's
// make_tool_call). A discoverable tool called by its own name runs as
// upstream's use_tool runs it: directly, with the call's arguments.
func (e *Env) Call(ctx context.Context, requestor message.Requestor, name string, args json.RawMessage) (any, error) {
	var set *tool.Set[*Env]
	var disc *dset
	switch requestor {
	case message.ByAssistant:
		set, disc = e.d.agent, e.d.agentDisc
	case message.ByUser:
		set, disc = e.d.user, e.d.userDisc
	default:
		return nil, fmt.Errorf("Invalid requestor: %s", requestor)
	}
	if requestor == message.ByAssistant && slices.Contains(e.d.mixNames, name) {
		mix, err := e.d.mix()
		if err != nil {
			return nil, err
		}
		set = mix
	}
	res, err := set.Call(ctx, e, name, args)
	if !errors.Is(err, tool.ErrNotFound) {
		return res, err
	}
	t, ok, _ := disc.lookup(name)
	if !ok {
		return nil, err
	}
	v, derr := decodeArgs(args)
	if derr != nil {
		return nil, derr
	}
	return t.call(ctx, e, disc.class, v)
}

// decodeArgs is a tool call's arguments as json.loads made them (an empty
// call is no arguments).
func decodeArgs(args json.RawMessage) (any, error) {
	if len(strings.TrimSpace(string(args))) == 0 {
		return &pyjson.Dict{}, nil
	}
	return pyjson.Decode(args)
}

// RunFunction calls a toolkit function by name on one side, then syncs
// (upstream's run_env_function_call; every function a task can name is a
// tool or a discoverable tool).
func (e *Env) RunFunction(ctx context.Context, side message.Requestor, name string, args json.RawMessage) (any, error) {
	class := e.d.agentClass
	switch side {
	case message.ByAssistant:
	case message.ByUser:
		class = userClass
	default:
		return nil, fmt.Errorf("Invalid environment type: %s", side)
	}
	res, err := e.Call(ctx, side, name, args)
	if errors.Is(err, tool.ErrNotFound) {
		return nil, fmt.Errorf("'%s' object has no attribute '%s'", class, name)
	}
	return res, err
}

// Sync is a no-op: the agent and the user share one database.
func (e *Env) Sync() {}

// SameDB compares the databases as upstream compares their hashes (the
// agent's and the user's are the same database).
func (e *Env) SameDB(other envs.Env) (agent, user bool) {
	o, ok := other.(*Env)
	if !ok {
		return false, false
	}
	var same bool
	if o.d.db == e.d.db {
		same = e.db.sameAs(&o.db)
	} else {
		same = sortedDump(&e.db) == sortedDump(&o.db)
	}
	return same, same
}

// DumpDB returns the database as upstream's model_dump (both sides hold
// the same one).
func (e *Env) DumpDB() (agent, user any) {
	s := e.snapshot()
	return s, s
}

func (e *Env) snapshot() *state {
	s := &state{notes: e.db.notes}
	for i := range e.db.tables {
		m := e.db.tables[i].Snapshot()
		s.tables[i] = table.New(&m, cloneDict)
	}
	return s
}

// Initialize applies a task's initialization data (envs.Initializer):
// agent_data, then user_data, each a recursive merge into the database
// (upstream's update_db; the two sides share it).
func (e *Env) Initialize(agentData, userData json.RawMessage) error {
	for _, raw := range []json.RawMessage{agentData, userData} {
		if len(strings.TrimSpace(string(raw))) == 0 {
			continue
		}
		if err := e.db.update(raw); err != nil {
			return err
		}
	}
	return nil
}
