// Package agents wires agents, user simulators and the judge for the CLI:
// names on the command line (an agent implementation, backbone names from
// backbones.yaml, offline backbone kinds) become the makers the runner calls
// once per simulation.
//
// Backbone names: a backbone of backbones.yaml ("gpt-4.1"), or an offline
// kind: "gold", "replay:FILE" (a τ²-bench results.json, or a τ-bench v1 /
// τ-Trait results list), or
// "sim[:stale=R,violation=R,miss=R,seed=N]". The user backbone may also be
// "steer" (τ-Trait's hosted steering endpoint; STEER_ENDPOINT and
// STEER_API_KEY from the environment) for the τ-Trait user.
package agents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/irma"
	"github.com/ledgerbench/ledgerbench/internal/engine/judge"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/tautrait"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// User simulator styles.
const (
	StyleTau2     = "tau2"      // τ²-bench's user simulator
	StyleTauTrait = "tau-trait" // τ-Trait's user simulator (τ-Trait's domains)
	StyleTauBench = "tau-bench" // τ-bench v1's LLM user (taubench-airline, taubench-retail)
)

// Conversation loops.
const (
	LoopTau2     = "tau2"        // τ²-bench's orchestrator
	LoopTauTrait = tautrait.Name // τ-Trait's (= τ-bench v1's) ToolCallingAgent loop
)

// SteerBackbone is the user backbone name of τ-Trait's steering endpoint.
const SteerBackbone = "steer"

// NoJudge disables the NL-assertion judge.
const NoJudge = "none"

// The sides a person can play (Options.Human). HumanBackbone is the
// backbone (and agent) name a person's side is recorded under.
const (
	HumanAgent    = "agent"
	HumanUser     = "user"
	HumanBackbone = "human"
)

// Options are what the CLI decided.
type Options struct {
	Domain   envs.Domain
	DataRoot string
	// Agent is the implementation: "baseline" (default), "ledger",
	// "ledger-only", "gate-only" or "irma" (see agentKinds).
	Agent string
	// Backbone drives the agent; UserBackbone the user simulator (empty:
	// the agent's backbone); JudgeBackbone the NL-assertion judge (empty:
	// the backbones file's judge for model runs, none for offline runs;
	// "none": no judge).
	Backbone, UserBackbone, JudgeBackbone string
	// BackbonesFile is the backbones.yaml path; needed when a name is not
	// an offline kind (unless Pool is given).
	BackbonesFile string
	// Getenv reads the environment (API keys, steering endpoint).
	Getenv func(string) string
	// LLM are the clients' process-wide options (cache, logging);
	// LookupEnv defaults to one built from Getenv.
	LLM llm.Options
	// Pool, when set, provides the clients (shared across builds).
	Pool *llm.Pool
	// UserStyle is StyleTau2, StyleTauTrait or StyleTauBench; empty:
	// τ-Trait's for τ-Trait's domains (known.TauTrait), τ-bench v1's for
	// v1's (known.TauBench), τ²-bench's otherwise.
	UserStyle string
	// LedgerPlacement is where LedgerAgent puts its ledger ("": system);
	// other agents refuse one other than the default.
	LedgerPlacement ledgeragent.Placement
	// Traits and TraitMode configure the τ-Trait user.
	Traits    usersim.Traits
	TraitMode usersim.TraitMode
	// SteerHTTP is the HTTP client of the steering endpoint (tests).
	SteerHTTP *http.Client
	// Solo runs τ²-bench's solo mode (see buildSolo): Domain must be
	// loaded in solo mode; UserBackbone is not used.
	Solo bool
	// Loop is LoopTau2 or LoopTauTrait; empty: τ-Trait's (v1's
	// ToolCallingAgent) for τ-Trait's and τ-bench v1's domains, τ²-bench's
	// otherwise.
	Loop string
	// Human is the side a person plays (HumanAgent or HumanUser; ledgerbench
	// play): Build builds no backbone for it and leaves that side's maker
	// nil, for the caller to set. The other side and the judge are built as
	// for a run; the build's prompts are modified (a person is not
	// upstream's model).
	Human string
	// NoPrepare builds makers without the domain's job resources
	// (envs.Preparer: banking_knowledge's retrieval pipelines), for jobs
	// that only show the first request (prompt); their tools must not be
	// called.
	NoPrepare bool
}

