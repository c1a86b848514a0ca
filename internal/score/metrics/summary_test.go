package metrics

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func TestPassHatKs(t *testing.T) {
	t.Parallel()
	complete := []TaskCounts{{4, 4}, {4, 2}, {4, 0}, {4, 3}}
	vals, used := PassHatKs(complete, 4)
	for k := 1; k <= 4; k++ {
		if want := MeanPassHatK(complete, k); math.Abs(vals[k-1]-want) > 1e-12 || used[k-1] != 4 {
			t.Errorf("PassHatKs k=%d = %v over %d; want %v over 4", k, vals[k-1], used[k-1], want)
		}
	}
	// A task with 2 trials counts for k ≤ 2 only.
	vals, used = PassHatKs([]TaskCounts{{4, 4}, {2, 2}}, 4)
	wantUsed := []int{2, 2, 1, 1}
	for k := range 4 {
		if vals[k] != 1 || used[k] != wantUsed[k] {
			t.Errorf("PassHatKs k=%d = %v over %d; want 1 over %d", k+1, vals[k], used[k], wantUsed[k])
		}
	}
}

// catalog is a test Catalog.
type catalog struct {
	tasks map[string]*tasks.Task
}

func (c catalog) Task(_, id string) (*tasks.Task, bool) { t, ok := c.tasks[id]; return t, ok }
func (c catalog) ToolKind(_ string, _ message.Requestor, name string) (tool.Kind, bool) {
	k, ok := testKinds[name]
	return k, ok
}

