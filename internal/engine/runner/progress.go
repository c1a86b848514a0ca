package runner

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
)

// Progress counts what a run has done so far. Run updates it with atomic
// operations; a UI ticker polls Snapshot.
type Progress struct {
	total int64
	start time.Time

	running, done, scored, passed, infra atomic.Int64
	rewardMicro                          atomic.Int64 // sum of rewards, ×1e6
	tokens                               atomic.Int64
	costNano                             atomic.Int64 // US dollars ×1e9
}

// NewProgress starts counting a run of total units now.
func NewProgress(total int) *Progress {
	return &Progress{total: int64(total), start: time.Now()}
}

// add counts a finished record. prev, when set, is the judge_pending
// record r re-judged: only what r adds to it (the new judge attempt) is
// counted, the conversation was paid for before.
func (p *Progress) add(r, prev *results.Record) {
	p.done.Add(1)
	if r.Infrastructure() {
		p.infra.Add(1)
	} else {
		p.scored.Add(1)
		p.rewardMicro.Add(int64(math.Round(r.Reward() * 1e6)))
		if r.Success() {
			p.passed.Add(1)
		}
	}
	tokens, cost := recordSpend(r)
	if prev != nil {
		t0, c0 := recordSpend(prev)
		tokens, cost = tokens-t0, cost-c0
	}
	p.tokens.Add(tokens)
	p.costNano.Add(int64(math.Round(cost * 1e9)))
}

func recordSpend(r *results.Record) (tokens int64, cost float64) {
	return int64(r.AgentUsage.Total() + r.UserUsage.Total() + r.JudgeUsage.Total()), r.AgentCost + r.UserCost + r.JudgeCost
}

// Snapshot is a consistent-enough view of the counters.
type Snapshot struct {
	Total, Done, Running int
	// Scored excludes infrastructure errors; Passed counts successes.
	Scored, Passed, Infra int
	RewardSum             float64
	Tokens                int64
	Cost                  float64
	Elapsed               time.Duration
}

// Snapshot reads the counters.
func (p *Progress) Snapshot() Snapshot {
	return Snapshot{
		Total: int(p.total), Done: int(p.done.Load()), Running: int(p.running.Load()),
		Scored: int(p.scored.Load()), Passed: int(p.passed.Load()), Infra: int(p.infra.Load()),
		RewardSum: float64(p.rewardMicro.Load()) / 1e6,
		Tokens:    p.tokens.Load(), Cost: float64(p.costNano.Load()) / 1e9,
		Elapsed: time.Since(p.start),
	}
}

// Pass1 is the success rate of the scored simulations so far (NaN before
// the first).
func (s Snapshot) Pass1() float64 {
	if s.Scored == 0 {
		return math.NaN()
	}
	return float64(s.Passed) / float64(s.Scored)
}

// ETA extrapolates the time left from the pace so far (0 when unknown).
func (s Snapshot) ETA() time.Duration {
	if s.Done == 0 || s.Done >= s.Total {
		return 0
	}
	per := s.Elapsed / time.Duration(s.Done)
	return per * time.Duration(s.Total-s.Done)
}
