// Package irma is the IRMA comparison agent: input reformulation with
// helper agents (Mishra et al. 2025, arXiv 2508.20931), re-implemented from
// the paper's description for the LedgerAgent paper's Table 3. No IRMA code
// is public; the prompts are ours.
//
// The agent is the baseline function-calling agent (package baseline) with
// two changes:
//
//   - FACT (follow-up question acting): the system prompt adds a paragraph
//     asking the agent to ask follow-up questions before acting when a
//     request is ambiguous or incomplete (FACTInstruction, SystemPrompt).
//   - Input reformulation: before every generation, a <reformulated_input>
//     block (Block) is appended to the system message of the request — the
//     same place LedgerAgent puts its ledger, so the two methods differ only
//     in what the block holds. History, policy and tool schemas stay as in
//     the baseline. The block has three parts:
//     (1) memory: every user message so far, verbatim, oldest first;
//     (2) constraints: the output of one helper call given the domain policy
//     and the user's request, a short checklist of the policy rules that
//     apply now;
//     (3) tool suggestions: the output of one helper call given the tool
//     schemas and the user's request, the relevant tools with a one-line
//     reason each.
//     The "user's request" given to both helpers is every user message so
//     far (the memory), because the latest message alone is often just
//     "yes" or an identifier.
//
// # When the helpers run
//
// The two helper calls run (concurrently) once after every new user message,
// i.e. on the agent turns whose incoming messages include a user text
// message, before that turn's generation. On tool-result turns they do not
// run: the block is rebuilt from the last helper outputs. So a simulation
// makes 2 × (user messages the agent answered) helper calls on top of the
// baseline's one call per turn. The rest of the loop is the baseline's
// (Observe, Request, Generate, Commit): one main call per turn.
//
// # Accounting
//
// Helper calls go to Options.Helper (default: the agent's own generator,
// i.e. the same backbone, seed and temperature) and are recorded one by one
// in the Report with their usage and cost. The main calls are accounted by
// the embedded baseline agent exactly as for the baseline (Report.Base). The
// message returned by Next carries the usage and cost of every model call of
// that turn — the main call plus the helper calls made before it — as the
// orchestrator's Agent contract asks, so a record's agent_usage and
// agent_cost include the helpers; for a simulation that ends normally,
// Report.TotalUsage equals the record's agent_usage (a turn whose main call
// failed returns no message, so its helper calls are in the report only).
//
// Helper requests begin with HelperMarker; the offline backbones (gold, sim,
// replay) answer them with a fixed text without moving their scripts.
package irma

import (
	"context"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
)

// Name is the agent's implementation name.
const Name = "irma"

// Refresh names the helper schedule written into the report.
const Refresh = "user_message"

// Options configure an IRMA agent.
type Options struct {
	// Options are the baseline agent's (policy, tools, seed, temperature).
	// An empty SystemPrompt becomes SystemPrompt(Prompt, Policy); an
	// empty Name becomes "irma".
	baseline.Options
	// Prompt is the baseline's upstream text (baseline.LoadPrompt).
	Prompt *baseline.Prompt
	// Helper makes the helper calls; nil uses the agent's own generator.
	// It must be safe for concurrent use (the two helpers of a round run at
	// once); *llm.Client and the offline backbones are.
	Helper baseline.Generator
}

// HelperCall is one helper call in the report.
type HelperCall struct {
	// Kind is KindConstraints or KindTools.
	Kind string `json:"kind"`
	// Round counts helper rounds from 0 (one round per user message).
	Round int `json:"round"`
	// Turn is the index of the generation the output was made for (the
	// index into Report.Turns).
	Turn  int           `json:"turn"`
	Usage message.Usage `json:"usage"`
	Cost  float64       `json:"cost"`
	// Cached marks a reply served from the response cache.
	Cached bool `json:"cached,omitempty"`
	// Empty marks a reply without text (the block then says "(none)").
	Empty bool `json:"empty,omitempty"`
	// OutputChars is the length of the helper's text as placed in the block.
	OutputChars int `json:"output_chars"`
}

