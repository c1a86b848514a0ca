// Package baseline is τ²-bench's default function-calling agent (upstream's
// LLMAgent in src/tau2/agent/llm_agent.py): one system message holding an instruction and
// the domain policy, the domain's agent tools offered on every call, and a
// state that is the system message plus every message the agent has seen or
// produced. Each turn is exactly one model call.
//
// The agent is built from reusable steps so that methods layered on top of
// it keep its behaviour and its model-call count:
//
//	a.Observe(incoming)          // append what arrived to the state
//	req := a.Request()           // system + history + tools + seed
//	// ... e.g. LedgerAgent adds a rendered ledger block to req.Messages
//	msg, err := a.Generate(ctx, req) // the one model call, accounted
//	// ... e.g. a gate filters msg.ToolCalls
//	a.Commit(msg)                // the agent's own message joins the state
//
// Next is exactly that sequence with nothing in between.
package baseline

import (
	"context"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
)

// Generator makes one model call. *llm.Client implements it, and so do the
// offline backbones (internal/engine/offline).
type Generator interface {
	Generate(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Options configure an agent.
type Options struct {
	// Policy is the domain policy text (envs.Domain.Policy()).
	Policy string
	// Tools are the agent's tools in upstream order (envs.Domain.AgentTools()).
	Tools []tool.Info
	// Seed is sent with every call (upstream passes the trial's seed); nil
	// sends none.
	Seed *int
	// Temperature overrides the backbone's temperature; nil keeps the
	// backbone's (upstream runs agents at 0.0, which backbones.yaml sets).
	Temperature *float64
	// SystemPrompt is the system message: Prompt.System(Policy) for
	// upstream's LLMAgent (LoadPrompt reads it from the pulled sources).
	SystemPrompt string
	// Name is the implementation name written into the report ("baseline"
	// when empty).
	Name string
	// ToolChoice is sent with every call ("" sends upstream's default,
	// "auto"; the solo agent sends "required": see Solo.Options).
	ToolChoice string
}

// Agent is one conversation's agent. It is not safe for concurrent use
// (the orchestrator calls it from one goroutine); Report may be called at
// any time.
type Agent struct {
	gen    Generator
	tools  []tool.Info
	seed   *int
	temp   *float64
	name   string
	choice string

	// msgs is the state: the system message, then every message seen or
	// produced, in order.
	msgs []message.Message

	mu  sync.Mutex
	rep Report
}

// Report is what the agent adds to a simulation record (AgentInfo).
type Report struct {
	Implementation string `json:"implementation"`
	// ModelCalls counts Generate calls that returned a reply.
	ModelCalls int `json:"model_calls"`
	// Usage and Cost sum the replies' usage and cost.
	Usage message.Usage `json:"usage"`
	Cost  float64       `json:"cost"`
	// CachedCalls counts replies served from the response cache.
	CachedCalls int `json:"cached_calls,omitempty"`
	// MalformedArgs counts tool calls whose arguments were not valid JSON
	// (they are answered by the environment with an error).
	MalformedArgs int `json:"malformed_args,omitempty"`
	// EmptyReplies counts replies with neither text nor tool calls.
	EmptyReplies int `json:"empty_replies,omitempty"`
	// Backbone is the generator's own report when it has one (offline
	// backbones report the faults they injected).
	Backbone any `json:"backbone,omitempty"`
}

// reporter is implemented by generators that report on themselves.
type reporter interface{ Report() any }

// New returns an agent over gen.
func New(gen Generator, opts Options) *Agent {
	prompt := opts.SystemPrompt
	name := opts.Name
	if name == "" {
		name = "baseline"
	}
	msgs := make([]message.Message, 1, 64)
	msgs[0] = message.Message{Role: message.System, Content: prompt}
	return &Agent{gen: gen, tools: opts.Tools, seed: opts.Seed, temp: opts.Temperature, name: name, msgs: msgs,
		choice: opts.ToolChoice, rep: Report{Implementation: name}}
}

// Next answers the messages addressed to the agent with one model call.
func (a *Agent) Next(ctx context.Context, incoming []message.Message) (message.Message, error) {
	a.Observe(incoming)
	msg, err := a.Generate(ctx, a.Request())
	if err != nil {
		return message.Message{}, err
	}
	a.Commit(msg)
	return msg, nil
}

// Observe appends incoming messages to the state (the results of several
// tool calls are appended one by one, as upstream does with a
// MultiToolMessage).
func (a *Agent) Observe(incoming []message.Message) {
	a.msgs = append(a.msgs, incoming...)
}

// Commit appends the agent's own message to the state.
func (a *Agent) Commit(m message.Message) {
	m.Role = message.Assistant
	a.msgs = append(a.msgs, m)
}

// Messages returns the state: the system message first. The slice is the
// agent's own; do not modify it.
func (a *Agent) Messages() []message.Message { return a.msgs }

// SystemMessage returns the system prompt.
func (a *Agent) SystemMessage() string { return a.msgs[0].Content }

// Tools returns the tools offered to the model.
func (a *Agent) Tools() []tool.Info { return a.tools }

// Request returns the request of the next turn: the whole state, the tools
// (tool_choice auto, or Options.ToolChoice), the seed and the temperature override. Its Messages
// share elements with the state but have no spare capacity, so a caller may
// append to them (a ledger block, a helper's question) without touching the
// state; elements must not be modified in place.
func (a *Agent) Request() llm.Request {
	n := len(a.msgs)
	return llm.Request{Messages: a.msgs[:n:n], Tools: a.tools, Seed: a.seed, Temperature: a.temp, ToolChoice: a.choice}
}

// AppendToSystem returns req with text appended to its first message (the
// system prompt), e.g. a rendered ledger block, without touching the
// agent's state: the message slice is copied.
func AppendToSystem(req llm.Request, text string) llm.Request {
	if len(req.Messages) == 0 {
		return req
	}
	msgs := make([]message.Message, len(req.Messages))
	copy(msgs, req.Messages)
	msgs[0].Content += text
	req.Messages = msgs
	return req
}

// Generate makes one model call and accounts it. The reply is returned as an
// assistant message but not added to the state (see Commit). A failed call
// returns an error wrapping fault.ErrInfrastructure (llm.Failed) when the backbone
// failed (and keeping the backbone's error chain, e.g.
// llm.ErrContextLength); context errors are returned as they are.
func (a *Agent) Generate(ctx context.Context, req llm.Request) (message.Message, error) {
	resp, err := a.gen.Generate(ctx, req)
	if err != nil {
		return message.Message{}, llm.Failed("agent", err)
	}
	m := resp.Message
	m.Role = message.Assistant
	if m.Usage == nil {
		u := resp.Usage
		m.Usage = &u
		m.Cost = resp.Cost
	}
	a.mu.Lock()
	a.rep.ModelCalls++
	a.rep.Usage = a.rep.Usage.Add(resp.Usage)
	a.rep.Cost += resp.Cost
	if resp.Cached {
		a.rep.CachedCalls++
	}
	a.rep.MalformedArgs += resp.MalformedArgs
	if resp.Empty() {
		a.rep.EmptyReplies++
	}
	a.mu.Unlock()
	return m, nil
}

// ModelCalls is the number of model calls made so far.
func (a *Agent) ModelCalls() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rep.ModelCalls
}

// Report returns the agent's report (orchestrator.Reporter).
func (a *Agent) Report() any {
	a.mu.Lock()
	r := a.rep
	a.mu.Unlock()
	if g, ok := a.gen.(reporter); ok {
		r.Backbone = g.Report()
	}
	return r
}

var (
	_ orchestrator.Agent    = (*Agent)(nil)
	_ orchestrator.Reporter = (*Agent)(nil)
	_ Generator             = (*llm.Client)(nil)
)
