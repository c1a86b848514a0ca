package metrics

import (
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// RunPassK is one pass^k value and the tasks it averages over.
type RunPassK struct {
	K     int
	Value float64
	// Tasks is the number of tasks with at least K scored trials, the ones
	// averaged; tasks with fewer are listed in RunSummary.Lacking.
	Tasks int
}

// Lack is a task with fewer scored trials than the run asked for.
type Lack struct {
	TaskID string
	Scored int
	Want   int
	Infra  int
}

// RoleCost is what one role's model calls consumed. Unknown counts the
// simulations whose cost of the role is not known (a backbone without a
// price): USD then holds the known part only.
type RoleCost struct {
	Usage   message.Usage
	Calls   int
	USD     float64
	Unknown int
}

// RunSummary is the end-of-run account of a set of records.
type RunSummary struct {
	Tasks   int // tasks in the run
	Trials  int // most trials asked for (or recorded) for a task
	Records int // simulations recorded (latest per unit)
	Scored  int // records that are not infrastructure errors
	// Infra lists the units that ended in an infrastructure error; they are
	// excluded from every metric and re-run on resume.
	Infra []results.UnitKey
	// PassHatK holds pass^1 … pass^Trials.
	PassHatK  []RunPassK
	AvgReward float64
	// Lacking names the tasks whose pass^k for high k averages fewer
	// trials than asked (missing units or infrastructure errors).
	Lacking      []Lack
	Terminations map[evaluator.Termination]int
	// NLNotEvaluated counts scored records whose NL assertions were not
	// judged (a run with --no-judge).
	NLNotEvaluated int
	// NLMissing counts scored records whose judge gave fewer verdicts than
	// the task has NL assertions (an empty results list): scored on the
	// verdicts given, as upstream does, and said.
	NLMissing          int
	Agent, User, Judge RoleCost
}

// Summarize computes the summary of records (latest per unit) against the
// units the run was to make (in order; their tasks and trials). Records of
// units not expected are counted too.
func SummarizeRun(recs []results.Record, expected []results.UnitKey) RunSummary {
	s := RunSummary{Records: len(recs), Terminations: map[evaluator.Termination]int{}}
	type counts struct{ want, n, c, infra int }
	per := make(map[string]*counts)
	var order []string
	task := func(id string) *counts {
		tc := per[id]
		if tc == nil {
			tc = &counts{}
			per[id] = tc
			order = append(order, id)
		}
		return tc
	}
	for _, k := range expected {
		task(k.TaskID).want++
	}
	rewardSum := 0.0
	for i := range recs {
		r := &recs[i]
		tc := task(r.TaskID)
		s.Terminations[r.TerminationReason]++
		s.addCost(r)
		if r.Infrastructure() {
			s.Infra = append(s.Infra, r.Key())
			tc.infra++
			continue
		}
		s.Scored++
		tc.n++
		rewardSum += r.Reward()
		if r.Success() {
			tc.c++
		}
		if r.RewardInfo.NLUnjudged() {
			s.NLNotEvaluated++
		}
		if r.RewardInfo != nil && r.RewardInfo.NLMissing > 0 {
			s.NLMissing++
		}
	}
	if s.Scored > 0 {
		s.AvgReward = rewardSum / float64(s.Scored)
	}
	s.Tasks = len(order)
	k := 0
	for _, id := range order {
		k = max(k, per[id].want, per[id].n)
	}
	s.Trials = k
	for kk := 1; kk <= k; kk++ {
		var tcs []TaskCounts
		for _, id := range order {
			if c := per[id]; c.n >= kk {
				tcs = append(tcs, TaskCounts{Trials: c.n, Successes: c.c})
			}
		}
		s.PassHatK = append(s.PassHatK, RunPassK{K: kk, Value: MeanPassHatK(tcs, kk), Tasks: len(tcs)})
	}
	for _, id := range order {
		if c := per[id]; c.n < c.want {
			s.Lacking = append(s.Lacking, Lack{TaskID: id, Scored: c.n, Want: c.want, Infra: c.infra})
		}
	}
	return s
}

func (s *RunSummary) addCost(r *results.Record) {
	s.Agent.Usage = s.Agent.Usage.Add(r.AgentUsage)
	s.Agent.USD += r.AgentCost
	s.Agent.Calls += r.AgentCalls
	s.User.Usage = s.User.Usage.Add(r.UserUsage)
	s.User.USD += r.UserCost
	s.User.Calls += r.UserCalls
	s.Judge.Usage = s.Judge.Usage.Add(r.JudgeUsage)
	s.Judge.USD += r.JudgeCost
	for _, u := range []struct {
		c     *RoleCost
		field string
	}{{&s.Agent, results.UnknownAgentCost}, {&s.User, results.UnknownUserCost}, {&s.Judge, results.UnknownJudgeCost}} {
		if r.IsUnknown(u.field) {
			u.c.Unknown++
		}
	}
}

// AddSuperseded counts attempts a re-run replaced (results.Run's
// SupersededRecords) in the costs: they were paid for. Nothing else of
// the summary changes.
func (s *RunSummary) AddSuperseded(recs []results.Record) {
	for i := range recs {
		s.addCost(&recs[i])
	}
}

// Pass1 is pass^1 (0 without scored records).
func (s RunSummary) Pass1() float64 {
	if len(s.PassHatK) == 0 {
		return 0
	}
	return s.PassHatK[0].Value
}
