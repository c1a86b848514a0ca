package ledgeragent

import (
	"context"
	"fmt"
	"sort"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/evaluator"
	"github.com/ledgerbench/ledgerbench/ledger"
	"github.com/ledgerbench/ledgerbench/message"
	"github.com/ledgerbench/ledgerbench/results"
	"github.com/ledgerbench/ledgerbench/tasks"
)

// FalsePositive is a gold write the gate did not allow.
type FalsePositive struct {
	TaskID  string         `json:"task_id"`
	Verdict ledger.Verdict `json:"verdict"`
}

// GoldReport is the gold audit of one domain: every gold write, preceded by
// the reads it needs, through the gate.
type GoldReport struct {
	Report         string `json:"report"`
	Domain         string `json:"domain"`
	Tasks          int    `json:"tasks"`
	Writes         int    `json:"writes"`
	FalsePositives int    `json:"false_positives"`
	// RejectedByEnv counts gold writes the environment itself rejects; they
	// are not judged.
	RejectedByEnv int             `json:"rejected_by_env,omitempty"`
	Cases         []FalsePositive `json:"cases,omitempty"`
}

// MutationReport is the recall of the gate on one kind of violation.
type MutationReport struct {
	Report string   `json:"report"`
	Domain string   `json:"domain"`
	Kind   string   `json:"kind"`
	Total  int      `json:"total"`
	Caught int      `json:"caught"`
	Missed []string `json:"missed,omitempty"` // task ids of uncaught mutations
}

// RecordedReport is the shadow-mode gate audit of one recorded file, split
// by run outcome.
type RecordedReport struct {
	Report  string `json:"report"`
	File    string `json:"file"`
	Domain  string `json:"domain"`
	Outcome string `json:"outcome"` // success | failure
	Runs    int    `json:"runs"`
	Writes  int    `json:"writes"`
	Revise  int    `json:"revise"`
	Block   int    `json:"block"`
	// Flagged counts runs with at least one non-allowed write.
	Flagged int `json:"flagged_runs"`
}

// state replays a task's gold actions with the evidence reads a careful
// agent makes, keeping the agent's ledger.
type state struct {
	dom    envs.Domain
	pol    Policy
	aud    Auditor
	gate   *ledger.Gate
	env    envs.Env
	led    *ledger.Ledger
	callID int
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
	return &state{dom: dom, pol: pol, aud: aud, gate: NewGate(dom, pol), env: env, led: ledger.New()}, nil
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
	if tc.Requestor == message.ByAssistant && !res.Error {
		if ti, ok := envs.ToolInfo(s.dom, message.ByAssistant, tc.Name); ok && ti.Kind == "read" {
			s.led.Absorb(s.pol, tc.Name, tc.Arguments, res.Content)
		}
	}
	return res
}

