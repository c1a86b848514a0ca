package evaluator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Evaluate scores one simulation as upstream's evaluate_simulation with the
// default evaluation type: DB/ENV_ASSERTION, ACTION and COMMUNICATE are always
// computed, NL_ASSERTION only when it is in the reward basis; the reward is the
// product of the basis components.
func Evaluate(ctx context.Context, dom envs.Domain, task *tasks.Task, traj []message.Message, term Termination, opts Options) (RewardInfo, error) {
	if !term.Normal() {
		return RewardInfo{Reward: 0, Notes: []string{"Simulation terminated prematurely. Termination reason: " + string(term)}}, nil
	}
	crit := task.EvaluationCriteria
	if crit == nil {
		return RewardInfo{Reward: 1, Notes: []string{"No evaluation criteria"}}, nil
	}
	basis := crit.Basis()
	info := RewardInfo{RewardBasis: basis, RewardBreakdown: map[tasks.RewardType]float64{}}

	envReward, err := evalEnv(ctx, dom, task, traj, opts, &info)
	if err != nil {
		return RewardInfo{}, err
	}
	actionReward := evalActions(dom, crit, traj, &info)
	_, replies := dom.(envs.ReplyOutputs)
	commReward := evalCommunicate(crit, traj, replies, &info)

	reward := 1.0
	if crit.HasBasis(tasks.RewardDB) || crit.HasBasis(tasks.RewardEnvAssertion) {
		reward *= envReward
	}
	if crit.HasBasis(tasks.RewardAction) {
		reward *= actionReward
		info.RewardBreakdown[tasks.RewardAction] = actionReward
	}
	if crit.HasBasis(tasks.RewardCommunicate) {
		reward *= commReward
		info.RewardBreakdown[tasks.RewardCommunicate] = commReward
	}
	if crit.HasBasis(tasks.RewardNLAssertion) {
		nl, evaluated, err := evalNL(ctx, crit, traj, opts, &info)
		if err != nil {
			return RewardInfo{}, err
		}
		if evaluated {
			reward *= nl
			info.RewardBreakdown[tasks.RewardNLAssertion] = nl
		} else {
			info.NotEvaluated = append(info.NotEvaluated, tasks.RewardNLAssertion)
		}
	}
	info.Reward = reward
	return info, nil
}

// NewInitializedEnv returns a fresh environment with the task's initial state
// applied (initialization data and actions), as upstream's set_state does
// before any message history.
func NewInitializedEnv(ctx context.Context, dom envs.Domain, task *tasks.Task) (envs.Env, error) {
	env := envs.NewTaskEnv(dom, task)
	if s := task.InitialState; s != nil {
		if d := s.InitializationData; d != nil && (isSet(d.AgentData) || isSet(d.UserData)) {
			in, ok := env.(envs.Initializer)
			if !ok {
				return nil, fmt.Errorf("task %s: initialization_data is not supported by this domain (no shipped task of it uses it)", task.ID)
			}
			if err := in.Initialize(d.AgentData, d.UserData); err != nil {
				return nil, fmt.Errorf("task %s: initialization data: %w", task.ID, err)
			}
		}
		for i, a := range s.InitializationActions {
			if _, err := env.RunFunction(ctx, message.Requestor(a.EnvType), a.FuncName, a.Arguments); err != nil {
				return nil, fmt.Errorf("task %s: initialization action %d (%s): %w", task.ID, i, a.FuncName, err)
			}
		}
		if len(s.MessageHistory) > 0 {
			return nil, fmt.Errorf("task %s: message_history is not supported by this port (no shipped task uses it)", task.ID)
		}
	}
	env.Sync()
	return env, nil
}

func isSet(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null"
}

// GoldEnv builds the gold environment: initial state, then every gold action
// through the plain tool call (no sync, errors ignored), as upstream. A solo
// domain's gold environment is its normal-mode one, as upstream's.
func GoldEnv(ctx context.Context, dom envs.Domain, task *tasks.Task) (envs.Env, error) {
	env, err := NewInitializedEnv(ctx, envs.Base(dom), task)
	if err != nil {
		return nil, err
	}
	for _, a := range task.GoldActions() {
		_, _ = env.Call(ctx, message.Requestor(a.By()), a.Name, a.Arguments)
	}
	return env, nil
}