func rec(task string, trial int, reward float64, mut func(*results.Record)) results.Record {
	r := results.Record{Domain: "airline", Agent: "baseline", Backbone: "m", UserBackbone: "u", TaskID: task, Trial: trial,
		TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: reward}}
	if mut != nil {
		mut(&r)
	}
	return r
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	cat := catalog{tasks: map[string]*tasks.Task{
		"w": {ID: "w", EvaluationCriteria: &tasks.EvaluationCriteria{Actions: []tasks.Action{act("cancel_reservation", `{"reservation_id": "ABC"}`)}}},
		"r": {ID: "r", EvaluationCriteria: &tasks.EvaluationCriteria{Actions: []tasks.Action{act("get_user_details", `{"user_id": "u"}`)}}},
		"n": {ID: "n", EvaluationCriteria: &tasks.EvaluationCriteria{}},
	}}
	cancel := func(r *results.Record) {
		r.Messages = []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "ABC"}`)), toolMsg("1", false)}
	}
	recs := []results.Record{
		rec("w", 0, 1, cancel), rec("w", 1, 1, cancel), rec("w", 2, 0, nil), rec("w", 3, 1, cancel),
		rec("r", 0, 1, nil), rec("r", 1, 0, nil),
		rec("r", 2, 0, func(r *results.Record) {
			r.TerminationReason = evaluator.InfrastructureError
			r.RewardInfo = nil
			r.AgentCost = 0.5
		}),
		rec("r", 1, 1, nil), // duplicate of (r, 1): ignored
		rec("n", 0, 1, nil), rec("n", 1, 1, nil), rec("n", 2, 1, nil), rec("n", 3, 1, nil),
		rec("w", 0, 1, func(r *results.Record) {
			r.Agent = "ledger"
			r.AgentUsage = message.Usage{PromptTokens: 300}
			r.AgentCalls = 3
		}),
	}
	for i := range recs {
		if recs[i].Agent == "baseline" {
			recs[i].AgentUsage = message.Usage{PromptTokens: 100, CompletionTokens: 10}
			recs[i].AgentCalls = 2
		}
	}
	sums := Summarize(recs, Options{Catalog: cat, Plan: func(k Key) Plan {
		if k.Agent == "baseline" {
			return Plan{Trials: 4, TaskIDs: []string{"w", "r", "n", "missing"}}
		}
		return Plan{}
	}})
	if len(sums) != 2 || sums[0].Agent != "baseline" || sums[1].Agent != "ledger" {
		t.Fatalf("groups = %+v", sums)
	}
	s := sums[0]
	if s.Records != 13-1 || s.Scored != 10 || s.Infrastructure != 1 || s.Duplicates != 1 || s.Tasks != 4 {
		t.Errorf("counts: records %d scored %d infra %d dup %d tasks %d; want 12 10 1 1 4", s.Records, s.Scored, s.Infrastructure, s.Duplicates, s.Tasks)
	}
	if s.K != 4 {
		t.Errorf("K = %d; want 4", s.K)
	}
	wantIncomplete := []TaskTrials{{"missing", 0}, {"r", 2}}
	if len(s.Incomplete) != 2 || s.Incomplete[0] != wantIncomplete[0] || s.Incomplete[1] != wantIncomplete[1] {
		t.Errorf("incomplete = %v; want %v", s.Incomplete, wantIncomplete)
	}
	// pass^1 over w (3/4), r (1/2), n (4/4); pass^4 over w, n.
	if got, want := s.At(1), (0.75+0.5+1)/3; math.Abs(got-want) > 1e-12 {
		t.Errorf("pass^1 = %v; want %v", got, want)
	}
	if got, want := s.At(4), (0+1)/2.0; math.Abs(got-want) > 1e-12 || s.Complete(4) || s.Complete(1) {
		t.Errorf("pass^4 = %v (complete %v); want %v, incomplete", got, s.Complete(4), want)
	}
	if w := s.Write; w.Tasks != 1 || w.Known != 3 || len(w.Unknown) != 1 || w.At(1) != 0.75 {
		t.Errorf("write subset = %d/%d known, unknown %v, pass^1 %v; want 1/3, [missing], 0.75", w.Tasks, w.Known, w.Unknown, w.At(1))
	}
	// Gold actions: w's cancel matched in 3 of 4 runs; r's read matched in none.
	if a := s.Actions; a.Gold != 6 || a.Matched != 3 || a.WriteGold != 4 || a.WriteMatched != 3 {
		t.Errorf("actions = %+v; want gold 6 matched 3, writes 4 matched 3", a)
	}
	if s.Failed != 2 || s.Errors[MissedAction] != 1 || s.Errors[Infrastructure] != 1 {
		t.Errorf("errors = %v (failed %d); want one missed action of 2 failures, one infrastructure", s.Errors, s.Failed)
	}
	// Costs count what every other number counts: the duplicate once.
	if s.Cost.Simulations != 11 || s.Cost.AgentCost != 0.5 || s.Cost.Agent.PromptTokens != 1100 {
		t.Errorf("cost = %+v; want 11 simulations (the duplicate left out), $0.5, 1100 prompt tokens", s.Cost)
	}
	ov := UsageOverhead(Match(sums, "baseline", "ledger"))
	if ov.Pairs != 1 || ov.PromptTokens == nil || math.Abs(*ov.PromptTokens-2) > 1e-12 || ov.Calls == nil || math.Abs(*ov.Calls-0.5) > 1e-12 {
		t.Errorf("overhead = %+v; want prompt +200%%, calls +50%%", ov)
	}
}

func TestAdherence(t *testing.T) {
	t.Parallel()
	gate := func(v string) func(*results.Record) {
		return func(r *results.Record) {
			r.AgentInfo = json.RawMessage(v)
			r.Messages = []message.Message{asst(tc("c1", "cancel_reservation", `{}`)), toolMsg("c1", false)}
		}
	}
	recs := []results.Record{
		rec("a", 0, 1, gate(`{"gate": {"mode": "shadow", "verdicts": [{"tool": "cancel_reservation", "call_id": "c1", "verdict": "ALLOW"}]}}`)),
		rec("a", 1, 0, gate(`{"gate": {"mode": "shadow", "verdicts": [{"tool": "cancel_reservation", "call_id": "c1", "verdict": "BLOCK"}]}}`)),
		rec("a", 2, 1, gate(`{"gate": {"verdicts": [{"tool": "cancel_reservation", "call_id": "c9", "verdict": "revise"}, {"tool": "cancel_reservation", "call_id": "c1", "verdict": "allow"}]}}`)),
		rec("a", 3, 1, gate(`{"gate": {"verdicts": [{"tool": "x", "verdict": "BLOCK", "executed": true}]}}`)),
		rec("b", 0, 1, nil), // no gate report: not counted
		// LedgerAgent's own report: a gate with no verdicts, a ledger-only run.
		rec("c", 0, 1, gate(`{"implementation": "ledger", "mode": {"Ledger": true, "Gate": true}, "turns": []}`)),
		rec("c", 1, 1, gate(`{"implementation": "ledger-only", "mode": {"Ledger": true, "Gate": false}}`)),
		rec("c", 2, 1, gate(`{"implementation": "gate-only", "mode": {"Ledger": false, "Gate": true}, "verdicts": [{"turn": 2, "tool": "cancel_reservation", "call_id": "c7", "verdict": "BLOCK"}]}`)),
	}
	s := Summarize(recs, Options{})[0]
	a := s.Adherence
	if a.Runs != 6 || a.Adherent != 4 {
		t.Errorf("adherence = %d/%d; want 4/6", a.Adherent, a.Runs)
	}
	want := VerdictCounts{Allow: 1, Revise: 1, Block: 2, ShadowAllow: 1, ShadowBlock: 1}
	if a.Verdicts != want {
		t.Errorf("verdicts = %+v; want %+v", a.Verdicts, want)
	}
}

func TestCompareTaskIDs(t *testing.T) {
	t.Parallel()
	ids := map[string]int{"10": 0, "2": 0, "b": 0, "a": 0, "1": 0}
	got := sortedIDs(ids)
	want := []string{"1", "2", "10", "a", "b"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sortedIDs = %v; want %v", got, want)
		}
	}
}

// TestSummarizeSupersededCost: an infrastructure-error attempt that a
// re-run replaced was paid for, so it counts in its group's cost (and
// nowhere else: not as a record, not as an infrastructure error).
func TestSummarizeSupersededCost(t *testing.T) {
	t.Parallel()
	latest := rec("a", 0, 1, func(r *results.Record) { r.AgentCost = 0.25 })
	paid := rec("a", 0, 0, func(r *results.Record) {
		r.TerminationReason = evaluator.InfrastructureError
		r.RewardInfo = nil
		r.AgentCost, r.UserCost = 0.5, 0.125
	})
	for _, tc := range []struct {
		name       string
		superseded []results.Record
		cost       float64
		sims       int
	}{
		{"without", nil, 0.25, 1},
		{"with", []results.Record{paid}, 0.875, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sums := Summarize([]results.Record{latest}, Options{Superseded: tc.superseded})
			if len(sums) != 1 {
				t.Fatalf("%d groups, want 1", len(sums))
			}
			s := sums[0]
			if s.Cost.Total() != tc.cost || s.Cost.Simulations != tc.sims {
				t.Errorf("cost $%v over %d simulations, want $%v over %d", s.Cost.Total(), s.Cost.Simulations, tc.cost, tc.sims)
			}
			if s.Records != 1 || s.Infrastructure != 0 || s.Scored != 1 {
				t.Errorf("records %d, infrastructure %d, scored %d; want 1, 0, 1", s.Records, s.Infrastructure, s.Scored)
			}
		})
	}
}
