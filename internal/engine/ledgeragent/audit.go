package ledgeragent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/parallel"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// MutationReport is the recall of the gate on one kind of violation.
type MutationReport struct {
	Report string   `json:"report"`
	Domain string   `json:"domain"`
	Kind   string   `json:"kind"`
	Total  int      `json:"total"`
	Caught int      `json:"caught"`
	Missed []string `json:"missed,omitempty"` // task ids of uncaught mutations
	// HarnessErrors counts mutations the gate could not judge (a predicate
	// panicked); they are neither caught nor missed.
	HarnessErrors int `json:"harness_errors,omitempty"`
}

// RecordedReport is the shadow-mode gate audit of one recorded file's runs
// of one outcome, as recorded and as rescored against the pinned tasks.
type RecordedReport struct {
	Report  string `json:"report"`
	File    string `json:"file"`
	Domain  string `json:"domain"`
	Outcome string `json:"outcome"` // success | failure, as recorded
	// Rescored is the outcome against the pinned tasks ("-" when the run
	// was not rescored). Recordings made with older task versions can carry
	// stale labels.
	Rescored string `json:"rescored_outcome"`
	Runs     int    `json:"runs"`
	Writes   int    `json:"writes"`
	Revise   int    `json:"revise"`
	Block    int    `json:"block"`
	// Stopped writes (revised or blocked) split by what the environment did
	// with the recorded call: rejected it anyway, or let it through.
	StoppedEnvRejected int `json:"stopped_env_rejected"`
	StoppedNotRejected int `json:"stopped_not_rejected"`
	// Flagged counts runs with at least one non-allowed write.
	Flagged int `json:"flagged_runs"`
	// HarnessErrors counts writes the gate could not judge (a predicate
	// panicked): neither allowed nor stopped.
	HarnessErrors int `json:"harness_errors,omitempty"`
}

// RecordedRun is one recorded simulation to audit.
type RecordedRun struct {
	Index    int // position in the file's simulations
	TaskID   string
	Trial    int
	Messages []message.Message
	Reward   float64 // as recorded
	// Rescored is the reward against the pinned tasks (nil: not rescored).
	Rescored *float64
}

// PredicateReason is one failing predicate of a verdict.
type PredicateReason struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// RecordedVerdict is one non-allowed write of a recorded run.
type RecordedVerdict struct {
	Report          string            `json:"report"` // "verdict"
	File            string            `json:"file"`
	SimulationIndex int               `json:"simulation_index"`
	MessageIndex    int               `json:"message_index"`
	CallID          string            `json:"call_id"`
	TaskID          string            `json:"task_id"`
	Trial           int               `json:"trial"`
	Tool            string            `json:"tool"`
	Arguments       json.RawMessage   `json:"arguments"`
	Verdict         ledger.Decision   `json:"verdict"`
	Predicates      []PredicateReason `json:"predicates"`
	Outcome         string            `json:"outcome"`
	Rescored        string            `json:"rescored_outcome"`
	EnvRejected     bool              `json:"env_rejected"`
}

// state replays a task's gold actions with the evidence reads a careful
// agent makes, keeping the agent's ledger.
type state struct {
	dom    envs.Domain
	pol    Policy
	router ledger.Router
	aud    Auditor
	gate   *ledger.Gate
	env    envs.Env
	led    *ledger.Ledger
	callID int
}

