package offline

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Fault kinds of the sim backbone.
const (
	FaultStale     = "stale_state"
	FaultViolation = "policy_violation"
	FaultMiss      = "missed_action"
)

// Fault is one fault the sim backbone drew for a gold step.
type Fault struct {
	Kind string `json:"kind"`
	// Step is the index of the gold action (the first one of a user step).
	Step int    `json:"step"`
	Tool string `json:"tool"`
	// Argument is the path of the changed argument (stale state, policy
	// violation), From and To its gold and injected values.
	Argument string `json:"argument,omitempty"`
	From     string `json:"from,omitempty"`
	To       string `json:"to,omitempty"`
	// CallID is the injected call's id.
	CallID string `json:"call_id,omitempty"`
	// Applied is false when the fault could not be injected (no other value
	// of the argument's kind was visible in earlier tool outputs).
	Applied bool `json:"applied"`
	// Corrected is set when gate feedback made the agent take it back.
	Corrected bool `json:"corrected,omitempty"`
}

// AgentReport is what a scripted agent backbone reports (it ends up in the
// record's agent_info under "backbone").
type AgentReport struct {
	Backbone string `json:"backbone"`
	// Simulated marks the sim backbone: its faults are injected, not model
	// behaviour.
	Simulated bool   `json:"simulated"`
	Rates     *Rates `json:"rates,omitempty"`
	Seed      int64  `json:"seed"`
	// GoldActions is the number of gold actions scripted.
	GoldActions int     `json:"gold_actions"`
	Faults      []Fault `json:"faults"`
	// GateFeedback counts generations that saw gate feedback.
	GateFeedback int `json:"gate_feedback"`
	// GateRefusedGold lists gold calls the gate refused (false positives).
	GateRefusedGold []string `json:"gate_refused_gold,omitempty"`
}

type step struct {
	user    bool
	actions []tasks.Action
	index   int // gold index of actions[0]
	write   bool
	fault   string // drawn fault kind, "" for none
}

type emitted struct {
	action tasks.Action
	fault  int // index in rep.Faults, -1 for a gold call
}

type pending struct {
	call  message.ToolCall
	fault int
}

// Agent is the scripted agent of the gold and sim backbones: a Generator
// for one simulation. It is safe for concurrent use, though a conversation
// calls it from one goroutine.
type Agent struct {
	task  *tasks.Task
	rng   *rand.Rand
	idPfx string

	// solo is the stop tool's name in a solo run ("" otherwise); queue
	// holds the rest of a user step the solo agent performs itself.
	solo  string
	queue []tasks.Action

	mu        sync.Mutex
	steps     []step
	pos       int
	closed    bool
	calls     int
	last      *emitted
	violation *pending
	rep       AgentReport
}

// NewGoldAgent returns the gold agent of a task: its gold assistant actions
// in order (each preceded by the reads evidence[i] names for gold action i,
// see ledgeragent.EvidencePlan; nil: none), requests for its user actions,
// then the communicate_info items.
func NewGoldAgent(dom envs.Domain, task *tasks.Task, evidence [][]message.ToolCall) *Agent {
	a := newAgent(dom, task, "gold", evidence)
	a.rep = AgentReport{Backbone: string(Gold), GoldActions: len(task.GoldActions()), Faults: []Fault{}}
	return a
}

// NewSimAgent returns the sim agent of a task: the gold script (with the
// evidence reads of NewGoldAgent) with faults drawn per step from a
// generator seeded by seed, the task id and rates.Seed, so a (task, seed,
// rates, evidence) tuple always gives the same run.
func NewSimAgent(dom envs.Domain, task *tasks.Task, seed int64, rates Rates, evidence [][]message.ToolCall) *Agent {
	a := newAgent(dom, task, "sim", evidence)
	h := fnv.New64a()
	h.Write([]byte(task.ID))
	a.rng = rand.New(rand.NewPCG(uint64(seed), h.Sum64()^rates.Seed))
	r := rates
	a.rep = AgentReport{Backbone: string(Sim), Simulated: true, Rates: &r, Seed: seed,
		GoldActions: len(task.GoldActions()), Faults: []Fault{}}
	for i := range a.steps {
		st := &a.steps[i]
		u := a.rng.Float64()
		switch {
		case st.user:
			if u < rates.Miss {
				st.fault = FaultMiss
			}
		case !st.write:
		case u < rates.Stale:
			st.fault = FaultStale
		case u < rates.Stale+rates.Violation:
			st.fault = FaultViolation
		case u < rates.Stale+rates.Violation+rates.Miss:
			st.fault = FaultMiss
		}
	}
	return a
}

