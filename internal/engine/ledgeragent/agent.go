package ledgeragent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
)

// Mode selects the parts of the method: both (LedgerAgent), the ledger only,
// or the gate only.
type Mode struct {
	Ledger bool // render the ledger into every prompt
	Gate   bool // judge write calls before they run
}

// Placement is where the rendered ledger goes in each request.
type Placement string

const (
	// PlacementSystem appends the ledger to the system message (the
	// paper's reading; the default): the conversation after it stops
	// being a cacheable prefix whenever the ledger changes.
	PlacementSystem Placement = "system"
	// PlacementTail sends the ledger as a system message after the
	// history, the last one before generation: the system message and the
	// history stay a stable prefix for the provider's prompt cache.
	PlacementTail Placement = "tail"
)

// ParsePlacement reads a placement name ("" is the default, system).
func ParsePlacement(s string) (Placement, error) {
	switch p := Placement(s); p {
	case "":
		return PlacementSystem, nil
	case PlacementSystem, PlacementTail:
		return p, nil
	}
	return "", fmt.Errorf("unknown ledger placement %q (known: %s, %s)", s, PlacementSystem, PlacementTail)
}

// Modes by agent name.
var (
	Full       = Mode{Ledger: true, Gate: true}
	LedgerOnly = Mode{Ledger: true}
	GateOnly   = Mode{Gate: true}
)

// Name returns the agent name of a mode ("ledger", "ledger-only", "gate-only").
func (m Mode) Name() string {
	switch m {
	case Full:
		return "ledger"
	case LedgerOnly:
		return "ledger-only"
	case GateOnly:
		return "gate-only"
	}
	return "baseline"
}

// FeedbackPrefix starts every gate feedback message the model sees, so that
// scripted backbones (internal/engine/offline's sim) can recognise it.
const FeedbackPrefix = "POLICY GATE"

// MaxGatedRounds bounds how often the agent regenerates in one turn when the
// gate removed every call it proposed.
const MaxGatedRounds = 4

// TurnStats describes one generation.
type TurnStats struct {
	Entries     int `json:"entries"`
	RenderChars int `json:"render_chars"`
	PromptChars int `json:"prompt_chars"`
	// Ledger holds the rendered ledger lines ("path: value") that are new or
	// changed since the previous generation, so a viewer can rebuild the
	// ledger as it stood at every turn (entries are never removed).
	Ledger []string `json:"ledger,omitempty"`
	// Reply numbers the agent message this generation led to (0 for the
	// first reply after the greeting); regenerations share their reply.
	Reply int `json:"reply"`
}

// Report is what the agent adds to the simulation record.
type Report struct {
	Implementation string          `json:"implementation"`
	Mode           Mode            `json:"mode"`
	Verdicts       []TurnVerdict   `json:"verdicts,omitempty"`
	Turns          []TurnStats     `json:"turns,omitempty"`
	Regenerations  int             `json:"regenerations,omitempty"`
	Base           baseline.Report `json:"base"`
}

// TurnVerdict is a verdict with the generation it belongs to and, for a
// call the gate stopped, the feedback the model got as the call's tool
// result (the trajectory holds neither the call nor the feedback).
type TurnVerdict struct {
	Turn int `json:"turn"`
	ledger.Verdict
	Feedback string `json:"feedback,omitempty"`
}

// pendingCall remembers a call sent to the environment so its result can be
// routed into the ledger.
type pendingCall struct {
	name  string
	args  json.RawMessage
	read  bool
	write int // write log index, -1 for non-writes
}

// Agent is LedgerAgent around a baseline agent: same prompt, same tools, same
// history; the ledger block is added to the system message before each
// generation and the gate filters proposed writes.
type Agent struct {
	base *baseline.Agent
	dom  envs.Domain
	pol  Policy
	// router absorbs read returns (RouterOf: solo domains route phone reads)
	router ledger.Router
	gate   *ledger.Gate
	led    *ledger.Ledger
	mode   Mode
	// Placement is where the ledger goes ("": PlacementSystem); the
	// ledger's text is the same either way.
	Placement Placement
	// pending holds the calls sent out per id, oldest first: a result
	// answers the oldest unanswered call with its id (providers reuse ids).
	pending map[string][]pendingCall
	// shown is the ledger render of the previous generation; replies counts
	// the messages Next returned.
	shown   string
	replies int

	mu  sync.Mutex
	rep Report
}

// New wraps a baseline agent. The domain must provide a Policy.
func New(base *baseline.Agent, dom envs.Domain, mode Mode) (*Agent, error) {
	pol, ok := PolicyOf(dom)
	if !ok {
		return nil, fmt.Errorf("domain %s has no ledger path map and gate predicates", dom.Name())
	}
	return &Agent{
		base: base, dom: dom, pol: pol, router: RouterOf(dom, pol), gate: NewGate(dom, pol), led: ledger.New(), mode: mode,
		pending: map[string][]pendingCall{},
		rep:     Report{Implementation: mode.Name(), Mode: mode},
	}, nil
}