// ReplayEnv rebuilds the environment a trajectory produced, as upstream's
// Environment.set_state: initial state, then every tool call whose name either
// toolkit holds and that mutates state, in order, through get_response (with
// sync), each compared with the tool message that answered it. Calls are
// paired with their answers by position (message.Exchanges), so ids a provider
// reuses never pair a call with another call's output. A trajectory whose
// tool messages do not follow upstream's shape (a tool message that answers
// no call, a call without its tool message, or an answer out of order) is an
// error whatever strict says, as upstream raises for it. An output that
// differs from the recorded one is an error with strict set (live evaluation)
// and a note otherwise (upstream's strict_replay=False, for re-grading).
func ReplayEnv(ctx context.Context, dom envs.Domain, task *tasks.Task, traj []message.Message, strict bool) (envs.Env, []string, error) {
	exs, err := ReplayExchanges(traj)
	if err != nil {
		return nil, nil, err
	}
	env, err := NewInitializedEnv(ctx, dom, task)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	for _, ex := range exs {
		if !mutates(dom, ex.Call.Name) {
			continue
		}
		got := envs.Respond(ctx, env, ex.Call)
		want := traj[ex.Result]
		if !sameContent(got.Content, want.Content) {
			note := fmt.Sprintf("replay of %s (call %s) gave a different output: got %.200q, recorded %.200q", ex.Call.Name, ex.Call.ID, got.Content, want.Content)
			if strict {
				return nil, nil, errors.New(note)
			}
			notes = append(notes, note)
		}
	}
	env.Sync()
	return env, notes, nil
}

// ReplayExchanges returns the trajectory's tool calls paired with their
// answers, checked against upstream's get_actions_from_messages: every call
// is answered by the tool message at its own position after its message
// (with the same id), and every tool message answers a call.
func ReplayExchanges(traj []message.Message) ([]message.Exchange, error) {
	exs := message.Exchanges(traj)
	answered := make([]bool, len(traj))
	pos := 0
	for k, ex := range exs {
		if k == 0 || exs[k-1].Message != ex.Message {
			pos = 0
		}
		pos++
		if !ex.Answered() {
			return nil, fmt.Errorf("message %d: tool call %s (%s) has no tool message after it", ex.Message, ex.Call.ID, ex.Call.Name)
		}
		if ex.Result != ex.Message+pos {
			return nil, fmt.Errorf("message %d: tool call id mismatch: call %s (%s) is answered at message %d, not in its own position", ex.Message, ex.Call.ID, ex.Call.Name, ex.Result)
		}
		answered[ex.Result] = true
	}
	for i, m := range traj {
		if m.Role == message.Tool && !answered[i] {
			return nil, fmt.Errorf("message %d: tool message %s answers no tool call (tool messages should always follow a tool call)", i, m.ToolCallID)
		}
	}
	return exs, nil
}

// mutates reports whether upstream's set_state replays a call of this name:
// a tool of either toolkit (agent's first) that mutates state; a name neither
// holds is a hallucinated tool and a no-op.
func mutates(dom envs.Domain, name string) bool {
	for _, side := range []message.Requestor{message.ByAssistant, message.ByUser} {
		if m, ok := envs.Mutates(dom, side, name); ok {
			return m
		}
	}
	return false
}

// sameContent compares tool outputs as upstream does: parsed JSON values when
// both parse, else strings.
func sameContent(a, b string) bool {
	if a == b {
		return true
	}
	va, errA := pyjson.Decode([]byte(a))
	vb, errB := pyjson.Decode([]byte(b))
	if errA != nil || errB != nil {
		return false
	}
	return pyjson.Equal(va, vb)
}

func evalEnv(ctx context.Context, dom envs.Domain, task *tasks.Task, traj []message.Message, opts Options, info *RewardInfo) (float64, error) {
	crit := task.EvaluationCriteria
	if crit.Actions == nil && crit.EnvAssertions == nil {
		info.DBCheck = &DBCheck{DBMatch: true, DBReward: 1}
		if crit.HasBasis(tasks.RewardDB) {
			info.RewardBreakdown[tasks.RewardDB] = 1
		}
		if crit.HasBasis(tasks.RewardEnvAssertion) {
			info.RewardBreakdown[tasks.RewardEnvAssertion] = 1
		}
		return 1, nil
	}
	predicted, notes, err := ReplayEnv(ctx, dom, task, traj, !opts.Lenient)
	if err != nil {
		return 0, fmt.Errorf("evaluate task %s: %w", task.ID, err)
	}
	info.Notes = append(info.Notes, notes...)
	gold, err := GoldEnv(ctx, dom, task)
	if err != nil {
		return 0, fmt.Errorf("evaluate task %s: gold environment: %w", task.ID, err)
	}
	agentSame, userSame := predicted.SameDB(gold)
	match := agentSame && userSame
	dbReward := 0.0
	if match {
		dbReward = 1
	}
	info.DBCheck = &DBCheck{DBMatch: match, DBReward: dbReward}
	if !userSame {
		f := false
		info.DBCheck.UserDBMatch = &f
	}

	assertReward := 1.0
	info.EnvAssertions = slices.Grow(info.EnvAssertions, len(crit.EnvAssertions))
	for _, a := range crit.EnvAssertions {
		check := EnvAssertionCheck{EnvAssertion: a}
		res, err := predicted.RunFunction(ctx, message.Requestor(a.EnvType), a.FuncName, a.Arguments)
		switch {
		case err != nil:
			check.Error = err.Error()
		default:
			b, ok := res.(bool)
			if !ok {
				return 0, fmt.Errorf("evaluate task %s: env assertion %s returned %T, not a bool", task.ID, a.FuncName, res)
			}
			check.Met = b == a.Expected()
		}
		if check.Met {
			check.Reward = 1
		} else {
			assertReward = 0
		}
		info.EnvAssertions = append(info.EnvAssertions, check)
	}

	reward := 1.0
	if crit.HasBasis(tasks.RewardDB) {
		reward *= dbReward
		info.RewardBreakdown[tasks.RewardDB] = dbReward
	}
	if crit.HasBasis(tasks.RewardEnvAssertion) {
		reward *= assertReward
		info.RewardBreakdown[tasks.RewardEnvAssertion] = assertReward
	}
	return reward, nil
}