// Solo makes the scripted agent play τ²-bench's solo mode (no user): it
// performs the user's gold actions itself, one tool call per turn, in gold
// order (the sim backbone's missed_action fault drops a whole user step, as
// it drops a request to the user otherwise), and ends with a call of
// stopTool instead of a closing message. It returns a.
func (a *Agent) Solo(stopTool string) *Agent {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.solo = stopTool
	return a
}

func newAgent(dom envs.Domain, task *tasks.Task, prefix string, evidence [][]message.ToolCall) *Agent {
	a := &Agent{task: task, idPfx: prefix + "_call_"}
	for i, act := range task.GoldActions() {
		if act.By() == string(message.ByUser) {
			if n := len(a.steps); n > 0 && a.steps[n-1].user {
				a.steps[n-1].actions = append(a.steps[n-1].actions, act)
				continue
			}
			a.steps = append(a.steps, step{user: true, actions: []tasks.Action{act}, index: i})
			continue
		}
		if i < len(evidence) {
			// The reads a careful agent makes before this write; they
			// change no state, so the DB check is unaffected.
			for _, r := range evidence[i] {
				a.steps = append(a.steps, step{actions: []tasks.Action{{Name: r.Name, Arguments: r.Arguments}}, index: -1})
			}
		}
		ti, _ := envs.ToolInfo(dom, message.ByAssistant, act.Name)
		a.steps = append(a.steps, step{actions: []tasks.Action{act}, index: i, write: ti.Mutates()})
	}
	return a
}

// Report returns the backbone's report.
func (a *Agent) Report() any {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.rep
	r.Faults = append([]Fault{}, a.rep.Faults...)
	r.GateRefusedGold = append([]string(nil), a.rep.GateRefusedGold...)
	return r
}

func (a *Agent) newCall(name string, args json.RawMessage) message.ToolCall {
	a.calls++
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return message.ToolCall{ID: a.idPfx + strconv.Itoa(a.calls), Name: name, Arguments: args}
}

func callReply(c message.ToolCall) llm.Response {
	return reply(message.Message{ToolCalls: []message.ToolCall{c}})
}