// walk plays the gold actions; before each agent write it makes the evidence
// reads and calls visit with the ledger as it is, then runs the write and
// tells done whether the environment accepted it.
func (s *state) walk(ctx context.Context, task *tasks.Task, visit func(a tasks.Action) (done func(accepted bool))) {
	for _, a := range task.GoldActions() {
		req := message.Requestor(a.By())
		tc := message.ToolCall{Name: a.Name, Arguments: a.Arguments, Requestor: req}
		if req == message.ByAssistant && s.gate.Guards(a.Name) {
			for _, r := range s.aud.EvidenceReads(a.Name, a.Arguments) {
				s.call(ctx, r)
			}
			done := visit(a)
			idx := s.led.LogWrite(a.Name, a.Arguments)
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

// AuditGold runs the gold audit over tasks.
func AuditGold(ctx context.Context, dom envs.Domain, ts []tasks.Task) (GoldReport, error) {
	rep := GoldReport{Report: "gold", Domain: dom.Name(), Tasks: len(ts)}
	for i := range ts {
		task := &ts[i]
		s, err := newState(ctx, dom, task)
		if err != nil {
			return rep, err
		}
		s.walk(ctx, task, func(a tasks.Action) func(bool) {
			v := s.gate.Judge(s.led, a.Name, "", a.Arguments)
			return func(accepted bool) {
				if !accepted {
					// The environment itself rejects this gold call (some
					// gold trajectories contain failing writes): refusing
					// it is not a false positive.
					rep.RejectedByEnv++
					return
				}
				rep.Writes++
				if v.Decision != ledger.Allow {
					rep.FalsePositives++
					rep.Cases = append(rep.Cases, FalsePositive{TaskID: task.ID, Verdict: v})
				}
			}
		})
	}
	return rep, nil
}

// AuditMutations turns every gold write into the domain's named violations
// and reports the gate's recall per kind.
func AuditMutations(ctx context.Context, dom envs.Domain, ts []tasks.Task) ([]MutationReport, error) {
	byKind := map[string]*MutationReport{}
	for i := range ts {
		task := &ts[i]
		s, err := newState(ctx, dom, task)
		if err != nil {
			return nil, err
		}
		s.walk(ctx, task, func(a tasks.Action) func(bool) {
			for _, m := range s.aud.Mutations(a.Name, a.Arguments, s.led) {
				r := byKind[m.Kind]
				if r == nil {
					r = &MutationReport{Report: "mutations", Domain: dom.Name(), Kind: m.Kind}
					byKind[m.Kind] = r
				}
				r.Total++
				if s.gate.Judge(s.led, m.Tool, "", m.Args).Decision != ledger.Allow {
					r.Caught++
				} else {
					r.Missed = append(r.Missed, task.ID)
				}
			}
			return nil
		})
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

// ShadowVerdicts judges every agent write of a trajectory against the ledger
// built from that trajectory's own successful reads (recorded outputs), as a
// gate in shadow mode would have.
func ShadowVerdicts(dom envs.Domain, traj []message.Message) ([]ledger.Verdict, error) {
	pol, ok := PolicyOf(dom)
	if !ok {
		return nil, fmt.Errorf("%s: no ledger policy", dom.Name())
	}
	gate := NewGate(dom, pol)
	led := ledger.New()
	outputs := map[string]message.Message{}
	for _, m := range traj {
		if m.Role == message.Tool {
			outputs[m.ToolCallID] = m
		}
	}
	var verdicts []ledger.Verdict
	for _, m := range traj {
		if m.Role != message.Assistant {
			continue
		}
		for _, tc := range m.ToolCalls {
			res, answered := outputs[tc.ID]
			ti, known := envs.ToolInfo(dom, message.ByAssistant, tc.Name)
			switch {
			case known && gate.Guards(tc.Name):
				v := gate.Judge(led, tc.Name, tc.ID, tc.Arguments)
				verdicts = append(verdicts, v)
				idx := led.LogWrite(tc.Name, tc.Arguments)
				led.Resolve(idx, answered && !res.Error)
			case known && ti.Kind == "read" && answered && !res.Error:
				led.Absorb(pol, tc.Name, tc.Arguments, res.Content)
			}
		}
	}
	return verdicts, nil
}

// AuditRecorded judges the writes of recorded runs in shadow mode and cross
// tabulates them with each run's outcome.
func AuditRecorded(dom envs.Domain, file string, recs []results.Record) ([]RecordedReport, error) {
	out := map[string]*RecordedReport{
		"success": {Report: "recorded", File: file, Domain: dom.Name(), Outcome: "success"},
		"failure": {Report: "recorded", File: file, Domain: dom.Name(), Outcome: "failure"},
	}
	for i := range recs {
		r := &recs[i]
		verdicts, err := ShadowVerdicts(dom, r.Messages)
		if err != nil {
			return nil, err
		}
		rep := out["failure"]
		if r.Success() {
			rep = out["success"]
		}
		rep.Runs++
		flagged := false
		for _, v := range verdicts {
			rep.Writes++
			switch v.Decision {
			case ledger.Revise:
				rep.Revise++
				flagged = true
			case ledger.Block:
				rep.Block++
				flagged = true
			}
		}
		if flagged {
			rep.Flagged++
		}
	}
	return []RecordedReport{*out["success"], *out["failure"]}, nil
}