// EvidencePlan is what the offline gold and sim scripts read before their
// gold writes when a LedgerAgent (or the baseline it is compared with) plays
// them: per gold action index, the domain's evidence reads (Auditor), made
// only where the gate, on the ledger the calls before built, would not allow
// the write without them. Gold trajectories hold most of the reads their
// writes need; a write that lacks one (many gold scripts hold no reads at
// all), or whose records may have changed since they were read (a user's own
// action, e.g. paying a bill on their phone, reaches the agent only through
// what it reads again), gets them. A read identical to one made since the
// last write or user action is not repeated: it would return the same. Nor,
// at first, is one made since the last user action whose answer the writes
// since left as it was (the user's id found by email after an order was
// cancelled): only when the gate still does not allow the write without it
// is it made again. A τ-Trait episode has 30 steps, and a gold script of
// seven writes (tautrait-retail train 351) cannot re-read every record
// before each.
//
// The walk is the live run's: the gold calls in order, successful agent
// reads absorbed by the agent's router, writes logged and resolved, in solo
// mode the user's actions made by the agent. Its Reads are nil for a domain
// without a ledger policy or gate auditor.
func EvidencePlan(ctx context.Context, dom envs.Domain, task *tasks.Task) (GoldScript, error) {
	gold := task.GoldActions()
	if _, ok := PolicyOf(dom); !ok {
		return GoldScript{}, nil
	}
	if _, ok := dom.(Auditor); !ok {
		return GoldScript{}, nil
	}
	s, err := newState(ctx, dom, task)
	if err != nil {
		return GoldScript{}, err
	}
	plan := make([][]message.ToolCall, len(gold))
	rejected := make([]bool, len(gold))
	solo := envs.IsSolo(dom)
	made := map[string]bool{} // reads since the last state change
	// answers holds what each read returned when last made since the last
	// user action.
	answers := map[string]string{}
	read := func(tc message.ToolCall) {
		res := s.call(ctx, tc)
		answers[tc.Name+string(tc.Arguments)] = res.Content
	}
	allowed := func(a tasks.Action) bool {
		return s.gate.Judge(s.led, a.Name, "", a.Arguments).Decision == ledger.Allow
	}
	for i, a := range gold {
		req := message.Requestor(a.By())
		if solo {
			req = message.ByAssistant
		}
		tc := message.ToolCall{Name: a.Name, Arguments: a.Arguments, Requestor: req}
		if req != message.ByAssistant {
			s.call(ctx, tc)
			clear(made)
			clear(answers)
			continue
		}
		ti, _ := envs.ToolInfo(dom, message.ByAssistant, a.Name)
		if !ti.Mutates() || observes(s.pol, a.Name, a.Arguments) {
			if ti.Mutates() {
				s.call(ctx, tc)
			} else {
				read(tc)
			}
			made[a.Name+string(a.Arguments)] = true
			continue
		}
		if s.gate.Guards(a.Name) && !allowed(a) {
			var unchanged []message.ToolCall
			for _, r := range s.aud.EvidenceReads(a.Name, a.Arguments) {
				key := r.Name + string(r.Arguments)
				if made[key] {
					continue
				}
				made[key] = true
				if last, ok := answers[key]; ok && s.peek(ctx, r) == last {
					unchanged = append(unchanged, r)
					continue
				}
				plan[i] = append(plan[i], r)
				read(r)
			}
			if len(unchanged) > 0 && !allowed(a) {
				for _, r := range unchanged {
					plan[i] = append(plan[i], r)
					read(r)
				}
			}
		}
		idx := s.led.LogWrite(a.Name, a.Arguments, s.gate.Decode(a.Name, a.Arguments))
		res := s.call(ctx, tc)
		s.led.Resolve(idx, !res.Error)
		rejected[i] = res.Error
		clear(made)
	}
	return GoldScript{Reads: plan, EnvRejected: rejected}, nil
}

// GoldScript is what EvidencePlan found for a task's gold actions.
type GoldScript struct {
	// Reads[i] are the evidence reads to make before gold action i.
	Reads [][]message.ToolCall
	// EnvRejected[i] is set when the environment answers gold write i with
	// an error (some gold trajectories hold failing writes).
	EnvRejected []bool
}

func newState(ctx context.Context, dom envs.Domain, task *tasks.Task) (*state, error) {
	pol, ok := PolicyOf(dom)
	if !ok {
		return nil, fmt.Errorf("%s: no ledger policy", dom.Name())
	}
	aud, ok := dom.(Auditor)
	if !ok {
		return nil, fmt.Errorf("%s: no gate auditor", dom.Name())
	}
	env, err := evaluator.NewInitializedEnv(ctx, dom, task)
	if err != nil {
		return nil, err
	}
	return &state{dom: dom, pol: pol, router: RouterOf(dom, pol), aud: aud, gate: NewGate(dom, pol), env: env, led: ledger.New()}, nil
}

// call executes a call and absorbs a successful agent read.
func (s *state) call(ctx context.Context, tc message.ToolCall) message.Message {
	s.callID++
	tc.ID = fmt.Sprintf("audit_%d", s.callID)
	if tc.Requestor == "" {
		tc.Requestor = message.ByAssistant
	}
	res := envs.Respond(ctx, s.env, tc)
	s.env.Sync()
	if tc.Requestor == message.ByAssistant && !res.Error && isRead(s.dom, s.pol, tc.Name, tc.Arguments) {
		s.led.Absorb(s.router, tc.Name, tc.Arguments, res.Content)
	}
	return res
}

// peek is what a read would return now, without making it (reads change no
// state, and its answer is not absorbed).
func (s *state) peek(ctx context.Context, tc message.ToolCall) string {
	tc.ID = "audit_peek"
	tc.Requestor = message.ByAssistant
	return envs.Respond(ctx, s.env, tc).Content
}