// Ledger exposes the agent's ledger (for tests and audits).
func (a *Agent) Ledger() *ledger.Ledger { return a.led }

// Next absorbs incoming read results, then generates; with the gate on, each
// proposed write is judged on its own: allowed calls go out, revised or
// blocked ones are removed and answered (in the agent's own history only)
// with the gate's feedback. When nothing is left to send, the agent keeps its
// turn and generates again.
//
// Every write of one message is judged against the ledger as it stood when
// the message was generated: the message's own reads have not returned yet
// (shadow audits, Shadow, judge recorded messages the same way).
func (a *Agent) Next(ctx context.Context, incoming []message.Message) (message.Message, error) {
	msg, err := a.next(ctx, incoming)
	if err == nil {
		a.replies++
	}
	return msg, err
}

func (a *Agent) next(ctx context.Context, incoming []message.Message) (message.Message, error) {
	a.absorb(incoming)
	a.base.Observe(incoming)
	for round := 0; ; round++ {
		req := a.base.Request()
		block := a.led.Render()
		stats := TurnStats{Entries: a.led.Len(), Ledger: changedLines(a.shown, block), Reply: a.replies}
		a.shown = block
		if a.mode.Ledger && block != "" {
			req = placeLedger(req, block, a.Placement)
			stats.RenderChars = len(block)
		}
		for _, m := range req.Messages {
			stats.PromptChars += len(m.Content)
		}
		msg, err := a.base.Generate(ctx, req)
		if err != nil {
			return message.Message{}, err
		}
		turn := a.noteTurn(stats)
		if !a.mode.Gate || len(msg.ToolCalls) == 0 {
			a.track(msg.ToolCalls)
			a.base.Commit(msg)
			return msg, nil
		}
		kept, feedback, err := a.judge(turn, msg.ToolCalls)
		if err != nil {
			return message.Message{}, err
		}
		if len(feedback) == 0 {
			a.base.Commit(msg)
			return msg, nil
		}
		// The agent's own history keeps every proposed call, each answered:
		// the gated ones by the gate's feedback now, the others by the
		// environment when their results arrive.
		a.base.Commit(msg)
		a.base.Observe(feedback)
		out := msg
		out.ToolCalls = kept
		if len(kept) > 0 || out.HasText() {
			return out, nil
		}
		if round+1 >= MaxGatedRounds {
			// The model keeps proposing refused actions: hand the turn back
			// to the user with the gate's reasons.
			out.Content = "I'm sorry, I can't complete that action under our policy: " + feedbackReasons(feedback)
			a.base.Commit(message.Message{Role: message.Assistant, Content: out.Content})
			return out, nil
		}
		a.mu.Lock()
		a.rep.Regenerations++
		a.mu.Unlock()
	}
}

// changedLines returns the entry lines of the render now that the render
// before lacks.
func changedLines(before, now string) []string {
	if before == now {
		return nil
	}
	old := map[string]bool{}
	for _, l := range strings.Split(before, "\n") {
		old[l] = true
	}
	var out []string
	for _, l := range strings.Split(strings.TrimPrefix(now, ledger.RenderHeader), "\n") {
		if l != "" && l != "</ledger>" && !old[l] {
			out = append(out, l)
		}
	}
	return out
}

func feedbackReasons(fb []message.Message) string {
	var parts []string
	for _, m := range fb {
		parts = append(parts, strings.TrimSpace(strings.TrimPrefix(m.Content, FeedbackPrefix+":")))
	}
	return strings.Join(parts, " ")
}

func (a *Agent) noteTurn(s TurnStats) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rep.Turns = append(a.rep.Turns, s)
	return len(a.rep.Turns) - 1
}

// judge splits proposed calls into those that go out and the feedback for
// those that do not. A harness error of the gate (a predicate panicked) is
// returned as the infrastructure error that ends the simulation: it is the
// harness's failure, never fed back to the model as a verdict.
func (a *Agent) judge(turn int, calls []message.ToolCall) ([]message.ToolCall, []message.Message, error) {
	var kept []message.ToolCall
	var feedback []message.Message
	for _, tc := range calls {
		if !a.gate.Guards(tc.Name) {
			kept = append(kept, tc)
			a.track([]message.ToolCall{tc})
			continue
		}
		v := a.gate.Judge(a.led, tc.Name, tc.ID, tc.Arguments)
		tv := TurnVerdict{Turn: turn, Verdict: v}
		if v.Decision != ledger.Allow {
			tv.Feedback = FeedbackText(v)
		}
		a.mu.Lock()
		a.rep.Verdicts = append(a.rep.Verdicts, tv)
		a.mu.Unlock()
		if err := v.Err(); err != nil {
			return nil, nil, err
		}
		if v.Decision == ledger.Allow {
			kept = append(kept, tc)
			a.trackDecoded(tc, v.Decoded)
			continue
		}
		feedback = append(feedback, message.Message{
			Role: message.Tool, ToolCallID: tc.ID, Requestor: message.ByAssistant, Error: true,
			Content: tv.Feedback,
		})
	}
	return kept, feedback, nil
}

