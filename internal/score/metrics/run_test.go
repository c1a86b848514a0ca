package metrics

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
)

func TestSummarizeRunNamesLackingTasks(t *testing.T) {
	t.Parallel()
	mk := func(task string, trial int, pass, infra bool) results.Record {
		r := results.Record{TaskID: task, Trial: trial, TerminationReason: evaluator.UserStop}
		if infra {
			r.TerminationReason = evaluator.InfrastructureError
			return r
		}
		reward := 0.0
		if pass {
			reward = 1
		}
		r.RewardInfo = &evaluator.RewardInfo{Reward: reward}
		return r
	}
	recs := []results.Record{
		mk("a", 0, true, false), mk("a", 1, true, false),
		mk("b", 0, true, false), mk("b", 1, false, true),
	}
	var want []results.UnitKey
	for _, id := range []string{"a", "b", "c"} {
		for trial := range 2 {
			want = append(want, results.UnitKey{TaskID: id, Trial: trial})
		}
	}
	s := SummarizeRun(recs, want)
	if len(s.Infra) != 1 || s.Scored != 3 {
		t.Errorf("infra %v scored %d; want 1, 3", s.Infra, s.Scored)
	}
	if got := s.PassHatK[1]; got.Tasks != 1 || got.Value != 1 {
		t.Errorf("pass^2 = %+v; want 1 over 1 task", got)
	}
	if got := s.PassHatK[0]; got.Tasks != 2 || got.Value != 1 {
		t.Errorf("pass^1 = %+v; want 1 over 2 tasks", got)
	}
	if len(s.Lacking) != 2 || s.Lacking[0].TaskID != "b" || s.Lacking[0].Infra != 1 || s.Lacking[1].TaskID != "c" {
		t.Errorf("lacking = %+v; want b (1 infra), c", s.Lacking)
	}
}

// TestSummaryAddSuperseded: attempts replaced by a re-run were paid for,
// so they count in the costs and in nothing else.
func TestRunSummaryAddSuperseded(t *testing.T) {
	t.Parallel()
	re := results.Record{TaskID: "a", TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: 1}, AgentCost: 0.25, AgentCalls: 2}
	old := results.Record{TaskID: "a", TerminationReason: evaluator.InfrastructureError, AgentCost: 0.5, UserCost: 0.125, JudgeCost: 0.0625, AgentCalls: 1}
	s := SummarizeRun([]results.Record{re}, []results.UnitKey{{TaskID: "a"}})
	s.AddSuperseded([]results.Record{old})
	if s.Agent.USD != 0.75 || s.User.USD != 0.125 || s.Judge.USD != 0.0625 || s.Agent.Calls != 3 {
		t.Errorf("costs agent $%v (%d calls) user $%v judge $%v; want 0.75 (3), 0.125, 0.0625", s.Agent.USD, s.Agent.Calls, s.User.USD, s.Judge.USD)
	}
	if s.Records != 1 || s.Scored != 1 || len(s.Infra) != 0 || s.Pass1() != 1 {
		t.Errorf("records %d scored %d infra %v pass^1 %v; want 1, 1, none, 1", s.Records, s.Scored, s.Infra, s.Pass1())
	}
}

func TestSummarizeRunCountsShortJudgeReplies(t *testing.T) {
	t.Parallel()
	recs := []results.Record{
		{TaskID: "a", TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: 1, NLMissing: 2}},
		{TaskID: "b", TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: 1}},
	}
	if s := SummarizeRun(recs, nil); s.NLMissing != 1 {
		t.Errorf("NLMissing = %d; want 1", s.NLMissing)
	}
}
