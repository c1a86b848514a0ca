// Package gold builds gold trajectories — a task's gold actions played as
// tool calls by their requestors, plus agent messages stating each piece of
// information the task requires to be communicated — and verifies that they
// earn full reward. `ledgerbench verify` is this over every selected task.
package gold

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Greeting is the agent's first message of a gold trajectory (the
// orchestrator's stand-in; no model reads it).
const Greeting = orchestrator.DefaultGreeting

// Call is one executed gold call.
type Call struct {
	Name      string            `json:"name"`
	Requestor message.Requestor `json:"requestor"`
	Arguments json.RawMessage   `json:"arguments"`
	Output    string            `json:"output"`
	Error     bool              `json:"error"`
}

// Trajectory plays the gold actions of a task against a fresh environment
// (with the task's initial state and a sync after every step, as the
// orchestrator does) and returns the conversation and the calls made.
func Trajectory(ctx context.Context, dom envs.Domain, task *tasks.Task) ([]message.Message, []Call, error) {
	env, err := evaluator.NewInitializedEnv(ctx, dom, task)
	if err != nil {
		return nil, nil, err
	}
	actions := task.GoldActions()
	var comm []string
	if c := task.EvaluationCriteria; c != nil {
		comm = c.CommunicateInfo
	}
	// greeting, request, a call and its answer per action, the
	// communicated items, the stop
	msgs := make([]message.Message, 0, 2+2*len(actions)+len(comm)+1)
	msgs = append(msgs,
		message.Message{Role: message.Assistant, Content: Greeting},
		message.Message{Role: message.User, Content: "I need help with my request."})
	calls := make([]Call, 0, len(actions))
	for i, a := range actions {
		req := message.Requestor(a.By())
		tc := message.ToolCall{ID: fmt.Sprintf("gold_%d", i), Name: a.Name, Arguments: a.Arguments, Requestor: req}
		msgs = append(msgs, message.Message{Role: message.Role(req), ToolCalls: []message.ToolCall{tc}})
		env.Sync()
		res := envs.Respond(ctx, env, tc)
		msgs = append(msgs, res)
		env.Sync()
		calls = append(calls, Call{Name: a.Name, Requestor: req, Arguments: a.Arguments, Output: res.Content, Error: res.Error})
	}
	for _, info := range comm {
		msgs = append(msgs, message.Message{Role: message.Assistant, Content: StateOutput(info)})
	}
	msgs = append(msgs, message.Message{Role: message.User, Content: "Thank you. ###STOP###"})
	for i := range msgs {
		msgs[i].TurnIdx = i
	}
	return msgs, calls, nil
}

// StateOutput is the agent reply of a gold trajectory that states one piece
// of information the task requires to be communicated (τ-bench v1's
// outputs): "To confirm: <info>". Upstream's check (and τ²'s COMMUNICATE)
// looks for the text, lower-cased, in the reply with commas removed.
func StateOutput(info string) string { return "To confirm: " + info }

// Result is one task's verification.
type Result struct {
	Domain   string               `json:"domain"`
	TaskID   string               `json:"task_id"`
	Reward   float64              `json:"reward"`
	Passed   bool                 `json:"passed"`
	Info     evaluator.RewardInfo `json:"reward_info"`
	Calls    []Call               `json:"calls"`
	Duration time.Duration        `json:"-"`
}

// Verify builds a task's gold trajectory and evaluates it. NL assertions are
// reported as not evaluated unless opts has a judge.
func Verify(ctx context.Context, dom envs.Domain, task *tasks.Task, opts evaluator.Options) (Result, error) {
	start := time.Now()
	msgs, calls, err := Trajectory(ctx, dom, task)
	if err != nil {
		return Result{}, fmt.Errorf("gold trajectory: %w", err)
	}
	info, err := evaluator.Evaluate(ctx, dom, task, msgs, evaluator.UserStop, opts)
	if err != nil {
		return Result{}, err
	}
	return Result{
		Domain: dom.Name(), TaskID: task.ID, Reward: info.Reward, Passed: evaluator.Success(info.Reward),
		Info: info, Calls: calls, Duration: time.Since(start),
	}, nil
}