// Generate plays the next turn of the script.
func (a *Agent) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctxErr(ctx); err != nil {
		return llm.Response{}, err
	}
	if helperRequest(req) {
		return text(HelperReply), nil // IRMA's helper call: the script does not move
	}
	a.mu.Lock()
	defer a.mu.Unlock()

	last := a.last
	a.last = nil
	if last != nil && gateFeedback(req.Messages) {
		a.rep.GateFeedback++
		switch {
		case last.fault < 0:
			a.rep.GateRefusedGold = append(a.rep.GateRefusedGold, last.action.Name)
		case a.rep.Faults[last.fault].Kind == FaultStale:
			a.rep.Faults[last.fault].Corrected = true
			c := a.newCall(last.action.Name, last.action.Arguments)
			a.last = &emitted{action: last.action, fault: -1}
			return callReply(c), nil
		default: // a policy violation is dropped
			a.rep.Faults[last.fault].Corrected = true
		}
	}
	if v := a.violation; v != nil {
		a.violation = nil
		a.last = &emitted{action: tasks.Action{Name: v.call.Name, Arguments: v.call.Arguments}, fault: v.fault}
		return callReply(v.call), nil
	}
	if len(a.queue) > 0 {
		act := a.queue[0]
		a.queue = a.queue[1:]
		a.last = &emitted{action: act, fault: -1}
		return callReply(a.newCall(act.Name, act.Arguments)), nil
	}
	for a.pos < len(a.steps) {
		st := &a.steps[a.pos]
		a.pos++
		if st.user {
			if st.fault == FaultMiss {
				a.record(Fault{Kind: FaultMiss, Step: st.index, Tool: st.actions[0].Name, Applied: true})
				continue
			}
			if a.solo != "" {
				act := st.actions[0]
				a.queue = append(a.queue[:0], st.actions[1:]...)
				a.last = &emitted{action: act, fault: -1}
				return callReply(a.newCall(act.Name, act.Arguments)), nil
			}
			return text(requestText(st.actions)), nil
		}
		act := st.actions[0]
		switch st.fault {
		case FaultMiss:
			a.record(Fault{Kind: FaultMiss, Step: st.index, Tool: act.Name, Applied: true})
			continue
		case FaultStale:
			if m, ok := mutate(act.Arguments, req.Messages, a.rng, false); ok {
				c := a.newCall(act.Name, m.args)
				i := a.record(Fault{Kind: FaultStale, Step: st.index, Tool: act.Name, Argument: m.path,
					From: m.from, To: m.to, CallID: c.ID, Applied: true})
				a.last = &emitted{action: act, fault: i}
				return callReply(c), nil
			}
			a.record(Fault{Kind: FaultStale, Step: st.index, Tool: act.Name})
		case FaultViolation:
			if m, ok := mutate(act.Arguments, req.Messages, a.rng, true); ok {
				gold := a.newCall(act.Name, act.Arguments)
				c := a.newCall(act.Name, m.args)
				i := a.record(Fault{Kind: FaultViolation, Step: st.index, Tool: act.Name, Argument: m.path,
					From: m.from, To: m.to, CallID: c.ID, Applied: true})
				a.violation = &pending{call: c, fault: i}
				a.last = &emitted{action: act, fault: -1}
				return callReply(gold), nil
			}
			a.record(Fault{Kind: FaultViolation, Step: st.index, Tool: act.Name})
		}
		c := a.newCall(act.Name, act.Arguments)
		a.last = &emitted{action: act, fault: -1}
		return callReply(c), nil
	}
	if a.solo != "" {
		return callReply(a.newCall(a.solo, nil)), nil
	}
	if !a.closed {
		a.closed = true
		return text(closing(a.task)), nil
	}
	return text(afterClosing), nil
}

func (a *Agent) record(f Fault) int {
	a.rep.Faults = append(a.rep.Faults, f)
	return len(a.rep.Faults) - 1
}

// User is the scripted user of the gold and sim backbones: it states the
// reason for the call, performs the calls the agent asks for (RequestPrefix
// messages) one per turn and then says it is done, and ends the
// conversation with ###STOP### at any other agent message.
type User struct {
	first string

	mu      sync.Mutex
	pending []message.ToolCall
	calls   int
	rep     UserReport
}

// UserReport is what the scripted user reports.
type UserReport struct {
	Backbone string `json:"backbone"`
	// Requests counts the agent's requests for user actions; Calls the
	// calls made.
	Requests int `json:"requests"`
	Calls    int `json:"calls"`
}

// NewUser returns the scripted user of a task.
func NewUser(task *tasks.Task) *User {
	return &User{first: reasonForCall(task), rep: UserReport{Backbone: "scripted_user"}}
}

// Report returns the scripted user's report.
func (u *User) Report() any {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.rep
}

// Generate plays the user's next turn. The request is the user simulator's
// (roles flipped: the agent's text is "user", the user's own turns are
// "assistant", its tool results "tool").
func (u *User) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctxErr(ctx); err != nil {
		return llm.Response{}, err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	msgs := req.Messages
	if !hasSpoken(msgs) {
		return text(u.first), nil
	}
	var last message.Message
	if len(msgs) > 0 {
		last = msgs[len(msgs)-1]
	}
	if last.Role == message.User {
		calls, ok := ParseRequest(last.Content)
		if !ok {
			return text(userStop), nil
		}
		u.rep.Requests++
		u.pending = calls
	}
	if len(u.pending) > 0 {
		c := u.pending[0]
		u.pending = u.pending[1:]
		u.calls++
		u.rep.Calls++
		c.ID = "user_call_" + strconv.Itoa(u.calls)
		return reply(message.Message{ToolCalls: []message.ToolCall{c}}), nil
	}
	return text(userDone), nil
}