// walk plays the gold actions; before each agent write it makes the evidence
// reads and calls visit with the ledger as it is, then runs the write and
// tells done whether the environment accepted it.
func (s *state) walk(ctx context.Context, task *tasks.Task, visit func(a tasks.Action) (done func(accepted bool))) {
	for _, a := range task.GoldActions() {
		req := message.Requestor(a.By())
		tc := message.ToolCall{Name: a.Name, Arguments: a.Arguments, Requestor: req}
		if req == message.ByAssistant && s.gate.Guards(a.Name) && !observes(s.pol, a.Name, a.Arguments) {
			for _, r := range s.aud.EvidenceReads(a.Name, a.Arguments) {
				s.call(ctx, r)
			}
			done := visit(a)
			idx := s.led.LogWrite(a.Name, a.Arguments, s.gate.Decode(a.Name, a.Arguments))
			res := s.call(ctx, tc)
			s.led.Resolve(idx, !res.Error)
			if done != nil {
				done(!res.Error)
			}
			continue
		}
		s.call(ctx, tc)
	}
}

// AuditMutations turns every gold write into the domain's named violations
// and reports the gate's recall per kind.
func AuditMutations(ctx context.Context, dom envs.Domain, ts []tasks.Task) ([]MutationReport, error) {
	// Tasks are judged on every core; the outcomes are counted in task order.
	type judged struct {
		kind    string
		caught  bool
		harness bool
	}
	perTask, err := parallel.Map(ctx, len(ts), func(ctx context.Context, i int) ([]judged, error) {
		task := &ts[i]
		s, err := newState(ctx, dom, task)
		if err != nil {
			return nil, err
		}
		var out []judged
		s.walk(ctx, task, func(a tasks.Action) func(bool) {
			for _, m := range s.aud.Mutations(a.Name, a.Arguments, s.led) {
				d := s.gate.Judge(s.led, m.Tool, "", m.Args).Decision
				out = append(out, judged{m.Kind, d != ledger.Allow, d == ledger.HarnessError})
			}
			return nil
		})
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	byKind := map[string]*MutationReport{}
	for i, list := range perTask {
		for _, j := range list {
			r := byKind[j.kind]
			if r == nil {
				r = &MutationReport{Report: "mutations", Domain: dom.Name(), Kind: j.kind}
				byKind[j.kind] = r
			}
			r.Total++
			if j.harness {
				r.HarnessErrors++
				continue
			}
			if j.caught {
				r.Caught++
			} else {
				r.Missed = append(r.Missed, ts[i].ID)
			}
		}
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	out := make([]MutationReport, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, *byKind[k])
	}
	return out, nil
}

// ShadowVerdict is one write of a recorded trajectory as the gate in shadow
// mode judged it.
type ShadowVerdict struct {
	// Message is the index of the calling assistant message in the
	// trajectory.
	Message int
	ledger.Verdict
	// EnvRejected reports that the environment answered the recorded call
	// with an error (or not at all): the write did not happen anyway.
	EnvRejected bool
}

// ShadowVerdicts judges every agent write of a trajectory against the ledger
// built from that trajectory's own successful reads (recorded outputs), as a
// gate in shadow mode would have.
func ShadowVerdicts(dom envs.Domain, traj []message.Message) ([]ledger.Verdict, error) {
	svs, err := Shadow(dom, traj)
	if err != nil {
		return nil, err
	}
	out := make([]ledger.Verdict, len(svs))
	for i, sv := range svs {
		out[i] = sv.Verdict
	}
	return out, nil
}

// Shadow is ShadowVerdicts with the call positions. A solo domain
// (envs.IsSolo) is audited as a solo run, as LedgerAgent runs it: its solo
// predicates, and the agent's own phone reads absorbed (see SoloPolicy).
//
// Calls are paired with their answers by position (message.Exchanges), never
// by id alone: providers reuse ids. The semantics are the live agent's: the
// writes of one assistant message are all judged against the ledger as it
// stood when the message was generated (each allowed write is logged, not
// yet resolved, before the next is judged); the message's read results and
// write outcomes are absorbed only afterwards, before the next message, as
// they reach a live agent.
func Shadow(dom envs.Domain, traj []message.Message) ([]ShadowVerdict, error) {
	pol, ok := PolicyOf(dom)
	if !ok {
		return nil, fmt.Errorf("%s: no ledger policy", dom.Name())
	}
	gate := NewGate(dom, pol)
	router := RouterOf(dom, pol)
	led := ledger.New()
	exs := message.Exchanges(traj)
	var verdicts []ShadowVerdict
	// answers of the current message, applied once all its calls are judged
	type answer struct {
		ex    message.Exchange
		read  func()
		write int
	}
	var pending []answer
	flush := func() {
		for _, a := range pending {
			ok := a.ex.Answered() && !traj[a.ex.Result].Error
			switch {
			case a.write >= 0:
				led.Resolve(a.write, ok)
			case a.read != nil && ok:
				a.read()
			}
		}
		pending = pending[:0]
	}
	for i, ex := range exs {
		if i > 0 && exs[i-1].Message != ex.Message {
			flush()
		}
		if traj[ex.Message].Role != message.Assistant {
			continue
		}
		tc := ex.Call
		a := answer{ex: ex, write: -1}
		if ti, known := envs.ToolInfo(dom, message.ByAssistant, tc.Name); known {
			switch {
			case gate.Guards(tc.Name) && !observes(pol, tc.Name, tc.Arguments):
				v := gate.Judge(led, tc.Name, tc.ID, tc.Arguments)
				verdicts = append(verdicts, ShadowVerdict{
					Message: ex.Message, Verdict: v,
					EnvRejected: !ex.Answered() || traj[ex.Result].Error,
				})
				a.write = led.LogWrite(tc.Name, tc.Arguments, v.Decoded)
			case ti.Kind == "read" || observes(pol, tc.Name, tc.Arguments):
				a.read = func() { led.Absorb(router, tc.Name, tc.Arguments, traj[ex.Result].Content) }
			}
		}
		pending = append(pending, a)
	}
	flush()
	return verdicts, nil
}

// AuditRecorded judges the writes of recorded runs in shadow mode and cross
// tabulates them with each run's outcome as recorded and as rescored; it
// also returns every non-allowed write.
func AuditRecorded(dom envs.Domain, file string, runs []RecordedRun) ([]RecordedReport, []RecordedVerdict, error) {
	type key struct{ rec, res string }
	rows := map[key]*RecordedReport{}
	row := func(k key) *RecordedReport {
		if r := rows[k]; r != nil {
			return r
		}
		r := &RecordedReport{Report: "recorded", File: file, Domain: dom.Name(), Outcome: k.rec, Rescored: k.res}
		rows[k] = r
		return r
	}
	var stops []RecordedVerdict
	for i := range runs {
		run := &runs[i]
		verdicts, err := Shadow(dom, run.Messages)
		if err != nil {
			return nil, nil, err
		}
		k := key{outcome(run.Reward), "-"}
		if run.Rescored != nil {
			k.res = outcome(*run.Rescored)
		}
		rep := row(k)
		rep.Runs++
		flagged := false
		for _, v := range verdicts {
			rep.Writes++
			switch v.Decision {
			case ledger.Revise:
				rep.Revise++
			case ledger.Block:
				rep.Block++
			case ledger.HarnessError:
				rep.HarnessErrors++
				stops = append(stops, RecordedVerdict{
					Report: "verdict", File: file, SimulationIndex: run.Index, MessageIndex: v.Message,
					CallID: v.CallID, TaskID: run.TaskID, Trial: run.Trial, Tool: v.Tool, Arguments: v.Arguments,
					Verdict: v.Decision, Outcome: k.rec, Rescored: k.res, EnvRejected: v.EnvRejected,
					Predicates: []PredicateReason{{ID: "harness", Reason: v.Harness}},
				})
				continue
			default:
				continue
			}
			flagged = true
			if v.EnvRejected {
				rep.StoppedEnvRejected++
			} else {
				rep.StoppedNotRejected++
			}
			rv := RecordedVerdict{
				Report: "verdict", File: file, SimulationIndex: run.Index, MessageIndex: v.Message,
				CallID: v.CallID, TaskID: run.TaskID, Trial: run.Trial, Tool: v.Tool, Arguments: v.Arguments,
				Verdict: v.Decision, Outcome: k.rec, Rescored: k.res, EnvRejected: v.EnvRejected,
			}
			for _, f := range v.Predicates {
				rv.Predicates = append(rv.Predicates, PredicateReason{ID: f.ID, Reason: f.Reason})
			}
			stops = append(stops, rv)
		}
		if flagged {
			rep.Flagged++
		}
	}
	out := make([]RecordedReport, 0, len(rows)+2)
	for _, r := range rows {
		out = append(out, *r)
	}
	// a recorded outcome without runs still gets its (empty) row
	for _, rec := range []string{"success", "failure"} {
		if !slices.ContainsFunc(out, func(r RecordedReport) bool { return r.Outcome == rec }) {
			out = append(out, RecordedReport{Report: "recorded", File: file, Domain: dom.Name(), Outcome: rec, Rescored: "-"})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Outcome != out[j].Outcome {
			return out[i].Outcome > out[j].Outcome // success first
		}
		return out[i].Rescored > out[j].Rescored
	})
	return out, stops, nil
}

func outcome(reward float64) string {
	if reward >= 1-1e-6 {
		return "success"
	}
	return "failure"
}