// Loops are the conversation loops a run can use.
func Loops() []string { return []string{LoopTau2, LoopTauTrait} }

// UserStyles are the user simulators a run can use.
func UserStyles() []string { return []string{StyleTau2, StyleTauTrait} }

// LoopOf returns the loop a run uses: name, or the domain's default.
func LoopOf(name, domain string) (string, error) {
	switch name {
	case "":
		if known.BenchmarkOf(domain).V1() {
			return LoopTauTrait, nil
		}
		return LoopTau2, nil
	case LoopTau2, LoopTauTrait:
		return name, nil
	}
	return "", fmt.Errorf("unknown loop %q (known: %s, %s)", name, LoopTau2, LoopTauTrait)
}

// agentFactory builds the agent of one simulation over its generator and
// the baseline options (prompt, tools, seed).
type agentFactory func(spec runner.Spec, gen baseline.Generator, opts baseline.Options) (orchestrator.Agent, error)

// agentKinds is the extension point for agent implementations: fixed at
// compile time, like the domain list. LedgerAgent and its ablations plug in
// here with a factory over the same generator and options (same model, same
// prompt and tools); IRMA's helper calls go through the same generator.
var agentKinds = []struct {
	name string
	make agentFactory // nil: reserved, not built yet
	// ledger marks LedgerAgent and its ablations (they read the evidence
	// reads of the offline scripts).
	ledger bool
}{
	{name: "baseline", make: func(_ runner.Spec, gen baseline.Generator, opts baseline.Options) (orchestrator.Agent, error) {
		return baseline.New(gen, opts), nil
	}},
	{name: "ledger", make: ledgerKind(ledgeragent.Full), ledger: true},
	{name: "ledger-only", make: ledgerKind(ledgeragent.LedgerOnly), ledger: true},
	{name: "gate-only", make: ledgerKind(ledgeragent.GateOnly), ledger: true},
	{name: "irma", make: func(_ runner.Spec, gen baseline.Generator, opts baseline.Options) (orchestrator.Agent, error) {
		return irma.New(gen, irma.Options{Options: opts}), nil
	}},
}

// ledgerKind builds LedgerAgent (or an ablation) around the baseline agent:
// same generator, prompt, tools and seed.
func ledgerKind(mode ledgeragent.Mode) agentFactory {
	return func(spec runner.Spec, gen baseline.Generator, opts baseline.Options) (orchestrator.Agent, error) {
		opts.Name = mode.Name()
		return ledgeragent.New(baseline.New(gen, opts), spec.Domain, mode)
	}
}

// ledgerAgent reports whether an agent name is LedgerAgent or one of its
// ablations.
func ledgerAgent(name string) bool {
	for _, k := range agentKinds {
		if k.name == name {
			return k.ledger
		}
	}
	return false
}

// AgentNames lists the agent implementations that can be built.
func AgentNames() []string {
	var out []string
	for _, k := range agentKinds {
		if k.make != nil {
			out = append(out, k.name)
		}
	}
	return out
}

func agentFactoryOf(name string) (agentFactory, error) {
	if name == "" {
		name = "baseline"
	}
	for _, k := range agentKinds {
		if k.name == name {
			if k.make == nil {
				return nil, fmt.Errorf("agent %q is not available yet (available: %s)", name, strings.Join(AgentNames(), ", "))
			}
			return k.make, nil
		}
	}
	return nil, fmt.Errorf("unknown agent %q (available: %s)", name, strings.Join(AgentNames(), ", "))
}

// Simulated reports whether a backbone name is the sim backbone (its records
// are marked simulated).
func Simulated(backbone string) bool {
	b, ok, err := offline.Parse(backbone)
	return ok && err == nil && b.Kind == offline.Sim
}

