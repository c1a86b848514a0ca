// Package offline provides backbones that need no model: Generators that the
// real agents (baseline, LedgerAgent) and the real user simulators run on
// unchanged, built per simulation from the task.
//
//   - gold: the agent plays the task's gold assistant actions in order, one
//     tool call per turn; when the next gold actions belong to the user
//     (telecom), the agent asks for them in a text message (RequestPrefix,
//     then one "- name {arguments}" line per call) and the scripted user
//     performs them, one call per turn, then says it is done. After the last
//     action the agent states every communicate_info item; the user then
//     sends ###STOP###. The user's first message states the reason for the
//     call.
//     In solo mode (Agent.Solo) there is no user: the agent performs the
//     user's gold actions itself and ends with the stop tool.
//   - replay: plays a recorded τ²-bench trajectory's assistant and user turns
//     for the same task and trial; tool outputs come from our environment.
//   - sim: the gold script with the paper's failure modes injected at
//     seeded, configurable rates (stale or wrong state, policy-violating
//     writes, missed actions). Every injected fault is reported; all of it is
//     simulated, not model behaviour.
//
// # Gate feedback (for LedgerAgent)
//
// The sim and gold agents recognise the policy gate's feedback: any message
// in the request after the agent's last assistant message whose content
// starts with GateMarker ("POLICY GATE") — a tool message answering the
// refused call, or an extra user or system message. The sim agent then
// replaces its faulty call by the gold call (stale state) or drops it
// (policy violation); when the refused call was the gold call itself (a gate
// false positive), it moves on to the next gold step, so a run never loops.
// LedgerAgent must therefore start every REVISE/BLOCK feedback text with
// GateMarker and put it in the request of the agent's next generation.
//
// # Helper requests (for IRMA)
//
// The IRMA agent (package irma) makes extra helper calls on the agent's
// backbone. A request whose first message starts with HelperMarker is such a
// call: the gold and sim agents (Agent) and the replay players (Player)
// answer it with HelperReply, at zero cost, and leave their script untouched
// (no step is played, consumed or reported), so a scripted run plays the
// same turns under IRMA as under the baseline. The scripted user (User)
// never receives helper requests.
package offline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// GateMarker starts every policy-gate feedback text the offline agents
// recognise (see the package documentation).
const GateMarker = "POLICY GATE"

// HelperMarker starts the first message of every IRMA helper request (see
// the package documentation); irma.HelperMarker has the same value.
const HelperMarker = "IRMA HELPER"

// HelperReply is the offline backbones' fixed answer to a helper request.
const HelperReply = "(no helper output: offline backbone)"

// helperRequest reports whether req is an IRMA helper call.
func helperRequest(req llm.Request) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, HelperMarker)
}

// RequestPrefix starts the scripted agent's request that the user perform
// tool calls on their side; the calls follow, one "- name {json}" line each.
const RequestPrefix = "Please do the following on your device, in this order, and tell me when you are done:"

// Fixed texts of the scripted participants.
const (
	closingWithInfo = "Everything is taken care of. Here is what you need to know:"
	closingPlain    = "Everything you asked for is taken care of. Is there anything else I can help you with?"
	afterClosing    = "Is there anything else I can help you with?"
	userDone        = "Done. I did everything you asked."
	userStop        = "Thank you, that is all I needed. ###STOP###"
)

// Kind names an offline backbone.
type Kind string

const (
	Gold   Kind = "gold"
	Replay Kind = "replay"
	Sim    Kind = "sim"
)

// Backbone is a parsed offline backbone name: "gold", "replay:FILE" or
// "sim[:stale=R,violation=R,miss=R,seed=N]".
type Backbone struct {
	Kind  Kind
	File  string // replay
	Rates Rates  // sim
}

// String is the backbone's canonical name.
func (b Backbone) String() string {
	switch b.Kind {
	case Replay:
		return "replay:" + b.File
	case Sim:
		return "sim:" + b.Rates.String()
	}
	return string(b.Kind)
}

// Rates are the sim backbone's fault probabilities per gold step. Stale and
// Violation apply to agent write steps, Miss to agent write steps and to
// requests for user actions; their sum must not exceed 1.
type Rates struct {
	// Stale replaces an argument of a gold write by another value of the
	// same kind seen in earlier tool outputs (another payment method, item,
	// order or line of the same user).
	Stale float64 `json:"stale"`
	// Violation adds, after the gold write, the same write on another entity
	// of the user (another order, reservation, line): a write nobody asked
	// for, which policy forbids.
	Violation float64 `json:"violation"`
	// Miss skips the step.
	Miss float64 `json:"miss"`
	// Seed is mixed into each simulation's seed (default 0).
	Seed uint64 `json:"seed"`
}

// DefaultRates are the rates of a bare "sim".
func DefaultRates() Rates { return Rates{Stale: 0.15, Violation: 0.1, Miss: 0.1} }

// String is the rates as the backbone name's parameters.
func (r Rates) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	s := "stale=" + f(r.Stale) + ",violation=" + f(r.Violation) + ",miss=" + f(r.Miss)
	if r.Seed != 0 {
		s += ",seed=" + strconv.FormatUint(r.Seed, 10)
	}
	return s
}

