package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/agents"
	"github.com/ledgerbench/ledgerbench/internal/data"
	"github.com/ledgerbench/ledgerbench/internal/domains"
	"github.com/ledgerbench/ledgerbench/internal/llm"
	"github.com/ledgerbench/ledgerbench/internal/offline"
	"github.com/ledgerbench/ledgerbench/internal/runner"
	"github.com/ledgerbench/ledgerbench/orchestrator"
	"github.com/ledgerbench/ledgerbench/results"
	"github.com/ledgerbench/ledgerbench/tasks"
	"github.com/ledgerbench/ledgerbench/usersim"
)

type runOptions struct {
	Streams *Streams
	DataDir string
	// AllowModifiedData lets data files that differ from their pins through
	// (their hashes go into the manifest).
	AllowModifiedData bool

	Domain        string
	Agent         string
	Backbone      string
	UserBackbone  string
	JudgeBackbone string
	NoJudge       bool
	BackbonesFile string
	Split         string
	TaskIDs       []string
	Limit         int
	Trials        int
	Concurrency   int
	Seed          int64
	MaxSteps      int
	MaxErrors     int
	Timeout       time.Duration
	Grace         time.Duration
	Out           string
	Resume        bool
	Shard         string
	Quiet         bool
	MinPass       float64
	MinPassSet    bool
	UserStyle     string
	Traits        string
	TraitMode     string
	// RecordRequests appends every model request body to
	// DIR/requests.jsonl.
	RecordRequests bool
	Solo           bool
	Loop           string

	// changed reports whether a flag was given on the command line.
	changed func(name string) bool
	// LLM are the model clients' options (tests shorten backoffs).
	LLM llm.Options
	// now is the clock (tests).
	now func() time.Time
	// progressEvery is the plain-progress interval (default 10s).
	progressEvery time.Duration
}

const defaultBackbonesFile = "backbones.yaml"