// TurnStats describes one generation.
type TurnStats struct {
	// Helpers reports that a helper round ran before this generation.
	Helpers bool `json:"helpers"`
	// BlockChars is the reformulated input's length; PromptChars the
	// request's text length (every message's content, block included).
	BlockChars  int `json:"block_chars"`
	PromptChars int `json:"prompt_chars"`
}

// Report is what the agent adds to a simulation record (agent_info).
type Report struct {
	Implementation string `json:"implementation"`
	// Refresh is when the helpers run: "user_message".
	Refresh string `json:"refresh"`
	// SeparateHelper reports helper calls on another generator than the
	// agent's (Options.Helper set).
	SeparateHelper bool `json:"separate_helper"`
	// TotalCalls, TotalUsage and TotalCost cover every model call of the
	// simulation: the main calls (Base) plus the helper calls.
	TotalCalls int           `json:"total_calls"`
	TotalUsage message.Usage `json:"total_usage"`
	TotalCost  float64       `json:"total_cost"`
	// HelperCalls, HelperUsage and HelperCost cover the helper calls only.
	HelperCalls int           `json:"helper_calls"`
	HelperUsage message.Usage `json:"helper_usage"`
	HelperCost  float64       `json:"helper_cost"`
	// HelperRounds counts user messages that triggered the helpers.
	HelperRounds int `json:"helper_rounds"`
	// Helpers lists every helper call in order (constraints before tools
	// within a round).
	Helpers []HelperCall `json:"helpers"`
	// Turns has one entry per generation.
	Turns []TurnStats `json:"turns"`
	// Base is the baseline agent's report of the main calls.
	Base baseline.Report `json:"base"`
}

// Agent is IRMA around a baseline agent. It is not safe for concurrent use
// (the orchestrator calls it from one goroutine); Report may be called at
// any time.
type Agent struct {
	base   *baseline.Agent
	helper baseline.Generator
	// The helpers' system messages: instruction plus policy or tool schemas.
	constraintsSys, toolsSys string
	seed                     *int
	temp                     *float64

	memory []string // user messages, verbatim
	block  string   // the reformulated input of the last helper round
	system string   // the system prompt followed by block ("" before the first round)

	mu  sync.Mutex
	rep Report
}

// New returns an IRMA agent over gen.
func New(gen baseline.Generator, opts Options) *Agent {
	bo := opts.Options
	if bo.SystemPrompt == "" && opts.Prompt != nil {
		bo.SystemPrompt = SystemPrompt(opts.Prompt, bo.Policy)
	}
	if bo.Name == "" {
		bo.Name = Name
	}
	helper := opts.Helper
	if helper == nil {
		helper = gen
	}
	return &Agent{
		base: baseline.New(gen, bo), helper: helper,
		constraintsSys: constraintsSystemFor(bo.Policy), toolsSys: toolsSystemFor(renderTools(bo.Tools)),
		seed: bo.Seed, temp: bo.Temperature,
		rep: Report{Implementation: bo.Name, Refresh: Refresh, SeparateHelper: opts.Helper != nil, Helpers: []HelperCall{}, Turns: []TurnStats{}},
	}
}

// Base returns the underlying baseline agent (its state is the
// conversation; the reformulated input is never added to it).
func (a *Agent) Base() *baseline.Agent { return a.base }

// Block returns the reformulated input of the last helper round ("" before
// the first user message).
func (a *Agent) Block() string { return a.block }