// Validate checks the rates.
func (r Rates) Validate() error {
	for _, x := range []struct {
		n string
		v float64
	}{{"stale", r.Stale}, {"violation", r.Violation}, {"miss", r.Miss}} {
		if x.v < 0 || x.v > 1 || x.v != x.v {
			return fmt.Errorf("sim: %s rate %v is outside [0, 1]", x.n, x.v)
		}
	}
	if r.Stale+r.Violation+r.Miss > 1+1e-9 {
		return fmt.Errorf("sim: rates add up to %v, more than 1", r.Stale+r.Violation+r.Miss)
	}
	return nil
}

// Parse reads an offline backbone name. ok is false when name is not an
// offline kind (it is then a model backbone's name).
func Parse(name string) (b Backbone, ok bool, err error) {
	kind, arg, hasArg := strings.Cut(name, ":")
	switch Kind(kind) {
	case Gold:
		if hasArg {
			return Backbone{}, true, errext.Usagef("offline backbone %q: gold takes no parameters", name)
		}
		return Backbone{Kind: Gold}, true, nil
	case Replay:
		if strings.TrimSpace(arg) == "" {
			return Backbone{}, true, errext.Usagef("offline backbone %q: replay needs a file: replay:PATH/results.json", name)
		}
		return Backbone{Kind: Replay, File: arg}, true, nil
	case Sim:
		r, err := parseRates(arg, hasArg)
		if err != nil {
			return Backbone{}, true, errext.Usagef("offline backbone %q: %w", name, err)
		}
		return Backbone{Kind: Sim, Rates: r}, true, nil
	}
	return Backbone{}, false, nil
}

func parseRates(s string, given bool) (Rates, error) {
	r := DefaultRates()
	if !given {
		return r, nil
	}
	if strings.TrimSpace(s) == "" {
		return r, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Rates{}, fmt.Errorf("%q is not name=value (names: stale, violation, miss, seed)", part)
		}
		if k == "seed" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return Rates{}, fmt.Errorf("seed: %w", err)
			}
			r.Seed = n
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return Rates{}, fmt.Errorf("%s: %w", k, err)
		}
		switch k {
		case "stale":
			r.Stale = x
		case "violation":
			r.Violation = x
		case "miss":
			r.Miss = x
		default:
			return Rates{}, fmt.Errorf("unknown parameter %q (names: stale, violation, miss, seed)", k)
		}
	}
	return r, r.Validate()
}

// reply wraps a message as a zero-cost response of an offline backbone.
func reply(m message.Message) llm.Response {
	m.Role = message.Assistant
	return llm.Response{Message: m, Attempts: 1, FinishReason: finish(m), Model: "offline"}
}

func finish(m message.Message) string {
	if len(m.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func text(s string) llm.Response { return reply(message.Message{Content: s}) }

// requestText is the agent's request that the user perform calls.
func requestText(calls []tasks.Action) string {
	var b strings.Builder
	b.WriteString(RequestPrefix)
	for _, a := range calls {
		b.WriteString("\n- ")
		b.WriteString(a.Name)
		b.WriteByte(' ')
		b.WriteString(compact(a.Arguments))
	}
	return b.String()
}

// ParseRequest reads the calls of a RequestPrefix message; ok is false for
// any other text.
func ParseRequest(s string) (calls []message.ToolCall, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(s), RequestPrefix)
	if !found {
		return nil, false
	}
	for _, line := range strings.Split(rest, "\n") {
		line = strings.TrimSpace(line)
		body, isItem := strings.CutPrefix(line, "- ")
		if !isItem {
			continue
		}
		name, args, _ := strings.Cut(body, " ")
		args = strings.TrimSpace(args)
		if args == "" {
			args = "{}"
		}
		calls = append(calls, message.ToolCall{Name: name, Arguments: json.RawMessage(args), Requestor: message.ByUser})
	}
	return calls, true
}

// compact returns JSON arguments on one line ({} when empty).
func compact(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}

// closing is the agent's final message: every communicate_info item on its
// own line, or a plain closing when there is none.
func closing(task *tasks.Task) string {
	var info []string
	if c := task.EvaluationCriteria; c != nil {
		info = c.CommunicateInfo
	}
	if len(info) == 0 {
		return closingPlain
	}
	return closingWithInfo + "\n" + strings.Join(info, "\n")
}

// reasonForCall is the scripted user's first message.
func reasonForCall(task *tasks.Task) string {
	in := task.UserScenario.Instructions
	s := in.Text
	if in.Structured != nil {
		s = in.Structured.ReasonForCall
	}
	// Free-text instructions (banking_knowledge's) tell the simulated user
	// when to say a stop token; the scripted user states them without it,
	// or the conversation would end at once.
	for _, tok := range orchestrator.StopTokens() {
		s = strings.ReplaceAll(s, tok, "")
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		s = "I need help with my request."
	}
	return s
}

// gateFeedback reports whether the request carries gate feedback after the
// agent's last assistant message.
func gateFeedback(msgs []message.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role == message.Assistant {
			return false
		}
		if strings.HasPrefix(strings.TrimSpace(m.Content), GateMarker) {
			return true
		}
	}
	return false
}

// hasSpoken reports whether the user model has produced a message yet (its
// own messages are "assistant" in the flipped request).
func hasSpoken(msgs []message.Message) bool {
	for _, m := range msgs {
		if m.Role == message.Assistant {
			return true
		}
	}
	return false
}

func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("offline backbone: %w", err)
	}
	return nil
}
