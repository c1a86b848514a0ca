package results

import (
	"encoding/json"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// Record is one finished simulation: what τ²-bench's SimulationRun carries
// plus ledgerbench's own fields. It is one line of simulations.jsonl.
type Record struct {
	ID           string `json:"id"`
	TaskID       string `json:"task_id"`
	Trial        int    `json:"trial"`
	Seed         int64  `json:"seed"`
	Domain       string `json:"domain"`
	Agent        string `json:"agent"`
	Backbone     string `json:"backbone"`
	UserBackbone string `json:"user_backbone"`
	// Trait is the τ-Trait user's traits ("confusion=low,impatience=high",
	// or the trait a recorded file's name gives), empty without traits.
	Trait             string                `json:"trait,omitempty"`
	TerminationReason evaluator.Termination `json:"termination_reason"`
	RewardInfo        *evaluator.RewardInfo `json:"reward_info,omitempty"`
	Messages          []message.Message     `json:"messages"`
	StartTime         string                `json:"start_time"`
	EndTime           string                `json:"end_time"`
	Duration          float64               `json:"duration"`
	Steps             int                   `json:"steps"`
	NumErrors         int                   `json:"num_errors"`
	AgentCost         float64               `json:"agent_cost"`
	UserCost          float64               `json:"user_cost"`
	JudgeCost         float64               `json:"judge_cost,omitempty"`
	AgentUsage        message.Usage         `json:"agent_usage"`
	UserUsage         message.Usage         `json:"user_usage"`
	JudgeUsage        message.Usage         `json:"judge_usage,omitempty"`
	// AgentCalls and UserCalls count model calls (helper calls included).
	AgentCalls int `json:"agent_calls"`
	UserCalls  int `json:"user_calls"`
	// Error is the infrastructure error's text when TerminationReason is
	// infrastructure_error.
	Error string `json:"error,omitempty"`
	// JudgePending is set when the conversation ended normally (with this
	// reason) but the NL judge failed: the record is an infrastructure error
	// whose trajectory stands, and resuming judges it again without re-running
	// the conversation: the judged record keeps the id and carries the
	// conversation's cost and every judge attempt's (see Continues).
	JudgePending evaluator.Termination `json:"judge_pending,omitempty"`
	// Cause is the infrastructure error itself, for the process that ran the
	// simulation (never written).
	Cause error `json:"-"`
	// AgentInfo is the agent's own report (gate verdicts, ledger sizes,
	// helper calls, injected faults of simulated backbones).
	AgentInfo json.RawMessage `json:"agent_info,omitempty"`
	// UserInfo is the user simulator's own report.
	UserInfo json.RawMessage `json:"user_info,omitempty"`
	// Simulated marks records produced by the offline sim backbone.
	Simulated bool `json:"simulated,omitempty"`
	// Unknown names the cost and usage fields whose value is not known (a
	// model backbone without a price, a results file that does not record
	// them): they read 0 but are not 0. Records written before the field
	// existed name none (their values read as recorded). Offline backbones
	// (gold, sim, replay) cost nothing, known.
	Unknown []string `json:"unknown,omitempty"`
}

// Fields of Record.Unknown.
const (
	UnknownAgentCost  = "agent_cost"
	UnknownUserCost   = "user_cost"
	UnknownJudgeCost  = "judge_cost"
	UnknownAgentUsage = "agent_usage" // also the agent's model calls
	UnknownUserUsage  = "user_usage"
	UnknownJudgeUsage = "judge_usage"
)

// IsUnknown reports whether the record's field (an Unknown* name) is not
// known.
func (r *Record) IsUnknown(field string) bool { return slices.Contains(r.Unknown, field) }

// MarkUnknown adds field to Unknown (once).
func (r *Record) MarkUnknown(field string) {
	if !r.IsUnknown(field) {
		r.Unknown = append(r.Unknown, field)
	}
}

// Reward returns the record's reward (0 without reward info).
func (r *Record) Reward() float64 {
	if r.RewardInfo == nil {
		return 0
	}
	return r.RewardInfo.Reward
}

// Success reports whether the simulation passed.
func (r *Record) Success() bool {
	return r.RewardInfo != nil && evaluator.Success(r.RewardInfo.Reward)
}

// Infrastructure reports whether the simulation ended in an infrastructure
// error (excluded from pass^k and re-run on resume).
func (r *Record) Infrastructure() bool {
	return r.TerminationReason == evaluator.InfrastructureError
}

// Continues reports whether r is a later state of the simulation prev
// recorded: prev was judge_pending and r has its unit and record id.
// Resuming re-judges a judge_pending record under its id, and the new
// record's costs include the earlier one's.
func (r *Record) Continues(prev *Record) bool {
	return prev.JudgePending != "" && r.ID != "" && r.ID == prev.ID && r.Key() == prev.Key()
}

// UnitKey identifies a unit of work within a run.
type UnitKey struct {
	TaskID string
	Trial  int
}

// Key returns the record's unit key.
func (r *Record) Key() UnitKey { return UnitKey{TaskID: r.TaskID, Trial: r.Trial} }
