// Package runplan turns a run's settings into a planned run and executes
// it: it resolves the settings against the run directory being continued,
// loads the domain and its tasks, resolves the backbones (τ²-bench's
// defaults for the user simulator and the judge), builds the makers of
// every simulation, writes the manifest and runs the pending units through
// the runner. `ledgerbench run` and `ledgerbench experiment` both call it;
// the CLI holds only flags and rendering.
//
// It sits above internal/engine/runner (which schedules units) and
// internal/engine/agents (which builds makers from names): agents imports runner,
// so the planning that needs both cannot live in runner.
package runplan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Options are a run's settings. The setting names of Inherit are those of
// `ledgerbench run`'s flags (domain, agent, backbone, user-backbone,
// judge-backbone, no-judge, split, task-ids, limit, trials, seed,
// max-steps, max-errors, timeout, shard, user-style, traits, trait-mode,
// solo, loop, backbones).
type Options struct {
	DataDir string
	// AllowModifiedData lets data files that differ from their pins through
	// (LoadDomain reports their hashes, which go into the manifest).
	AllowModifiedData bool

	Domain        string
	Agent         string
	Backbone      string
	UserBackbone  string
	JudgeBackbone string
	NoJudge       bool
	BackbonesFile string
	// BackbonesOptional lets BackbonesFile be absent (the default file:
	// offline backbones need none); otherwise it must exist.
	BackbonesOptional bool
	Split             string
	TaskIDs           []string
	Limit             int
	Trials            int
	Concurrency       int
	Seed              int64
	MaxSteps          int
	MaxErrors         int
	Timeout           time.Duration
	Grace             time.Duration
	// Out is the run directory ("": runs/<time>_<domain>_<agent>_<backbone>).
	Out string
	// Resume requires Out to hold a run.
	Resume    bool
	Shard     string
	UserStyle string
	Traits    string
	TraitMode string
	// LedgerPlacement is where LedgerAgent puts its ledger: "system" (or
	// ""; the default) or "tail".
	LedgerPlacement string
	Solo            bool
	Loop            string
	// RetrievalConfig and RetrievalConfigKwargs choose banking_knowledge's
	// retrieval variant and its overrides (JSON).
	RetrievalConfig       string
	RetrievalConfigKwargs string
	// EmbeddingsCache is the folder of the dense retrieval's document
	// vectors ("": EmbeddingsCacheDir in DataDir).
	EmbeddingsCache string
	// EnforceProtocol is upstream's --enforce-communication-protocol
	// (orchestrator.Config.EnforceProtocol).
	EnforceProtocol bool

	// Player, when set, is a person playing one side of every simulation
	// (ledgerbench play): that side is recorded under agents.HumanBackbone
	// (as the agent: agent and backbone; as the user: the user backbone),
	// builds no backbone, and Player's maker plays it.
	Player *Player

	// Inherit reports whether a setting was left to the run being
	// continued: a run directory that exists lends its manifest's value.
	// nil: every setting is the caller's (a manifest that differs is
	// refused, except for more trials).
	Inherit func(setting string) bool

	// LoadDomain loads a domain (in solo mode when solo), checking its data
	// files against their pins; it returns the hashes of modified files it
	// let through. Required.
	LoadDomain func(name string, solo bool, o domains.Options) (envs.Domain, map[string]string, error)
	// CheckReplay refuses, before anything starts, a replay:FILE backbone
	// whose recording does not hold the selected simulations of the split
	// (the domain's default when opts.Split is empty; nil: no check).
	CheckReplay func(ctx context.Context, backbone, domain, split string, sel []tasks.Task, trials int) error
	// Getenv reads the environment (API keys).
	Getenv func(string) string
	// LLM are the model clients' options; LookupEnv defaults to Getenv.
	// LLM.Shared holds the rate limiters: nil, the run gets its own; runs
	// given the same one (an experiment's cells) pace every backbone
	// together.
	LLM llm.Options
	// HarnessVersion goes into the manifest.
	HarnessVersion string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Player is the side a person plays and its maker.
type Player struct {
	// Role is agents.HumanAgent or agents.HumanUser.
	Role string
	// Agent (Role agent) or User (Role user) builds the person's side of
	// one simulation.
	Agent func(runner.Spec) (orchestrator.Agent, error)
	User  func(runner.Spec) (orchestrator.User, error)
}

// human reports whether a backbone name is a person's side (Player).
func human(backbone string) bool { return backbone == agents.HumanBackbone }

// Plan is a run resolved before starting.
type Plan struct {
	// Options are the settings after the manifest of a continued run and
	// τ²-bench's defaults were applied (Out is always set).
	Options Options
	Domain  envs.Domain
	Tasks   []tasks.Task
	// Units are all units of the run (after sharding); Pending those
	// without a scored record.
	Units    []runner.Unit
	Pending  []runner.Unit
	Manifest *results.Manifest
	// Existing is the run being continued (nil for a new run).
	Existing *results.Run
	// Defaults are the upstream defaults applied, as the header says them
	// (also in the manifest).
	Defaults []string
	// Unpriced are the roles whose model backbone has no price (their
	// costs are unknown: records name them in Unknown), each as
	// "role backbone" ("agent kimi-k2.5").
	Unpriced []string

	makers runner.Makers
	judge  evaluator.Judge
	// knowledge is what the retrieval engines resolved from the run's
	// backbones (banking_knowledge).
	knowledge *knowledgeUse
	lock      *results.DirLock
	// unpriced are the record fields (results.Unknown*) of the roles whose
	// backbone has no price.
	unpriced []string
}

// unpriced finds the roles whose backbone is a model without a price (the
// steering endpoint has none either): what they spend is unknown. Offline
// backbones cost nothing, known.
func unpriced(cfg *llm.Config, agent, user, judge string, solo bool) (fields, named []string) {
	if user == "" {
		user = agent
	}
	if solo {
		user = ""
	}
	for _, r := range []struct{ role, name, field string }{
		{"agent", agent, results.UnknownAgentCost}, {"user", user, results.UnknownUserCost}, {"judge", judge, results.UnknownJudgeCost},
	} {
		if r.name == "" || IsOffline(r.name) || human(r.name) {
			continue
		}
		if cfg != nil {
			if b, err := cfg.Backbone(r.name); err == nil && b.Price != nil {
				continue
			}
		}
		fields = append(fields, r.field)
		named = append(named, r.role+" "+r.name)
	}
	return fields, named
}

// Close releases the run directory's lock (taken by New for a run being
// continued, by Execute for a new one). The process ending releases it too.
func (p *Plan) Close() error { return p.lock.Unlock() }

// New resolves opts: the run being continued if Out holds one, the tasks,
// the makers and the manifest. Errors in the settings are usage errors
// (errext.ExitUsage).
func New(ctx context.Context, opts Options) (_ *Plan, err error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Inherit == nil {
		opts.Inherit = func(string) bool { return false }
	}
	if opts.LoadDomain == nil {
		return nil, errors.New("runplan: no domain loader")
	}
	p := &Plan{}
	defer func() {
		if err != nil {
			p.Close() // a plan that is not returned holds no lock
		}
	}()
	if opts.Resume && opts.Out == "" {
		return nil, errext.Usage(errors.New("--resume needs --out DIR (the run directory to continue)"))
	}
	if opts.Out != "" {
		ok, err := results.Exists(opts.Out)
		if err != nil {
			return nil, err
		}
		if opts.Resume && !ok {
			return nil, fmt.Errorf("--resume: %s holds no run (no %s)", opts.Out, results.ManifestFile)
		}
		if ok {
			// Held until Close: no other process appends to the run while
			// this one reads what is pending and runs it.
			if p.lock, err = results.Lock(opts.Out); err != nil {
				return nil, err
			}
			run, err := results.LoadRun(opts.Out)
			if err != nil {
				return nil, err
			}
			p.Existing = run
			fillFromManifest(&opts, run.Manifest)
		}
	}
	if err := setPlayer(&opts); err != nil {
		return nil, err
	}
	if err := validate(&opts); err != nil {
		return nil, err
	}
	shard, err := runner.ParseShard(opts.Shard)
	if err != nil {
		return nil, errext.Usage(err)
	}
	dopts, err := retrievalOptions(&opts)
	if err != nil {
		return nil, err
	}
	cfg, err := loadBackbones(&opts)
	if err != nil {
		return nil, err
	}
	llmOpts := opts.LLM
	if llmOpts.Shared == nil {
		llmOpts.Shared = llm.NewShared()
	}
	if llmOpts.LookupEnv == nil {
		get := opts.Getenv
		llmOpts.LookupEnv = func(k string) (string, bool) {
			if get == nil {
				return "", false
			}
			v := get(k)
			return v, v != ""
		}
	}
	// One pool for every model call of the run: the agent's, the user's,
	// the judge's and the retrieval engines' (embeddings, reranker).
	var pool *llm.Pool
	if cfg != nil {
		pool = llm.NewPool(cfg, llmOpts)
	}
	p.knowledge = &knowledgeUse{pool: pool, cfg: cfg, file: opts.BackbonesFile}
	dopts.Banking.Knowledge = p.knowledge.deps(embeddingsCache(&opts))
	dom, modified, err := opts.LoadDomain(opts.Domain, opts.Solo, dopts)
	if err != nil {
		return nil, err
	}
	p.Domain = dom
	defer func() {
		if err != nil { // what Prepare built (sandboxes) goes with the plan
			envs.Close(dom)
		}
	}()
	p.Tasks, err = dom.Tasks().Select(tasks.Selection{Split: opts.Split, TaskIDs: opts.TaskIDs, Limit: opts.Limit})
	if err != nil {
		return nil, errext.Usage(err)
	}
	if len(p.Tasks) == 0 {
		return nil, errext.Usagef("no tasks selected in %s", opts.Domain)
	}

	if opts.CheckReplay != nil {
		split := opts.Split
		if split == "" {
			split = dom.Tasks().DefaultSplit
		}
		if err := opts.CheckReplay(ctx, opts.Backbone, opts.Domain, split, p.Tasks, opts.Trials); err != nil {
			return nil, err
		}
	}
	if p.Defaults, err = applyUpstreamDefaults(&opts, cfg, p.Existing, CountNL(p.Tasks) > 0); err != nil { // defaults.go
		return nil, err
	}
	traits, err := usersim.ParseTraits(opts.Traits)
	if err != nil {
		return nil, errext.Usagef("--traits: %w", err)
	}
	bo := agents.Options{Domain: dom, DataRoot: opts.DataDir, Agent: opts.Agent, Backbone: opts.Backbone,
		UserBackbone: opts.UserBackbone, JudgeBackbone: opts.JudgeBackbone, Getenv: opts.Getenv, LLM: llmOpts,
		UserStyle: opts.UserStyle, Traits: traits, TraitMode: usersim.TraitMode(opts.TraitMode), Solo: opts.Solo, Loop: opts.Loop,
		LedgerPlacement: ledgeragent.Placement(opts.LedgerPlacement)}
	if opts.NoJudge {
		bo.JudgeBackbone = agents.NoJudge
	}
	if opts.Player != nil {
		bo.Human = opts.Player.Role
	}
	if cfg != nil {
		bo.Pool = pool
		bo.BackbonesFile = opts.BackbonesFile
	}
	p.makers, p.judge, err = agents.Build(ctx, bo)
	if err != nil {
		return nil, err
	}
	if pl := opts.Player; pl != nil {
		switch pl.Role {
		case agents.HumanAgent:
			p.makers.Agent = pl.Agent
		case agents.HumanUser:
			p.makers.User = pl.User
		}
	}
	if opts.EnforceProtocol && p.makers.LoopName != "" && p.makers.LoopName != "tau2" {
		return nil, errext.Usagef("--enforce-communication-protocol is τ²-bench's orchestrator rule; the %s loop has none (pass --loop tau2)", p.makers.LoopName)
	}
	if p.judge == nil && !opts.NoJudge {
		if n := CountNL(p.Tasks); n > 0 {
			return nil, errext.Usagef("%d of the %d selected tasks have NL assertions in their reward and need a judge: pass --judge-backbone NAME (or set judge: in %s), or --no-judge to run them unjudged (reports then say so)",
				n, len(p.Tasks), opts.BackbonesFile)
		}
	}
	judgeName := ""
	if p.judge != nil {
		judgeName = opts.JudgeBackbone
		if judgeName == "" && cfg != nil {
			judgeName = cfg.Judge
		}
	}

	p.unpriced, p.Unpriced = unpriced(cfg, opts.Backbone, opts.UserBackbone, judgeName, opts.Solo)

	seeds := runner.TrialSeeds(opts.Seed, opts.Trials)
	p.Units = shard.Filter(runner.Units(p.Tasks, seeds))
	p.Manifest = buildManifest(&opts, p, modified, cfg, judgeName, seeds, shard) // manifest.go
	if p.Existing != nil {
		if err := checkResume(p.Existing.Manifest, p.Manifest); err != nil {
			return nil, err
		}
	}
	if opts.Out == "" {
		opts.Out = defaultOut(&opts)
		if ok, err := results.Exists(opts.Out); err != nil {
			return nil, err
		} else if ok {
			return nil, fmt.Errorf("%s already holds a run; pass --out to choose another directory or --resume to continue it", opts.Out)
		}
	}
	var done []results.Record
	if p.Existing != nil {
		done = p.Existing.Records
	}
	p.Pending = runner.Pending(p.Units, done)
	p.Options = opts
	return p, nil
}

// setPlayer records a person's side under agents.HumanBackbone: as the
// agent, the agent and its backbone; as the user, the user backbone.
func setPlayer(opts *Options) error {
	pl := opts.Player
	if pl == nil {
		return nil
	}
	switch pl.Role {
	case agents.HumanAgent:
		if pl.Agent == nil {
			return errors.New("runplan: a person playing the agent needs its maker")
		}
		opts.Agent, opts.Backbone = agents.HumanBackbone, agents.HumanBackbone
	case agents.HumanUser:
		if pl.User == nil {
			return errors.New("runplan: a person playing the user needs its maker")
		}
		if opts.Solo {
			return errext.Usagef("solo mode has no user to play (play the agent)")
		}
		opts.UserBackbone = agents.HumanBackbone
	default:
		return errext.Usagef("unknown side %q to play (want %s or %s)", pl.Role, agents.HumanAgent, agents.HumanUser)
	}
	return nil
}

// fillFromManifest takes every run-defining setting left to the run being
// continued from its manifest.
func fillFromManifest(opts *Options, m *results.Manifest) {
	set := func(name string, apply func()) {
		if opts.Inherit(name) {
			apply()
		}
	}
	set("domain", func() { opts.Domain = m.Domain })
	set("agent", func() { opts.Agent = m.Agent })
	set("backbone", func() { opts.Backbone = m.Backbone })
	set("user-backbone", func() { opts.UserBackbone = m.UserBackbone })
	set("judge-backbone", func() { opts.JudgeBackbone = m.JudgeBackbone })
	set("no-judge", func() { opts.NoJudge = m.NoJudge })
	set("split", func() { opts.Split = m.Split })
	if opts.Inherit("task-ids") && opts.Inherit("limit") {
		opts.TaskIDs = slices.Clone(m.TaskIDs)
	}
	set("trials", func() { opts.Trials = m.Trials })
	set("seed", func() { opts.Seed = m.Seed })
	set("max-steps", func() { opts.MaxSteps = m.MaxSteps })
	set("max-errors", func() { opts.MaxErrors = m.MaxErrors })
	set("timeout", func() {
		opts.Timeout = 0
		if d, err := time.ParseDuration(m.Timeout); err == nil {
			opts.Timeout = d
		}
	})
	set("shard", func() { opts.Shard = m.Shard })
	set("user-style", func() { opts.UserStyle = m.UserStyle })
	set("traits", func() { opts.Traits = m.Traits })
	set("trait-mode", func() { opts.TraitMode = m.TraitMode })
	set("ledger-placement", func() { opts.LedgerPlacement = m.LedgerPlacement })
	set("solo", func() { opts.Solo = m.Solo })
	set("loop", func() { opts.Loop = m.Loop })
	set("retrieval-config", func() { opts.RetrievalConfig = m.RetrievalConfig })
	set("enforce-communication-protocol", func() { opts.EnforceProtocol = m.EnforceProtocol })
	set("retrieval-config-kwargs", func() { opts.RetrievalConfigKwargs = string(m.RetrievalConfigKwargs) })
	set("backbones", func() {
		if m.BackbonesFile != "" {
			opts.BackbonesFile = m.BackbonesFile
		}
	})
}

// validate checks how the settings go together; each flag's own value
// (counts, durations, names) is checked where the flags are read (the CLI's
// contract; an experiment file's validation).
func validate(opts *Options) error {
	var errs []error
	if opts.Domain == "" {
		errs = append(errs, fmt.Errorf("--domain is required (one of %s)", strings.Join(domains.Names(), ", ")))
	}
	if opts.Backbone == "" {
		errs = append(errs, errors.New("--backbone is required (a name in the backbones file, or gold, sim, replay:FILE)"))
	}
	if opts.NoJudge && opts.JudgeBackbone != "" && opts.JudgeBackbone != agents.NoJudge {
		errs = append(errs, errors.New("--no-judge and --judge-backbone exclude each other"))
	}
	if opts.Solo {
		var given []string
		for _, f := range []struct {
			flag string
			set  bool
		}{{"--user-backbone", opts.UserBackbone != "" && opts.UserBackbone != results.DummyUserImplementation},
			{"--user-style", opts.UserStyle != ""}, {"--traits", opts.Traits != ""}, {"--trait-mode", opts.TraitMode != ""}} {
			if f.set {
				given = append(given, f.flag)
			}
		}
		if len(given) > 0 {
			errs = append(errs, fmt.Errorf("--solo runs without a user: drop %s", strings.Join(given, ", ")))
		}
	} else if opts.TraitMode != "" && opts.Traits == "" {
		errs = append(errs, fmt.Errorf("--trait-mode %s needs --traits (the traits it applies)", opts.TraitMode))
	}
	if !opts.Solo && opts.UserBackbone == results.DummyUserImplementation {
		errs = append(errs, fmt.Errorf("user %s is the solo mode's: pass --solo (a solo run resumes in solo mode)", results.DummyUserImplementation))
	}
	if err := errors.Join(errs...); err != nil {
		return errext.Usage(err)
	}
	return nil
}

// loadBackbones reads the backbones file. An optional file may be absent
// (offline backbones need none).
func loadBackbones(opts *Options) (*llm.Config, error) {
	cfg, err := llm.Load(opts.BackbonesFile)
	if err == nil {
		return cfg, nil
	}
	if errors.Is(err, fs.ErrNotExist) && opts.BackbonesOptional {
		return nil, nil
	}
	return nil, err
}

// CountNL counts the tasks whose reward needs the NL judge (NL_ASSERTION
// in the reward basis and assertions to judge).
func CountNL(ts []tasks.Task) int {
	n := 0
	for i := range ts {
		if c := ts[i].EvaluationCriteria; c != nil && c.HasBasis(tasks.RewardNLAssertion) && len(c.NLAssertions) > 0 {
			n++
		}
	}
	return n
}

func defaultOut(opts *Options) string {
	bb := opts.Backbone
	if i := strings.LastIndex(bb, "/"); i >= 0 && !strings.HasPrefix(bb, "replay:") {
		bb = bb[i+1:]
	}
	if strings.HasPrefix(bb, "replay:") {
		bb = "replay"
	}
	clean := strings.NewReplacer(":", "-", ",", "-", "=", "", "/", "-", " ", "-").Replace(bb)
	return filepath.Join("runs", fmt.Sprintf("%s_%s_%s_%s", opts.Now().Format("20060102_150405"), opts.Domain, opts.Agent, clean))
}

// retrievalOptions checks --retrieval-config and --retrieval-config-kwargs
// and returns the domain's load options (a bad value is a usage error).
func retrievalOptions(opts *Options) (domains.Options, error) {
	d, err := domains.RetrievalOptions(opts.Domain, opts.RetrievalConfig, opts.RetrievalConfigKwargs)
	if err != nil {
		return d, errext.Usage(err)
	}
	return d, nil
}
