package report

import (
	"strconv"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/engine/review"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// ReviewCounts are the LLM review's findings (ledgerbench review, run
// --auto-review) over a group's failed simulations, beside the rule-based
// categories: how many were reviewed and how many of those the review found
// an agent error, a user-simulator error or a critical user error in. A full
// review is used where there is one, else the user-only review (which finds
// user errors only). Failed counts failed reviews (infrastructure: no
// finding).
type ReviewCounts struct {
	Reviewed     int `json:"reviewed"`
	AgentErrors  int `json:"agent_errors"`
	UserErrors   int `json:"user_errors"`
	CriticalUser int `json:"critical_user_errors"`
	Failed       int `json:"failed_reviews"`
}

// Reviews counts the reviews of the sources' failed simulations per group
// (nil when no source has reviews).
func Reviews(sources []*Source) map[metrics.Key]ReviewCounts {
	var out map[metrics.Key]ReviewCounts
	for _, s := range sources {
		if s.Reviews == nil {
			continue
		}
		if out == nil {
			out = map[metrics.Key]ReviewCounts{}
		}
		for i := range s.Records {
			r := &s.Records[i]
			if r.TerminationReason == evaluator.InfrastructureError || r.Success() {
				continue
			}
			k := metrics.KeyOf(r)
			c := out[k]
			e, ok := s.Reviews.Get(r.ID, review.Full)
			if !ok || e.Failed() {
				if u, uok := s.Reviews.Get(r.ID, review.User); uok && (!ok || !u.Failed()) {
					e, ok = u, true
				}
			}
			switch {
			case !ok:
			case e.Failed():
				c.Failed++
			case e.Review != nil:
				c.Reviewed++
				c.AgentErrors += b2i(e.Review.AgentError)
				c.UserErrors += b2i(e.Review.UserError)
				c.CriticalUser += b2i(e.Review.CriticalUserError)
			case e.UserOnlyReview != nil:
				c.Reviewed++
				c.UserErrors += b2i(e.UserOnlyReview.UserError)
				c.CriticalUser += b2i(e.UserOnlyReview.CriticalUserError)
			}
			out[k] = c
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (c *ReviewCounts) add(o ReviewCounts) {
	c.Reviewed += o.Reviewed
	c.AgentErrors += o.AgentErrors
	c.UserErrors += o.UserErrors
	c.CriticalUser += o.CriticalUser
	c.Failed += o.Failed
}

// reviewCells are the error table's review columns.
func reviewCells(c ReviewCounts) []any {
	if c.Reviewed == 0 {
		return []any{"0", missing, missing, missing}
	}
	n := float64(c.Reviewed)
	return []any{strconv.Itoa(c.Reviewed), shareWithCount(float64(c.AgentErrors)/n, c.AgentErrors),
		shareWithCount(float64(c.UserErrors)/n, c.UserErrors), shareWithCount(float64(c.CriticalUser)/n, c.CriticalUser)}
}