func newCmdRun(s *Streams, g *globalOptions, runF func(context.Context, *runOptions) error) *cobra.Command {
	opts := &runOptions{Streams: s}
	cmd := &cobra.Command{
		Use:   "run --domain D --backbone B [flags]",
		Short: "Run an agent on a domain's tasks and record every simulation",
		Long: `Run every (task, trial) of the selected tasks as a simulation of the agent, the
simulated user and the environment, score it with τ²-bench's evaluator, and append
its record to DIR/simulations.jsonl as soon as it ends. DIR/manifest.json records
what the run decided (data hash, tasks, agent, backbone settings without keys,
prompt hashes, seeds, limits).

Rerunning into an existing run directory (or --resume --out DIR) continues it:
only units without a record, or whose record is an infrastructure error, run.
Settings not given on the command line are taken from the manifest; settings that
differ from it are refused (a run can only be extended with more --trials).

Backbones are names from --backbones (default ./backbones.yaml), or the offline
kinds gold, sim[:stale=R,violation=R,miss=R,seed=N] and replay:FILE. Tasks scored
on NL assertions need a judge (--judge-backbone, or judge: in backbones.yaml);
--no-judge runs them unjudged and says so in the report.

Ctrl-C stops starting simulations and waits for the running ones (or --grace),
then exits with status 130; a second Ctrl-C exits at once. --min-pass P exits
with status 3 when pass^1 is below P.`,
		Example: `  ledgerbench run --domain retail --backbone gpt-4.1 --trials 4
  ledgerbench run --domain retail --backbone sim --no-judge --out runs/sim
  ledgerbench run --resume --out runs/sim
  ledgerbench run --domain airline --backbone gpt-4.1 --shard 2/4 --out runs/a2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			opts.DataDir = dir
			opts.changed = cmd.Flags().Changed
			opts.MinPassSet = cmd.Flags().Changed("min-pass")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Domain, "domain", "", "domain: "+strings.Join(domains.Names(), ", "))
	f.StringVar(&opts.Agent, "agent", "baseline", "agent implementation: "+strings.Join(agents.AgentNames(), ", "))
	f.StringVar(&opts.Backbone, "backbone", "", "agent backbone (a name in the backbones file, or gold, sim, replay:FILE)")
	f.StringVar(&opts.UserBackbone, "user-backbone", "", "user simulator backbone (default: τ²-bench's, gpt-4.1-2025-04-14 at temperature 0, from the backbones file; the scripted user for gold, sim and replay)")
	f.StringVar(&opts.JudgeBackbone, "judge-backbone", "", "NL-assertion judge backbone (default: judge: of the backbones file)")
	f.BoolVar(&opts.NoJudge, "no-judge", false, "run tasks scored on NL assertions without a judge (reports say so)")
	f.StringVar(&opts.BackbonesFile, "backbones", defaultBackbonesFile, "backbones file")
	f.StringVar(&opts.Split, "split", "", "task split (default: the domain's)")
	f.StringSliceVar(&opts.TaskIDs, "task-ids", nil, "only these task ids")
	f.IntVar(&opts.Limit, "limit", 0, "only the first N tasks")
	f.IntVar(&opts.Trials, "trials", 4, "trials per task")
	f.IntVar(&opts.Concurrency, "concurrency", 10, "simulations running at once")
	f.Int64Var(&opts.Seed, "seed", 300, "master seed (per-trial seeds follow τ²-bench)")
	f.IntVar(&opts.MaxSteps, "max-steps", 200, "steps before a simulation ends with max_steps")
	f.IntVar(&opts.MaxErrors, "max-errors", 10, "tool errors before a simulation ends with too_many_errors")
	f.BoolVar(&opts.AllowModifiedData, "allow-modified-data", false, allowModifiedUsage)
	f.DurationVar(&opts.Timeout, "timeout", 0, "wall-clock limit per simulation, ending it with timeout (0: none)")
	f.DurationVar(&opts.Grace, "grace", 0, "after Ctrl-C, cancel running simulations after this long (0: let them finish)")
	f.StringVar(&opts.Out, "out", "", "run directory (default runs/<time>_<domain>_<agent>_<backbone>)")
	f.BoolVar(&opts.Resume, "resume", false, "continue the run in --out (missing and infrastructure-error units only)")
	f.StringVar(&opts.Shard, "shard", "", "run only shard i of n (i/n) of the units, chosen by hash of (task, trial)")
	f.StringVar(&opts.UserStyle, "user-style", "", "user simulator: tau2 or tau-trait (default: tau-trait for telehealth, tau2 elsewhere)")
	f.StringVar(&opts.Traits, "traits", "", `τ-Trait user traits, "impatience=high,confusion=low" or a JSON object (impatience, confusion, skeptical, incoherence: low|medium|high)`)
	f.StringVar(&opts.Loop, "loop", "", "conversation loop: tau2 (τ²-bench's orchestrator) or tau-trait (τ-Trait's ToolCallingAgent loop; default for telehealth)")
	f.StringVar(&opts.TraitMode, "trait-mode", "", "how traits are applied: steer (τ-Trait's endpoint; --user-backbone steer), prompt-approximation (default for chat models; labelled), or ignore (as upstream does for chat models)")
	f.BoolVar(&opts.RecordRequests, "record-requests", false, "append the body of every model request (agent, user, judge) to DIR/"+requestsFile+" (no keys or headers)")
	f.BoolVar(&opts.Solo, "solo", false, "τ²-bench's solo mode (telecom; upstream --agent llm_agent_solo --user dummy_user): no user, the agent holds the phone tools and works from the ticket")
	f.BoolVar(&opts.Quiet, "quiet", false, "no progress output")
	f.Float64Var(&opts.MinPass, "min-pass", 0, "exit with status 3 if pass^1 is below this")
	return cmd
}

// plan is what a run resolved before starting.
type plan struct {
	dom      envs.Domain
	tasks    []tasks.Task
	units    []runner.Unit // all units of the run (after sharding)
	manifest *results.Manifest
	makers   runner.Makers
	judge    evaluator.Judge
	existing *results.Run // nil for a new run
	// modifiedData is what --allow-modified-data let through.
	modifiedData map[string]string
	requests     *requestLog // nil unless --record-requests
	defaults     []string    // upstream defaults applied (defaults.go)
}

func runRun(ctx context.Context, opts *runOptions) error {
	s := opts.Streams
	if opts.now == nil {
		opts.now = time.Now
	}
	if opts.changed == nil {
		opts.changed = func(string) bool { return false }
	}
	errOut := &lockedWriter{w: s.ErrOut}
	if opts.LLM.Logf == nil {
		opts.LLM.Logf = stderrLogf(errOut, s.ErrTTY) // term.go
	}
	p, err := planRun(ctx, opts)
	if err != nil {
		return err
	}
	m := p.manifest
	done := []results.Record(nil)
	if p.existing != nil {
		done = p.existing.Records
	}
	pending := runner.Pending(p.units, done)

	if !opts.Quiet {
		printHeader(errOut, opts, p, len(pending))
	}
	if p.existing == nil {
		if err := results.Create(opts.Out, m); err != nil {
			return err
		}
	} else if len(p.existing.Manifest.Diff(m)) > 0 { // a run extended with more trials
		m.CreatedAt = p.existing.Manifest.CreatedAt
		if err := results.WriteManifest(opts.Out, m); err != nil {
			return err
		}
	}
	w, err := results.OpenWriter(filepath.Join(opts.Out, results.SimulationsFile))
	if err != nil {
		return err
	}
	if p.requests != nil {
		if err := p.requests.open(filepath.Join(opts.Out, requestsFile)); err != nil {
			w.Close()
			return err
		}
		defer func() {
			if err := p.requests.close(); err != nil {
				fmt.Fprintln(errOut, "ledgerbench:", err)
			}
		}()
	}
	prog := runner.NewProgress(len(pending))
	stopUI := startProgress(ctx, opts, errOut, prog)
	cfg := runner.Config{
		Domain: p.dom, Makers: p.makers, Concurrency: opts.Concurrency, Drain: opts.Grace, Progress: prog,
		Sim: orchestrator.Config{MaxSteps: m.MaxSteps, MaxErrors: m.MaxErrors, Timeout: opts.Timeout, Judge: p.judge,
			Greeting: p.makers.Greeting},
		Labels: runner.Labels{Agent: m.Agent, Backbone: m.Backbone, UserBackbone: m.UserBackbone},
	}
	_, runErr := runner.Run(ctx, cfg, pending, simulatedSink{w: w, sim: agents.Simulated(m.Backbone)})
	stopUI()
	if err := w.Close(); err != nil && runErr == nil {
		runErr = err
	}

	run, err := results.LoadRun(opts.Out)
	if err != nil {
		return errors.Join(runErr, err)
	}
	sum := runner.Summarize(inUnits(run.Records, p.units), runner.Expected(p.units))
	sum.AddSuperseded(inUnits(run.SupersededRecords, p.units))
	writeSummary(s.Out, m, sum, run.Records, opts.Out)
	if runErr != nil {
		if errors.Is(runErr, runner.ErrStopped) {
			return fmt.Errorf("interrupted: %w (continue with: ledgerbench run --resume --out %s)", runErr, opts.Out)
		}
		return runErr
	}
	if sum.Scored == 0 && len(p.units) > 0 {
		return fmt.Errorf("no simulation was scored (%d infrastructure errors): see the errors in %s, then continue with: ledgerbench run --resume --out %s",
			len(sum.Infra), filepath.Join(opts.Out, results.SimulationsFile), opts.Out)
	}
	if opts.MinPassSet && sum.Pass1() < opts.MinPass {
		return fmt.Errorf("pass^1 %.4f is below --min-pass %.4f: %w", sum.Pass1(), opts.MinPass, ErrFailed)
	}
	return nil
}

// simulatedSink marks records of the sim backbone before writing them.
type simulatedSink struct {
	w   *results.Writer
	sim bool
}

func (s simulatedSink) Write(r results.Record) error {
	if s.sim {
		r.Simulated = true
	}
	return s.w.Write(r)
}

// inUnits keeps the records of the run's units (a resumed run may hold
// records of tasks no longer selected only if the manifest changed, which is
// refused; this guards the summary anyway).
func inUnits(recs []results.Record, units []runner.Unit) []results.Record {
	in := make(map[results.UnitKey]bool, len(units))
	for _, u := range units {
		in[u.Key()] = true
	}
	out := recs[:0:0]
	for _, r := range recs {
		if in[r.Key()] {
			out = append(out, r)
		}
	}
	return out
}

// planRun resolves options, the existing run if any, the tasks, the makers
// and the manifest.
func planRun(ctx context.Context, opts *runOptions) (*plan, error) {
	p := &plan{}
	if opts.Resume && opts.Out == "" {
		return nil, usageError{errors.New("--resume needs --out DIR (the run directory to continue)")}
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
			run, err := results.LoadRun(opts.Out)
			if err != nil {
				return nil, err
			}
			p.existing = run
			fillFromManifest(opts, run.Manifest)
		}
	}
	if err := validateRun(opts); err != nil {
		return nil, err
	}
	shard, err := runner.ParseShard(opts.Shard)
	if err != nil {
		return nil, usageError{err}
	}
	load := domains.Load
	if opts.Solo {
		load = domains.LoadSolo
	}
	dom, modified, err := loadDomain(load, opts.Domain, opts.DataDir, opts.AllowModifiedData, opts.Streams.ErrOut)
	if err != nil {
		return nil, err
	}
	p.dom = dom
	p.modifiedData = modified
	p.tasks, err = dom.Tasks().Select(tasks.Selection{Split: opts.Split, TaskIDs: opts.TaskIDs, Limit: opts.Limit})
	if err != nil {
		return nil, usageError{err}
	}
	if len(p.tasks) == 0 {
		return nil, usageError{fmt.Errorf("no tasks selected in %s", opts.Domain)}
	}

	cfg, err := loadBackbones(opts)
	if err != nil {
		return nil, err
	}
	if err := checkReplay(opts.Backbone, opts.Domain, p.tasks, opts.Trials); err != nil { // replaycheck.go
		return nil, err
	}
	if p.defaults, err = applyUpstreamDefaults(opts, cfg, p.existing); err != nil { // defaults.go
		return nil, err
	}
	llmOpts := opts.LLM
	if llmOpts.LookupEnv == nil {
		get := opts.Streams.Getenv
		llmOpts.LookupEnv = func(k string) (string, bool) {
			if get == nil {
				return "", false
			}
			v := get(k)
			return v, v != ""
		}
	}
	if opts.RecordRequests {
		p.requests = &requestLog{}
		llmOpts.OnRequest = p.requests.write
	}
	traits, err := usersim.ParseTraits(opts.Traits)
	if err != nil {
		return nil, usageError{fmt.Errorf("--traits: %w", err)}
	}
	bo := agents.Options{Domain: dom, DataRoot: opts.DataDir, Agent: opts.Agent, Backbone: opts.Backbone,
		UserBackbone: opts.UserBackbone, JudgeBackbone: opts.JudgeBackbone, Getenv: opts.Streams.Getenv, LLM: llmOpts,
		UserStyle: opts.UserStyle, Traits: traits, TraitMode: usersim.TraitMode(opts.TraitMode), Solo: opts.Solo, Loop: opts.Loop}
	if opts.NoJudge {
		bo.JudgeBackbone = agents.NoJudge
	}
	if cfg != nil {
		bo.Pool = llm.NewPool(cfg, llmOpts)
		bo.BackbonesFile = opts.BackbonesFile
	}
	p.makers, p.judge, err = agents.Build(ctx, bo)
	if err != nil {
		return nil, err
	}
	if p.judge == nil && !opts.NoJudge {
		if n := countNL(p.tasks); n > 0 {
			return nil, usageError{fmt.Errorf("%d of the %d selected tasks have NL assertions in their reward and need a judge: pass --judge-backbone NAME (or set judge: in %s), or --no-judge to run them unjudged (reports then say so)",
				n, len(p.tasks), opts.BackbonesFile)}
		}
	}
	judgeName := ""
	if p.judge != nil {
		judgeName = opts.JudgeBackbone
		if judgeName == "" && cfg != nil {
			judgeName = cfg.Judge
		}
	}

	seeds := runner.TrialSeeds(opts.Seed, opts.Trials)
	p.units = shard.Filter(runner.Units(p.tasks, seeds))
	p.manifest = buildManifest(opts, p, cfg, judgeName, seeds, shard)
	if p.existing != nil {
		if err := checkResume(p.existing.Manifest, p.manifest); err != nil {
			return nil, err
		}
	}
	if opts.Out == "" {
		opts.Out = defaultOut(opts)
		if ok, err := results.Exists(opts.Out); err != nil {
			return nil, err
		} else if ok {
			return nil, fmt.Errorf("%s already holds a run; pass --out to choose another directory or --resume to continue it", opts.Out)
		}
	}
	return p, nil
}

// fillFromManifest takes every run-defining setting not given on the
// command line from the run being continued.
func fillFromManifest(opts *runOptions, m *results.Manifest) {
	set := func(name string, apply func()) {
		if !opts.changed(name) {
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
	if !opts.changed("task-ids") && !opts.changed("limit") {
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
	set("solo", func() { opts.Solo = m.Solo })
	set("loop", func() { opts.Loop = m.Loop })
	set("backbones", func() {
		if m.BackbonesFile != "" {
			opts.BackbonesFile = m.BackbonesFile
		}
	})
}

func validateRun(opts *runOptions) error {
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
	if opts.Trials < 1 {
		errs = append(errs, fmt.Errorf("--trials %d: need at least 1", opts.Trials))
	}
	if opts.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("--concurrency %d: need at least 1", opts.Concurrency))
	}
	if opts.MaxSteps < 1 || opts.MaxErrors < 1 {
		errs = append(errs, errors.New("--max-steps and --max-errors must be positive"))
	}
	if opts.Limit < 0 || opts.Timeout < 0 || opts.Grace < 0 {
		errs = append(errs, errors.New("--limit, --timeout and --grace must not be negative"))
	}
	if opts.Solo && ((opts.UserBackbone != "" && opts.UserBackbone != results.DummyUserImplementation) || opts.UserStyle != "" || opts.Traits != "" || opts.TraitMode != "") {
		errs = append(errs, errors.New("--solo runs without a user: drop --user-backbone, --user-style, --traits and --trait-mode"))
	}
	if !opts.Solo && opts.UserBackbone == results.DummyUserImplementation {
		errs = append(errs, fmt.Errorf("user %s is the solo mode's: pass --solo (a solo run resumes in solo mode)", results.DummyUserImplementation))
	}
	if opts.MinPassSet && (opts.MinPass < 0 || opts.MinPass > 1) {
		errs = append(errs, fmt.Errorf("--min-pass %v: want a value in [0, 1]", opts.MinPass))
	}
	if err := errors.Join(errs...); err != nil {
		return usageError{err}
	}
	return nil
}

// loadBackbones reads the backbones file. The default file may be absent
// (offline backbones need none); a file named with --backbones must exist.
func loadBackbones(opts *runOptions) (*llm.Config, error) {
	cfg, err := llm.Load(opts.BackbonesFile)
	if err == nil {
		return cfg, nil
	}
	if errors.Is(err, fs.ErrNotExist) && !opts.changed("backbones") {
		return nil, nil
	}
	return nil, err
}

func countNL(ts []tasks.Task) int {
	n := 0
	for i := range ts {
		if c := ts[i].EvaluationCriteria; c != nil && c.HasBasis(tasks.RewardNLAssertion) && len(c.NLAssertions) > 0 {
			n++
		}
	}
	return n
}

func buildManifest(opts *runOptions, p *plan, cfg *llm.Config, judge string, seeds []int64, shard runner.Shard) *results.Manifest {
	user := opts.UserBackbone
	switch {
	case opts.Solo:
		// The user column of reports: solo groups stay apart from the
		// normal mode's, and baseline and ledger solo runs pair up.
		user = results.DummyUserImplementation
	case user == "":
		user = opts.Backbone
	}
	m := &results.Manifest{
		HarnessVersion: Version,
		CreatedAt:      opts.now().UTC().Format(time.RFC3339),
		DataHash:       results.HashText(data.Text()),
		ModifiedData:   p.modifiedData,
		Domain:         opts.Domain,
		Split:          opts.Split,
		Agent:          opts.Agent,
		Backbone:       opts.Backbone,
		UserBackbone:   user,
		JudgeBackbone:  judge,
		NoJudge:        opts.NoJudge,
		PromptHashes:   p.makers.PromptHashes,
		Prompts:        p.makers.Prompts,
		Seed:           opts.Seed,
		TrialSeeds:     seeds,
		Trials:         opts.Trials,
		MaxSteps:       opts.MaxSteps,
		MaxErrors:      opts.MaxErrors,
		Shard:          shard.String(),
		Backbones:      map[string]json.RawMessage{},
		UserStyle:      opts.UserStyle,
		Traits:         opts.Traits,
		TraitMode:      opts.TraitMode,
		Solo:           opts.Solo,
		Loop:           p.makers.LoopName,
		Defaults:       p.defaults,
	}
	if cfg != nil {
		if abs, err := filepath.Abs(opts.BackbonesFile); err == nil {
			m.BackbonesFile = abs
		}
	}
	if m.Split == "" {
		m.Split = p.dom.Tasks().DefaultSplit
	}
	if opts.Timeout > 0 {
		m.Timeout = opts.Timeout.String()
	}
	for _, t := range p.tasks {
		m.TaskIDs = append(m.TaskIDs, t.ID)
	}
	for _, name := range []string{m.Backbone, m.UserBackbone, m.JudgeBackbone} {
		if name == "" {
			continue
		}
		if b, ok := backboneSettings(name, cfg); ok {
			m.Backbones[name] = b
		}
	}
	return m
}

// backboneSettings describes a backbone for the manifest: its endpoint,
// model and sampling settings, never a key (only the name of the variable
// that holds it).
func backboneSettings(name string, cfg *llm.Config) (json.RawMessage, bool) {
	if ob, ok, err := offline.Parse(name); ok && err == nil {
		b, _ := json.Marshal(map[string]any{"offline": ob.String()})
		return b, true
	}
	if cfg == nil {
		return nil, false
	}
	bb, err := cfg.Backbone(name)
	if err != nil {
		return nil, false
	}
	type price struct {
		Input       float64 `json:"input"`
		CachedInput float64 `json:"cached_input,omitempty"`
		Output      float64 `json:"output"`
	}
	v := struct {
		BaseURL             string         `json:"base_url"`
		Model               string         `json:"model"`
		APIKeyEnv           string         `json:"api_key_env,omitempty"`
		Temperature         *float64       `json:"temperature,omitempty"`
		MaxTokens           int            `json:"max_tokens,omitempty"`
		MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
		ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
		SendReasoning       bool           `json:"send_reasoning,omitempty"`
		ExtraBody           map[string]any `json:"extra_body,omitempty"`
		Price               price          `json:"price"`
	}{bb.BaseURL, bb.Model, bb.APIKeyEnv, bb.Temperature, bb.MaxTokens, bb.MaxCompletionTokens,
		bb.ReasoningEffort, bb.SendReasoning, bb.ExtraBody, price(bb.Price)}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return b, true
}

// checkResume refuses to continue a run whose manifest differs from the
// requested one, except for more trials with the same seeds.
func checkResume(old, cur *results.Manifest) error {
	diff := old.Diff(cur, "trials", "trial_seeds")
	if cur.Trials < old.Trials {
		diff = append(diff, fmt.Sprintf("trials: %d → %d (a run cannot shrink)", old.Trials, cur.Trials))
	} else if !slices.Equal(old.TrialSeeds, cur.TrialSeeds[:min(len(cur.TrialSeeds), len(old.TrialSeeds))]) {
		diff = append(diff, fmt.Sprintf("trial_seeds: %v → %v", old.TrialSeeds, cur.TrialSeeds))
	}
	if len(diff) == 0 {
		return nil
	}
	return fmt.Errorf("cannot continue the run: its manifest differs from this run's settings:\n  %s\n(start a new run with another --out, or give the same settings)",
		strings.Join(diff, "\n  "))
}

func defaultOut(opts *runOptions) string {
	bb := opts.Backbone
	if i := strings.LastIndex(bb, "/"); i >= 0 && !strings.HasPrefix(bb, "replay:") {
		bb = bb[i+1:]
	}
	if strings.HasPrefix(bb, "replay:") {
		bb = "replay"
	}
	clean := strings.NewReplacer(":", "-", ",", "-", "=", "", "/", "-", " ", "-").Replace(bb)
	return filepath.Join("runs", fmt.Sprintf("%s_%s_%s_%s", opts.now().Format("20060102_150405"), opts.Domain, opts.Agent, clean))
}

func printHeader(w io.Writer, opts *runOptions, p *plan, pending int) {
	m := p.manifest
	judge := m.JudgeBackbone
	switch {
	case m.NoJudge:
		judge = "none (--no-judge)"
	case judge == "":
		judge = "none"
	}
	user := m.UserBackbone
	if m.Solo {
		user += " (solo mode: no user)"
	}
	fmt.Fprintf(w, "ledgerbench run: %s · agent %s · backbone %s · user %s · judge %s\n", m.Domain, m.Agent, m.Backbone, user, judge)
	shard := ""
	if m.Shard != "" {
		shard = " (shard " + m.Shard + ")"
	}
	fmt.Fprintf(w, "  %d tasks × %d trials = %d simulations%s · seed %d · max steps %d · max errors %d · concurrency %d\n",
		len(p.tasks), m.Trials, len(p.units), shard, m.Seed, m.MaxSteps, m.MaxErrors, opts.Concurrency)
	fmt.Fprintf(w, "  out %s\n", opts.Out)
	for _, d := range p.defaults {
		fmt.Fprintf(w, "  default %s\n", d)
	}
	if p.existing != nil {
		note := ""
		if p.existing.Truncated {
			note = "; its last line was incomplete (a crash) and was dropped"
		}
		fmt.Fprintf(w, "  continuing: %d simulations recorded, %d to run%s\n", len(p.units)-pending, pending, note)
	}
}

// startProgress shows progress until the returned function is called: a bar
// redrawn on a terminal, plain lines otherwise, nothing with --quiet. It also
// announces an interrupt.
func startProgress(ctx context.Context, opts *runOptions, w io.Writer, p *runner.Progress) func() {
	stopAnnounce := context.AfterFunc(ctx, func() {
		snap := p.Snapshot()
		if opts.Streams.ErrTTY {
			fmt.Fprint(w, "\r\033[K")
		}
		how := "waiting for them to finish"
		if opts.Grace > 0 {
			how = fmt.Sprintf("canceling them after %s", opts.Grace)
		}
		fmt.Fprintf(w, "interrupted: starting no new simulations; %d running, %s (Ctrl-C again to quit now)\n", snap.Running, how)
	})
	if opts.Quiet {
		return func() { stopAnnounce() }
	}
	every := opts.progressEvery
	if every == 0 {
		every = 10 * time.Second
	}
	if opts.Streams.ErrTTY {
		every = 250 * time.Millisecond
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		last := -1
		for {
			select {
			case <-stop:
				snap := p.Snapshot()
				if opts.Streams.ErrTTY {
					fmt.Fprintf(w, "\r\033[K%s\n", fitLine(progressLine(snap, true), opts.Streams.width()))
				} else if snap.Done != last {
					fmt.Fprintln(w, progressLine(snap, false))
				}
				return
			case <-t.C:
				snap := p.Snapshot()
				if opts.Streams.ErrTTY {
					fmt.Fprintf(w, "\r\033[K%s", fitLine(progressLine(snap, true), opts.Streams.width()))
				} else if snap.Done != last {
					fmt.Fprintln(w, progressLine(snap, false))
					last = snap.Done
				}
			}
		}
	})
	return func() {
		close(stop)
		wg.Wait()
		stopAnnounce()
	}
}

func progressLine(s runner.Snapshot, bar bool) string {
	var b strings.Builder
	pct := 100.0
	if s.Total > 0 {
		pct = 100 * float64(s.Done) / float64(s.Total)
	}
	if bar {
		const width = 24
		fill := width
		if s.Total > 0 {
			fill = width * s.Done / s.Total
		}
		b.WriteString("[" + strings.Repeat("=", fill) + strings.Repeat(" ", width-fill) + "] ")
	}
	fmt.Fprintf(&b, "%d/%d (%.0f%%) · running %d · pass^1 ", s.Done, s.Total, pct, s.Running)
	if p := s.Pass1(); math.IsNaN(p) {
		b.WriteString("-")
	} else {
		fmt.Fprintf(&b, "%.3f", p)
	}
	if s.Infra > 0 {
		fmt.Fprintf(&b, " · infra errors %d", s.Infra)
	}
	fmt.Fprintf(&b, " · %s tokens · $%.2f · %s elapsed", humanCount(s.Tokens), s.Cost, s.Elapsed.Round(time.Second))
	if eta := s.ETA(); eta > 0 {
		fmt.Fprintf(&b, " · ETA %s", eta.Round(time.Second))
	}
	return b.String()
}

func humanCount(n int64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// writeSummary prints the end-of-run account.
func writeSummary(w io.Writer, m *results.Manifest, s runner.Summary, recs []results.Record, outDir string) {
	fmt.Fprintf(w, "\n%s · agent %s · backbone %s · user %s\n", m.Domain, m.Agent, m.Backbone, m.UserBackbone)
	fmt.Fprintf(w, "simulations  %d recorded: %d scored, %s\n", s.Records, s.Scored, plural(len(s.Infra), "infrastructure error"))
	for _, pk := range s.PassHatK {
		note := ""
		if pk.Tasks < s.Tasks {
			note = fmt.Sprintf("   (over %d of %d tasks: the others lack trials, see below)", pk.Tasks, s.Tasks)
		}
		fmt.Fprintf(w, "pass^%-7d %.4f%s\n", pk.K, pk.Value, note)
	}
	fmt.Fprintf(w, "avg reward   %.4f\n", s.AvgReward)
	if len(s.Infra) > 0 {
		fmt.Fprintf(w, "%s, excluded from every metric; `ledgerbench run --resume --out %s` re-runs them\n", plural(len(s.Infra), "infrastructure error"), outDir)
		errText := map[results.UnitKey]string{}
		for _, r := range recs {
			if r.Infrastructure() {
				errText[r.Key()] = r.Error
			}
		}
		for i, k := range s.Infra {
			if i == 10 {
				fmt.Fprintf(w, "  … %d more\n", len(s.Infra)-10)
				break
			}
			fmt.Fprintf(w, "  task %s trial %d: %s\n", k.TaskID, k.Trial, truncate(errText[k], 160))
		}
	}
	if len(s.Lacking) > 0 {
		var parts []string
		for _, l := range s.Lacking {
			p := fmt.Sprintf("%s (%d of %d", l.TaskID, l.Scored, l.Want)
			if l.Infra > 0 {
				p += fmt.Sprintf(", %d infra", l.Infra)
			}
			parts = append(parts, p+")")
		}
		if len(parts) > 20 {
			parts = append(parts[:20], fmt.Sprintf("… %d more", len(parts)-20))
		}
		fmt.Fprintf(w, "tasks lacking trials (%d): %s\n", len(s.Lacking), strings.Join(parts, ", "))
	}
	if s.NLNotEvaluated > 0 {
		why := ""
		if m.NoJudge {
			why = " (--no-judge)"
		}
		fmt.Fprintf(w, "NL assertions not judged%s in %d simulations: their rewards omit NL_ASSERTION\n", why, s.NLNotEvaluated)
	}
	var terms []string
	for _, t := range sortedTerms(s.Terminations) {
		terms = append(terms, fmt.Sprintf("%s %d", t, s.Terminations[t]))
	}
	fmt.Fprintf(w, "terminations %s\n", strings.Join(terms, ", "))
	cost := func(name string, c runner.Cost) string {
		return fmt.Sprintf("%s %s in / %s out, $%.4f", name, humanCount(int64(c.Usage.PromptTokens)), humanCount(int64(c.Usage.CompletionTokens)), c.USD)
	}
	fmt.Fprintf(w, "tokens       %s · %s · %s\n", cost("agent", s.Agent), cost("user", s.User), cost("judge", s.Judge))
	fmt.Fprintf(w, "cost         $%.4f total\n", s.Agent.USD+s.User.USD+s.Judge.USD)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func sortedTerms(m map[evaluator.Termination]int) []evaluator.Termination {
	out := make([]evaluator.Termination, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b evaluator.Termination) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(string(a), string(b))
	})
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// lockedWriter serialises writes from the progress ticker, the interrupt
// notice and the command.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