// Next observes the incoming messages; when they include a user message it
// runs the helper round; then it makes the turn's main call with the
// reformulated input appended to the system message.
func (a *Agent) Next(ctx context.Context, incoming []message.Message) (message.Message, error) {
	fresh := false
	for _, m := range incoming {
		if m.Role == message.User && m.HasText() {
			a.memory = append(a.memory, m.Content)
			fresh = true
		}
	}
	a.base.Observe(incoming)
	a.mu.Lock()
	turn := len(a.rep.Turns)
	a.mu.Unlock()
	var spent message.Usage
	var spentCost float64
	if fresh {
		var err error
		if spent, spentCost, err = a.refresh(ctx, turn); err != nil {
			return message.Message{}, err
		}
	}
	req := a.base.Request()
	if a.system != "" {
		// baseline.AppendToSystem, with the concatenation kept from the
		// last helper round: the agent's state is not touched.
		msgs := make([]message.Message, len(req.Messages))
		copy(msgs, req.Messages)
		msgs[0].Content = a.system
		req.Messages = msgs
	}
	stats := TurnStats{Helpers: fresh, BlockChars: len(a.block)}
	for _, m := range req.Messages {
		stats.PromptChars += len(m.Content)
	}
	msg, err := a.base.Generate(ctx, req)
	if err != nil {
		return message.Message{}, err
	}
	a.mu.Lock()
	a.rep.Turns = append(a.rep.Turns, stats)
	a.mu.Unlock()
	a.base.Commit(msg)
	if fresh {
		// The returned message accounts for every call of the turn.
		u := spent
		if msg.Usage != nil {
			u = u.Add(*msg.Usage)
		}
		msg.Usage = &u
		msg.Cost += spentCost
	}
	return msg, nil
}

// refresh runs one helper round for generation turn and rebuilds the block.
// It returns the round's usage and cost.
func (a *Agent) refresh(ctx context.Context, turn int) (message.Usage, float64, error) {
	kinds := [2]string{KindConstraints, KindTools}
	reqs := [2]llm.Request{
		{Messages: helperMessages(a.constraintsSys, a.memory), Seed: a.seed, Temperature: a.temp},
		{Messages: helperMessages(a.toolsSys, a.memory), Seed: a.seed, Temperature: a.temp},
	}
	var resps [2]llm.Response
	var ok [2]bool
	g, gctx := errgroup.WithContext(ctx)
	for i := range reqs {
		g.Go(func() error {
			r, err := a.helper.Generate(gctx, reqs[i])
			if err != nil {
				return llm.Failed("irma "+kinds[i]+" helper", err)
			}
			resps[i], ok[i] = r, true
			return nil
		})
	}
	err := g.Wait()
	outs := [2]string{strings.TrimSpace(resps[0].Message.Content), strings.TrimSpace(resps[1].Message.Content)}

	// Every call that returned is accounted, even when the other failed:
	// it was paid for.
	var usage message.Usage
	var cost float64
	a.mu.Lock()
	round := a.rep.HelperRounds
	a.rep.HelperRounds++
	for i, r := range resps {
		if !ok[i] {
			continue
		}
		a.rep.Helpers = append(a.rep.Helpers, HelperCall{Kind: kinds[i], Round: round, Turn: turn, Usage: r.Usage, Cost: r.Cost,
			Cached: r.Cached, Empty: outs[i] == "", OutputChars: len(orNone(outs[i]))})
		a.rep.HelperCalls++
		a.rep.HelperUsage = a.rep.HelperUsage.Add(r.Usage)
		a.rep.HelperCost += r.Cost
		usage = usage.Add(r.Usage)
		cost += r.Cost
	}
	a.mu.Unlock()
	if err != nil {
		return message.Usage{}, 0, err
	}
	a.block = Block(a.memory, outs[0], outs[1])
	a.system = a.base.SystemMessage() + a.block
	return usage, cost, nil
}

// ModelCalls counts every model call so far: the agent's own and its
// helpers'.
func (a *Agent) ModelCalls() int {
	a.mu.Lock()
	h := a.rep.HelperCalls
	a.mu.Unlock()
	return a.base.ModelCalls() + h
}

// Report returns the agent's report (orchestrator.Reporter).
func (a *Agent) Report() any {
	a.mu.Lock()
	r := a.rep
	r.Helpers = append([]HelperCall{}, a.rep.Helpers...)
	r.Turns = append([]TurnStats{}, a.rep.Turns...)
	a.mu.Unlock()
	if b, ok := a.base.Report().(baseline.Report); ok {
		r.Base = b
	}
	r.TotalCalls = r.Base.ModelCalls + r.HelperCalls
	r.TotalUsage = r.Base.Usage.Add(r.HelperUsage)
	r.TotalCost = r.Base.Cost + r.HelperCost
	return r
}

var (
	_ orchestrator.Agent    = (*Agent)(nil)
	_ orchestrator.Reporter = (*Agent)(nil)
)