// generatorMaker returns the generator of one simulation's side.
type generatorMaker func(spec runner.Spec) (baseline.Generator, error)

// builder holds what Build resolved.
type builder struct {
	opts      Options
	pool      *llm.Pool
	poolErr   error
	recording map[string]*offline.Recording

	mu sync.Mutex // guards plans
	// plans is keyed by the task itself, not its id: splits reuse ids
	// (τ-Trait telecom's test and dev tasks 0…), and one build may serve
	// tasks of several splits.
	plans map[*tasks.Task][][]message.ToolCall
}

// Build resolves the names of opts into the makers of every simulation and
// the judge (nil when NL assertions are not judged). Unknown names, missing
// files and unset API keys are errors with hints.
func Build(ctx context.Context, opts Options) (runner.Makers, evaluator.Judge, error) {
	if opts.Domain == nil {
		return runner.Makers{}, nil, errors.New("agents: no domain")
	}
	if err := ctx.Err(); err != nil {
		return runner.Makers{}, nil, err
	}
	// The agents and users show the model the tools' descriptions.
	if err := envs.Describe(opts.Domain); err != nil {
		return runner.Makers{}, nil, err
	}
	if !opts.NoPrepare {
		if err := envs.Prepare(ctx, opts.Domain); err != nil {
			return runner.Makers{}, nil, err
		}
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.LLM.LookupEnv == nil {
		get := opts.Getenv
		opts.LLM.LookupEnv = func(k string) (string, bool) { v := get(k); return v, v != "" }
	}
	loop, err := LoopOf(opts.Loop, opts.Domain.Name())
	if err != nil {
		return runner.Makers{}, nil, err
	}
	opts.Loop = loop
	b := &builder{opts: opts, pool: opts.Pool, recording: map[string]*offline.Recording{}, plans: map[*tasks.Task][][]message.ToolCall{}}
	var factory agentFactory
	if opts.Human != HumanAgent {
		if factory, err = agentFactoryOf(opts.Agent); err != nil {
			return runner.Makers{}, nil, err
		}
	}
	placement, err := ledgerPlacement(opts.Agent, opts.LedgerPlacement)
	if err != nil {
		return runner.Makers{}, nil, err
	}
	b.opts.LedgerPlacement = placement
	if placement != ledgeragent.PlacementSystem {
		inner := factory
		factory = func(spec runner.Spec, gen baseline.Generator, bo baseline.Options) (orchestrator.Agent, error) {
			ag, err := inner(spec, gen, bo)
			if la, ok := ag.(*ledgeragent.Agent); ok {
				la.Placement = placement
			}
			return ag, err
		}
	}
	if opts.Backbone == "" {
		return runner.Makers{}, nil, errors.New("agents: no agent backbone (name one of backbones.yaml, or gold, replay:FILE, sim)")
	}
	if opts.Solo {
		return buildSolo(ctx, b, factory) // solo.go
	}
	userBackbone := opts.UserBackbone
	if userBackbone == "" {
		userBackbone = opts.Backbone
	}
	var agentGen generatorMaker
	if opts.Human != HumanAgent {
		if agentGen, err = b.generator(ctx, opts.Backbone, false); err != nil {
			return runner.Makers{}, nil, fmt.Errorf("agent backbone: %w", err)
		}
	}
	var userMaker func(runner.Spec) (orchestrator.User, error)
	hashes := map[string]string{}
	if opts.Human != HumanUser {
		if userMaker, hashes, err = b.userMaker(ctx, userBackbone); err != nil {
			return runner.Makers{}, nil, fmt.Errorf("user backbone: %w", err)
		}
	}
	j, err := b.judge()
	if err != nil {
		return runner.Makers{}, nil, fmt.Errorf("judge backbone: %w", err)
	}
	if j != nil {
		jp, err := judge.LoadPrompt(opts.DataRoot)
		if err != nil {
			return runner.Makers{}, nil, err
		}
		for k, v := range jp.Texts() {
			hashes[k] = hash(v)
		}
	}
	dom := opts.Domain
	prompt, err := baseline.LoadPrompt(opts.DataRoot)
	if err != nil {
		return runner.Makers{}, nil, err
	}
	policy, tools := dom.Policy(), dom.AgentTools()
	tauTrait := loop == LoopTauTrait
	system := prompt.System(policy)
	switch {
	case opts.Agent == "irma":
		system = irma.SystemPrompt(prompt, policy)
	case tauTrait:
		system = policy // ToolCallingAgent: the wiki alone
	}
	if !tauTrait {
		for k, v := range prompt.Texts() {
			hashes[k] = hash(v)
		}
	}
	systemOf := func(policy string) string {
		switch {
		case opts.Agent == "irma":
			return irma.SystemPrompt(prompt, policy)
		case tauTrait:
			return policy
		}
		return prompt.System(policy)
	}
	perTask := envs.PolicyPerTask(dom)
	if perTask {
		// The policy depends on the task (banking_knowledge's
		// golden_retrieval): the hash covers every task's system prompt.
		all, err := dom.Tasks().All()
		if err != nil {
			return runner.Makers{}, nil, err
		}
		var b strings.Builder
		for i := range all {
			b.WriteString(systemOf(envs.TaskPolicy(dom, &all[i])))
			b.WriteByte(0)
		}
		system = b.String()
	}
	hashes["agent_system"] = hash(system)
	placementHash(hashes, opts.Agent, placement)
	hashes["agent_tools"] = hash(toolsText(tools))
	if ut := dom.UserTools(); len(ut) > 0 {
		hashes["user_tools"] = hash(toolsText(ut))
	}
	agentMaker := func(spec runner.Spec) (orchestrator.Agent, error) {
		gen, err := agentGen(spec)
		if err != nil {
			return nil, err
		}
		bo := baseline.Options{Policy: policy, Tools: tools, Seed: seedOf(spec), Name: agentName(opts.Agent), SystemPrompt: system}
		if perTask {
			bo.Policy = envs.TaskPolicy(dom, spec.Task)
			bo.SystemPrompt = systemOf(bo.Policy)
		}
		if tauTrait {
			// ToolCallingAgent: system message = the wiki, temperature
			// 0.0 and nothing else, first tool call only.
			// IRMA keeps its own prompt (instruction, FACT, policy).
			temp := tautrait.AgentTemperature
			gen = tautrait.AgentGenerator(gen)
			bo.Seed, bo.Temperature = nil, &temp
		}
		return factory(spec, gen, bo)
	}
	if opts.Human == HumanAgent {
		agentMaker = nil
	}
	makers := runner.Makers{
		Agent:        agentMaker,
		User:         userMaker,
		PromptHashes: hashes,
		Prompts:      b.prompts(tauTrait),
		Greeting:     prompt.Greeting,
		LoopName:     loop,
	}
	if tauTrait {
		makers.Loop = tautrait.Loop
	}
	return makers, j, nil
}

// prompts says whether every text of the build is upstream's: the baseline
// agent with τ²-bench's user simulator on τ²-bench's loop, or on τ-Trait's
// loop with τ-Trait's user without prompt-approximated traits.
func (b *builder) prompts(tauTrait bool) string {
	o := b.opts
	if agentName(o.Agent) != "baseline" || o.Human != "" {
		return results.PromptsModified
	}
	switch style := b.userStyle(); {
	case !tauTrait && style == StyleTau2 && known.BenchmarkOf(o.Domain.Name()) == known.Tau2:
		return results.PromptsUpstream
	case tauTrait && style == StyleTauTrait && known.BenchmarkOf(o.Domain.Name()) == known.TauTrait &&
		(len(o.Traits) == 0 || o.TraitMode == usersim.TraitIgnore || o.UserBackbone == SteerBackbone):
		return results.PromptsUpstream
	case tauTrait && style == StyleTauBench && known.BenchmarkOf(o.Domain.Name()) == known.TauBench:
		return results.PromptsUpstream
	}
	return results.PromptsModified
}

// toolsText is the tools' wire form (name, description, parameters), for
// the manifest's hashes.
func toolsText(tools []tool.Info) string {
	var b strings.Builder
	for _, t := range tools {
		b.WriteString(t.Name)
		b.WriteByte('\n')
		b.WriteString(t.Description)
		b.WriteByte('\n')
		b.Write(t.Parameters)
		b.WriteByte('\n')
	}
	return b.String()
}

// userStyle is the user simulator style of the build.
func (b *builder) userStyle() string {
	if b.opts.UserStyle != "" {
		return b.opts.UserStyle
	}
	switch known.BenchmarkOf(b.opts.Domain.Name()) {
	case known.TauTrait:
		return StyleTauTrait
	case known.TauBench:
		return StyleTauBench
	}
	return StyleTau2
}

func agentName(n string) string {
	if n == "" {
		return "baseline"
	}
	return n
}

func seedOf(spec runner.Spec) *int {
	s := int(spec.Seed)
	return &s
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// client returns the model client of a backbones.yaml name.
func (b *builder) client(name string) (*llm.Client, error) {
	if b.pool == nil && b.poolErr == nil {
		if b.opts.BackbonesFile == "" {
			b.poolErr = errext.WithHint(errext.Usagef("%q is not an offline backbone (gold, replay:FILE, sim) and no backbones file was given", name), "pass --backbones backbones.yaml")
		} else if cfg, err := llm.Load(b.opts.BackbonesFile); err != nil {
			b.poolErr = err
		} else {
			b.pool = llm.NewPool(cfg, b.opts.LLM)
		}
	}
	if b.poolErr != nil {
		return nil, b.poolErr
	}
	return b.pool.Client(name)
}

// generator resolves a backbone name for the agent side (user false) or the
// user side.
func (b *builder) generator(ctx context.Context, name string, user bool) (generatorMaker, error) {
	ob, ok, err := offline.Parse(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		c, err := b.client(name)
		if err != nil {
			return nil, err
		}
		return func(runner.Spec) (baseline.Generator, error) { return c, nil }, nil
	}
	switch ob.Kind {
	case offline.Gold, offline.Sim:
		if user {
			return func(spec runner.Spec) (baseline.Generator, error) { return offline.NewUser(spec.Task), nil }, nil
		}
		// τ-Trait's loop caps an episode at 30 steps: there the script
		// makes only the gold trajectory's calls, unless a LedgerAgent
		// (whose gate may need evidence reads) drives it.
		lean := b.opts.Loop == LoopTauTrait && !ledgerAgent(b.opts.Agent)
		evidence := func(spec runner.Spec) ([][]message.ToolCall, error) {
			if lean {
				return nil, nil
			}
			return b.evidence(ctx, spec)
		}
		if ob.Kind == offline.Gold {
			return func(spec runner.Spec) (baseline.Generator, error) {
				ev, err := evidence(spec)
				if err != nil {
					return nil, err
				}
				return offline.NewGoldAgent(spec.Domain, spec.Task, ev), nil
			}, nil
		}
		rates := ob.Rates
		return func(spec runner.Spec) (baseline.Generator, error) {
			ev, err := evidence(spec)
			if err != nil {
				return nil, err
			}
			return offline.NewSimAgent(spec.Domain, spec.Task, spec.Seed, rates, ev), nil
		}, nil
	case offline.Replay:
		rec, err := b.load(ob.File)
		if err != nil {
			return nil, err
		}
		return func(spec runner.Spec) (baseline.Generator, error) {
			if user {
				return rec.User(spec.Task.ID, spec.Trial)
			}
			return rec.Agent(spec.Task.ID, spec.Trial)
		}, nil
	}
	return nil, fmt.Errorf("offline backbone %q is not supported", name)
}

// evidence is the evidence plan of a task's gold script
// (ledgeragent.EvidencePlan), computed once per task of the build: every
// agent gets the same script, the baseline too, so that runs compare.
func (b *builder) evidence(ctx context.Context, spec runner.Spec) ([][]message.ToolCall, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p, ok := b.plans[spec.Task]; ok {
		return p, nil
	}
	p, err := ledgeragent.EvidencePlan(ctx, spec.Domain, spec.Task)
	if err != nil {
		return nil, fmt.Errorf("task %s: evidence reads of the gold script: %w", spec.Task.ID, err)
	}
	b.plans[spec.Task] = p.Reads
	return p.Reads, nil
}

func (b *builder) load(path string) (*offline.Recording, error) {
	if r, ok := b.recording[path]; ok {
		return r, nil
	}
	r, err := offline.LoadRecording(path)
	if err != nil {
		return nil, err
	}
	b.recording[path] = r
	return r, nil
}

// userMaker builds the user simulator maker and its prompt hashes.
func (b *builder) userMaker(ctx context.Context, name string) (func(runner.Spec) (orchestrator.User, error), map[string]string, error) {
	o := b.opts
	style := b.userStyle()
	hashes := map[string]string{}
	switch style {
	case StyleTau2:
		if name == SteerBackbone {
			return nil, nil, fmt.Errorf("the steering endpoint drives τ-Trait's user only (domain %s uses τ²-bench's; pass the user style %q to use it)", o.Domain.Name(), StyleTauTrait)
		}
		if len(o.Traits) > 0 {
			return nil, nil, errors.New("traits apply to τ-Trait's user only (τ²-bench's user has no traits)")
		}
		gen, err := b.generator(ctx, name, true)
		if err != nil {
			return nil, nil, err
		}
		up, err := usersim.LoadPrompt(o.DataRoot)
		if err != nil {
			return nil, nil, err
		}
		for k, v := range up.Texts() {
			hashes[k] = hash(v)
		}
		return func(spec runner.Spec) (orchestrator.User, error) {
			g, err := gen(spec)
			if err != nil {
				return nil, err
			}
			tools := usersim.UserTools(spec.Domain.UserTools(), spec.Task)
			return usersim.New(g, usersim.Options{System: up.System(tools != nil, "", spec.Task.UserScenario.String()),
				Tools: tools, Seed: seedOf(spec)}), nil
		}, hashes, nil
	case StyleTauTrait:
		if err := o.Traits.Validate(); err != nil {
			return nil, nil, err
		}
		prompts, err := usersim.LoadTraitPrompts(o.DataRoot)
		if err != nil {
			return nil, nil, err
		}
		if name == SteerBackbone {
			sc, err := usersim.NewSteerClient(o.Getenv)
			if err != nil {
				return nil, nil, err
			}
			sc.HTTP = o.SteerHTTP
			if o.TraitMode != "" && o.TraitMode != usersim.TraitSteer {
				return nil, nil, fmt.Errorf("trait mode %q does not apply to the steering endpoint", o.TraitMode)
			}
			hashes["user_system"] = hash(usersim.TraitSystemPrompt(prompts, "", true, nil))
			return func(spec runner.Spec) (orchestrator.User, error) {
				return usersim.NewTrait(nil, sc, usersim.TraitOptions{Prompts: prompts, Instruction: spec.Task.UserScenario.Instructions.String(),
					Traits: o.Traits, Mode: usersim.TraitSteer})
			}, hashes, nil
		}
		if o.TraitMode == usersim.TraitSteer {
			return nil, nil, fmt.Errorf("trait mode %q needs the user backbone %q", usersim.TraitSteer, SteerBackbone)
		}
		if o.TraitMode != "" && !slices.Contains([]usersim.TraitMode{usersim.TraitPrompt, usersim.TraitIgnore}, o.TraitMode) {
			return nil, nil, fmt.Errorf("unknown trait mode %q (known: %s, %s, %s)", o.TraitMode, usersim.TraitSteer, usersim.TraitPrompt, usersim.TraitIgnore)
		}
		gen, err := b.generator(ctx, name, true)
		if err != nil {
			return nil, nil, err
		}
		var section usersim.Traits
		if o.TraitMode != usersim.TraitIgnore {
			section = o.Traits
		}
		hashes["user_system"] = hash(usersim.TraitSystemPrompt(prompts, "", false, section))
		return func(spec runner.Spec) (orchestrator.User, error) {
			g, err := gen(spec)
			if err != nil {
				return nil, err
			}
			// Upstream's user sends no sampling arguments and no seed.
			return usersim.NewTrait(g, nil, usersim.TraitOptions{Prompts: prompts, Instruction: spec.Task.UserScenario.Instructions.String(),
				Traits: o.Traits, Mode: o.TraitMode})
		}, hashes, nil
	case StyleTauBench:
		if name == SteerBackbone {
			return nil, nil, fmt.Errorf("the steering endpoint drives τ-Trait's user only (pass the user style %q to use it)", StyleTauTrait)
		}
		if len(o.Traits) > 0 {
			return nil, nil, fmt.Errorf("traits apply to τ-Trait's user only (τ-bench v1's user has none; pass the user style %q)", StyleTauTrait)
		}
		prompts, err := usersim.LoadV1Prompts(o.DataRoot)
		if err != nil {
			return nil, nil, err
		}
		gen, err := b.generator(ctx, name, true)
		if err != nil {
			return nil, nil, err
		}
		hashes["user_system"] = hash(prompts.System("", false))
		return func(spec runner.Spec) (orchestrator.User, error) {
			g, err := gen(spec)
			if err != nil {
				return nil, err
			}
			// v1's user sends no sampling arguments and no seed.
			return usersim.NewTrait(g, nil, usersim.TraitOptions{Prompts: prompts, Instruction: spec.Task.UserScenario.Instructions.String(),
				Mode: usersim.TraitIgnore})
		}, hashes, nil
	}
	return nil, nil, fmt.Errorf("unknown user style %q (known: %s, %s, %s)", style, StyleTau2, StyleTauTrait, StyleTauBench)
}

// judge resolves the judge backbone.
func (b *builder) judge() (evaluator.Judge, error) {
	name := b.opts.JudgeBackbone
	switch {
	case name == NoJudge:
		return nil, nil
	case name == "":
		if _, off, _ := offline.Parse(b.opts.Backbone); off || b.opts.Human == HumanAgent {
			return nil, nil
		}
		// The agent's backbone is a model, so the pool exists.
		c, err := b.pool.Judge()
		if err != nil {
			return nil, fmt.Errorf("%w (hint: set judge: in the backbones file, or pass a judge backbone, or %q)", err, NoJudge)
		}
		return b.newJudge(c)
	}
	if _, off, _ := offline.Parse(name); off {
		return nil, fmt.Errorf("%q: the judge must be a model backbone (or %q)", name, NoJudge)
	}
	c, err := b.client(name)
	if err != nil {
		return nil, err
	}
	return b.newJudge(c)
}

// newJudge returns the judge over c with upstream's prompt.
func (b *builder) newJudge(c *llm.Client) (evaluator.Judge, error) {
	p, err := judge.LoadPrompt(b.opts.DataRoot)
	if err != nil {
		return nil, err
	}
	return judge.New(c, p, judge.Options{}), nil
}

// placementHash names the ledger's place among the prompt hashes of the
// agents that render one when it is not the default (system; absent, so
// runs from before the option keep their hashes): it changes every request
// after the first ledger entry (the ledger's text is the same).
func placementHash(hashes map[string]string, agent string, p ledgeragent.Placement) {
	if (agent == "ledger" || agent == "ledger-only") && p != ledgeragent.PlacementSystem {
		hashes["ledger_placement"] = hash(string(p))
	}
}

// ledgerPlacement checks the placement of agent's ledger: the default for
// any agent, tail only for the agents that render a ledger.
func ledgerPlacement(agent string, p ledgeragent.Placement) (ledgeragent.Placement, error) {
	pl, err := ledgeragent.ParsePlacement(string(p))
	if err != nil {
		return "", err
	}
	if pl != ledgeragent.PlacementSystem && agent != "ledger" && agent != "ledger-only" {
		return "", fmt.Errorf("ledger placement %s: agent %s renders no ledger (ledger and ledger-only do)", pl, agentName(agent))
	}
	return pl, nil
}