// evalActions checks that every gold action was called by someone.
func evalActions(dom envs.Domain, crit *tasks.EvaluationCriteria, traj []message.Message, info *RewardInfo) float64 {
	if len(crit.Actions) == 0 {
		return 1
	}
	n := 0
	for _, m := range traj {
		if m.Role == message.Assistant || m.Role == message.User {
			n += len(m.ToolCalls)
		}
	}
	calls := make([]message.ToolCall, 0, n)
	for _, m := range traj {
		if m.Role == message.Assistant || m.Role == message.User {
			calls = append(calls, m.ToolCalls...)
		}
	}
	decoded := make([]*pyjson.Dict, len(calls))
	for i, c := range calls {
		decoded[i] = argsDict(c.Arguments)
	}
	info.ActionChecks = slices.Grow(info.ActionChecks, len(crit.Actions))
	reward := 1.0
	for _, a := range crit.Actions {
		gold := argsDict(a.Arguments)
		matched := false
		for i, c := range calls {
			if c.Name == a.Name && argsMatch(decoded[i], gold, a.CompareArgs) {
				matched = true
				break
			}
		}
		check := ActionCheck{Action: a, ActionMatch: matched}
		if k, ok := envs.ToolKind(dom, message.Requestor(a.By()), a.Name); ok {
			check.ToolType = string(k)
		}
		if matched {
			check.ActionReward = 1
		} else {
			reward = 0
		}
		info.ActionChecks = append(info.ActionChecks, check)
	}
	return reward
}

func argsDict(raw json.RawMessage) *pyjson.Dict {
	v, err := pyjson.Decode(raw)
	if err != nil {
		return &pyjson.Dict{}
	}
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return &pyjson.Dict{}
	}
	return d
}

// argsMatch is upstream's compare_with_tool_call: with compare_args unset the
// keys are the predicted call's own; an empty list matches on the name alone.
func argsMatch(call, gold *pyjson.Dict, compareArgs *[]string) bool {
	var keys []string
	if compareArgs == nil {
		keys = call.Keys
	} else {
		keys = *compareArgs
	}
	if len(keys) == 0 {
		return true
	}
	pick := func(d *pyjson.Dict) *pyjson.Dict {
		out := &pyjson.Dict{}
		for _, k := range keys {
			if v, ok := d.Get(k); ok {
				out.Set(k, v)
			}
		}
		return out
	}
	return pyjson.Equal(pick(call), pick(gold))
}

// evalCommunicate looks for each item in the agent's messages (only those
// without tool calls when replies is set: envs.ReplyOutputs).
func evalCommunicate(crit *tasks.EvaluationCriteria, traj []message.Message, replies bool, info *RewardInfo) float64 {
	if len(crit.CommunicateInfo) == 0 {
		return 1
	}
	reward := 1.0
	for _, item := range crit.CommunicateInfo {
		want := strings.ToLower(item)
		check := CommunicateCheck{Info: item, Justification: "Information not communicated."}
		for _, m := range traj {
			if m.Role != message.Assistant || !m.HasText() || (replies && m.IsToolCall()) {
				continue
			}
			if strings.Contains(strings.ReplaceAll(strings.ToLower(m.Content), ",", ""), want) {
				check.Met = true
				check.Justification = "Information communicated in the message:\n '" + m.Content + "'"
				break
			}
		}
		if !check.Met {
			reward = 0
		}
		info.CommunicateChecks = append(info.CommunicateChecks, check)
	}
	return reward
}

func evalNL(ctx context.Context, crit *tasks.EvaluationCriteria, traj []message.Message, opts Options, info *RewardInfo) (float64, bool, error) {
	if len(crit.NLAssertions) == 0 {
		return 1, true, nil
	}
	if opts.Judge == nil {
		return 0, false, nil
	}
	res, err := opts.Judge.JudgeNL(ctx, traj, crit.NLAssertions)
	if err != nil {
		return 0, false, &JudgeError{Usage: res.Usage, Cost: res.Cost, Err: err}
	}
	info.NLAssertions = res.Checks
	if n := len(crit.NLAssertions) - len(res.Checks); n > 0 {
		info.NLMissing = n
		info.Notes = append(info.Notes, fmt.Sprintf("the NL judge gave %d verdicts for %d assertions: scored on those, as τ²-bench does", len(res.Checks), len(crit.NLAssertions)))
	}
	u := res.Usage
	info.JudgeUsage = &u
	info.JudgeCost = res.Cost
	for _, c := range res.Checks {
		if !c.Met {
			return 0, true, nil
		}
	}
	return 1, true, nil
}
