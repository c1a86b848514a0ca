// Package evaluator computes τ²-bench's reward for a finished simulation: the
// DB check (final database equals the database after replaying the gold
// actions on a fresh environment), environment assertions, action matching,
// communicated information and natural-language assertions through a judge.
//
// Use:
//
//	info, err := evaluator.Evaluate(ctx, domain, &task, trajectory, evaluator.AgentStop, evaluator.Options{})
//
// err reports infrastructure problems only (a broken task, a judge that
// failed); a failed task is a reward of 0 with the reasons in the RewardInfo.
package evaluator

import (
	"context"
	"math"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Termination says why a simulation ended.
type Termination string

const (
	AgentStop           Termination = "agent_stop"
	UserStop            Termination = "user_stop"
	MaxSteps            Termination = "max_steps"
	TooManyErrors       Termination = "too_many_errors"
	Timeout             Termination = "timeout"
	AgentError          Termination = "agent_error"
	UserError           Termination = "user_error"
	InfrastructureError Termination = "infrastructure_error"
	ContextWindow       Termination = "context_window_exceeded"
	UnexpectedError     Termination = "unexpected_error"
)

// Normal reports whether the simulation ended by an agent or user stop, the
// only endings upstream scores.
func (t Termination) Normal() bool { return t == AgentStop || t == UserStop }

// RewardInfo is τ²-bench's RewardInfo plus which components were not
// evaluated.
type RewardInfo struct {
	Reward            float64                      `json:"reward"`
	DBCheck           *DBCheck                     `json:"db_check,omitempty"`
	EnvAssertions     []EnvAssertionCheck          `json:"env_assertions,omitempty"`
	ActionChecks      []ActionCheck                `json:"action_checks,omitempty"`
	NLAssertions      []NLCheck                    `json:"nl_assertions,omitempty"`
	CommunicateChecks []CommunicateCheck           `json:"communicate_checks,omitempty"`
	RewardBasis       []tasks.RewardType           `json:"reward_basis,omitempty"`
	RewardBreakdown   map[tasks.RewardType]float64 `json:"reward_breakdown,omitempty"`
	// NotEvaluated lists basis components that could not be computed (an NL
	// assertion without a judge). Reward is then the product of the others.
	NotEvaluated []tasks.RewardType `json:"not_evaluated,omitempty"`
	// Notes explain unusual outcomes (premature termination, replay mismatches).
	Notes []string `json:"notes,omitempty"`
	// NLMissing counts NL assertions the judge's reply gave no verdict for
	// (an empty or short "results" list). They are scored as upstream
	// scores them, met (all() over the verdicts it got), and reported.
	NLMissing int `json:"nl_assertions_missing,omitempty"`
	// JudgeUsage and JudgeCost account for the NL judge's model call.
	JudgeUsage *message.Usage `json:"judge_usage,omitempty"`
	JudgeCost  float64        `json:"judge_cost,omitempty"`
}

// NLUnjudged reports whether the reward's NL assertions were not judged
// (a run with --no-judge): the evaluator says so (NotEvaluated), or, in a
// results file that does not, the basis has NL_ASSERTION while the
// breakdown of a scored simulation holds no NL verdict (upstream's
// evaluator always writes one).
func (ri *RewardInfo) NLUnjudged() bool {
	if ri == nil {
		return false
	}
	if slices.Contains(ri.NotEvaluated, tasks.RewardNLAssertion) {
		return true
	}
	if !slices.Contains(ri.RewardBasis, tasks.RewardNLAssertion) || len(ri.RewardBreakdown) == 0 {
		return false
	}
	_, ok := ri.RewardBreakdown[tasks.RewardNLAssertion]
	return !ok
}

// Success reports whether a reward counts as a pass (within 1e-6 of 1).
func Success(reward float64) bool { return math.Abs(reward-1) <= 1e-6 }

// DBCheck compares final databases.
type DBCheck struct {
	DBMatch  bool    `json:"db_match"`
	DBReward float64 `json:"db_reward"`
	// UserDBMatch is false when only the user-side database differs.
	UserDBMatch *bool `json:"user_db_match,omitempty"`
}

// EnvAssertionCheck is one environment assertion's outcome.
type EnvAssertionCheck struct {
	EnvAssertion tasks.EnvAssertion `json:"env_assertion"`
	Met          bool               `json:"met"`
	Reward       float64            `json:"reward"`
	Error        string             `json:"error,omitempty"`
}

// ActionCheck is one gold action's outcome.
type ActionCheck struct {
	Action       tasks.Action `json:"action"`
	ActionMatch  bool         `json:"action_match"`
	ActionReward float64      `json:"action_reward"`
	ToolType     string       `json:"tool_type,omitempty"`
}

// NLCheck is one natural-language assertion's verdict.
type NLCheck struct {
	NLAssertion   string `json:"nl_assertion"`
	Met           bool   `json:"met"`
	Justification string `json:"justification"`
}

// CommunicateCheck is one communicate_info item's outcome.
type CommunicateCheck struct {
	Info          string `json:"info"`
	Met           bool   `json:"met"`
	Justification string `json:"justification"`
}

// Judge evaluates natural-language assertions over a conversation (one model
// call, as upstream's NL assertion evaluator).
type Judge interface {
	JudgeNL(ctx context.Context, trajectory []message.Message, assertions []string) (JudgeResult, error)
}

// JudgeResult is a judge's verdicts and what the call cost.
type JudgeResult struct {
	Checks []NLCheck
	Usage  message.Usage
	Cost   float64
}

// JudgeError is Evaluate's error when the NL judge failed (its backbone
// failed, or its reply was malformed). It carries what the judge's call
// cost, so a run can record it, and says that only judging is missing: the
// simulation itself can be judged again from its trajectory.
type JudgeError struct {
	Usage message.Usage
	Cost  float64
	Err   error
}

func (e *JudgeError) Error() string { return "nl assertions judge: " + e.Err.Error() }

func (e *JudgeError) Unwrap() error { return e.Err }

// Options tune evaluation.
type Options struct {
	// Judge evaluates NL assertions; nil leaves them not evaluated.
	Judge Judge
	// Lenient replays the trajectory's writes without failing on output
	// mismatches (for re-scoring recordings made with other data versions);
	// mismatches become notes.
	Lenient bool
}

// For domain packages: a gold verification test looks like
//
//	dom, _ := airline.Load(datatest.Root(t))
//	for _, task := range mustSelect(dom.Tasks(), tasks.Selection{Split: "base"}) {
//		res, err := gold.Verify(ctx, dom, &task, evaluator.Options{})
//		// res.Passed must be true; res.Info explains a failure
//	}