// FeedbackText is the message the model gets for a revised or blocked call:
// every failing predicate's reason, each labelled with its clause and id, the
// deciding one first.
func FeedbackText(v ledger.Verdict) string {
	parts := []string{v.Reason + label(v.Clause, v.Predicate)}
	for _, f := range v.Predicates {
		if f.ID != v.Predicate {
			parts = append(parts, f.Reason+label(f.Clause, f.ID))
		}
	}
	body := strings.Join(parts, " ")
	switch v.Decision {
	case ledger.Block:
		return fmt.Sprintf("%s: BLOCK — %s The call was not executed and this action is not allowed; do not retry it. Explain to the user.", FeedbackPrefix, body)
	default:
		return fmt.Sprintf("%s: REVISE — %s The call was not executed. Correct it (read the missing records first if needed) and try again.", FeedbackPrefix, body)
	}
}

func label(clause, id string) string {
	switch {
	case clause != "":
		return fmt.Sprintf(" (policy: %s; check %s)", clause, id)
	case id != "":
		return fmt.Sprintf(" (check %s)", id)
	}
	return ""
}

// track remembers calls that go to the environment.
func (a *Agent) track(calls []message.ToolCall) {
	for _, tc := range calls {
		a.trackDecoded(tc, a.gate.Decode(tc.Name, tc.Arguments))
	}
}

// trackDecoded remembers one call, a write with its arguments as the gate
// decoded them.
func (a *Agent) trackDecoded(tc message.ToolCall, decoded any) {
	pc := pendingCall{name: tc.Name, args: tc.Arguments, write: -1}
	if ti, ok := envs.ToolInfo(a.dom, message.ByAssistant, tc.Name); ok {
		pc.read = isRead(a.dom, a.pol, tc.Name, tc.Arguments)
		if ti.Mutates() && !observes(a.pol, tc.Name, tc.Arguments) {
			pc.write = a.led.LogWrite(tc.Name, tc.Arguments, decoded)
		}
	}
	a.pending[tc.ID] = append(a.pending[tc.ID], pc)
}

// absorb routes successful read results into the ledger and resolves writes.
func (a *Agent) absorb(incoming []message.Message) {
	for _, m := range incoming {
		if m.Role != message.Tool {
			continue
		}
		q := a.pending[m.ToolCallID]
		if len(q) == 0 {
			continue
		}
		pc := q[0]
		if len(q) == 1 {
			delete(a.pending, m.ToolCallID)
		} else {
			a.pending[m.ToolCallID] = q[1:]
		}
		switch {
		case pc.write >= 0:
			a.led.Resolve(pc.write, !m.Error)
		case pc.read && !m.Error:
			a.led.Absorb(a.router, pc.name, pc.args, m.Content)
		}
	}
}

// ModelCalls is the number of model calls made so far (regenerations after
// the gate removed every proposed call included).
func (a *Agent) ModelCalls() int { return a.base.ModelCalls() }

// Report returns the agent's report (orchestrator.Reporter).
func (a *Agent) Report() any {
	a.mu.Lock()
	r := a.rep
	r.Verdicts = append([]TurnVerdict(nil), a.rep.Verdicts...)
	r.Turns = append([]TurnStats(nil), a.rep.Turns...)
	a.mu.Unlock()
	if b, ok := a.base.Report().(baseline.Report); ok {
		r.Base = b
	}
	return r
}

var (
	_ orchestrator.Agent    = (*Agent)(nil)
	_ orchestrator.Reporter = (*Agent)(nil)
)

// placeLedger adds the rendered ledger block to a request: appended to the
// system message (PlacementSystem) or as a system message after the
// history (PlacementTail), the same text either way.
func placeLedger(req llm.Request, block string, p Placement) llm.Request {
	if p != PlacementTail {
		return baseline.AppendToSystem(req, "\n"+block)
	}
	msgs := make([]message.Message, len(req.Messages), len(req.Messages)+1)
	copy(msgs, req.Messages)
	req.Messages = append(msgs, message.Message{Role: message.System, Content: block})
	return req
}
