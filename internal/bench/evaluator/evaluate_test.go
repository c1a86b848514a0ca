package evaluator

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// counterDomain is a minimal domain: one integer per key; "add" writes, "get" reads.
type counterDomain struct{}

type counterEnv struct{ vals map[string]int }

func (counterDomain) Name() string   { return "counter" }
func (counterDomain) Policy() string { return "" }
func (counterDomain) AgentTools() []tool.Info {
	return []tool.Info{{Name: "add", Kind: tool.Write}, {Name: "get", Kind: tool.Read}}
}
func (counterDomain) UserTools() []tool.Info { return nil }
func (counterDomain) Tasks() *tasks.Set      { return nil }
func (counterDomain) NewEnv() envs.Env       { return &counterEnv{vals: map[string]int{}} }

func (e *counterEnv) Call(_ context.Context, _ message.Requestor, name string, args json.RawMessage) (any, error) {
	var a struct {
		Key string  `json:"key"`
		N   float64 `json:"n"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	switch name {
	case "add":
		if a.N < 0 {
			return nil, errors.New("negative")
		}
		e.vals[a.Key] += int(a.N)
		return e.vals[a.Key], nil
	case "get":
		return e.vals[a.Key], nil
	case "is":
		return float64(e.vals[a.Key]) == a.N, nil
	}
	return nil, errors.New("Tool '" + name + "' not found.")
}
func (e *counterEnv) RunFunction(ctx context.Context, side message.Requestor, name string, args json.RawMessage) (any, error) {
	return e.Call(ctx, side, name, args)
}
func (e *counterEnv) Sync() {}
func (e *counterEnv) SameDB(o envs.Env) (bool, bool) {
	oe := o.(*counterEnv)
	if len(oe.vals) != len(e.vals) {
		return false, true
	}
	for k, v := range e.vals {
		if oe.vals[k] != v {
			return false, true
		}
	}
	return true, true
}
func (e *counterEnv) DumpDB() (any, any) { return e.vals, nil }

func call(id, name, args string) message.Message {
	return message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args), Requestor: message.ByAssistant}}}
}

func toolMsg(id, content string) message.Message {
	return message.Message{Role: message.Tool, ToolCallID: id, Content: content}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	ptr := func(s []string) *[]string { return &s }
	baseTask := func(basis []tasks.RewardType, actions []tasks.Action, comm, nl []string) *tasks.Task {
		return &tasks.Task{ID: "t", EvaluationCriteria: &tasks.EvaluationCriteria{
			Actions: actions, CommunicateInfo: comm, NLAssertions: nl, RewardBasis: basis}}
	}
	addA := tasks.Action{ActionID: "a", Name: "add", Arguments: json.RawMessage(`{"key":"x","n":2}`)}
	cases := []struct {
		name         string
		task         *tasks.Task
		traj         []message.Message
		term         Termination
		want         float64
		notEvaluated int
	}{
		{"db match", baseTask([]tasks.RewardType{"DB"}, []tasks.Action{addA}, nil, nil),
			[]message.Message{call("1", "add", `{"key":"x","n":2}`), toolMsg("1", "2")}, UserStop, 1, 0},
		{"db mismatch", baseTask([]tasks.RewardType{"DB"}, []tasks.Action{addA}, nil, nil),
			[]message.Message{call("1", "add", `{"key":"x","n":3}`), toolMsg("1", "3")}, UserStop, 0, 0},
		{"premature", baseTask([]tasks.RewardType{"DB"}, nil, nil, nil), nil, MaxSteps, 0, 0},
		{"action float equals int", baseTask([]tasks.RewardType{"ACTION"}, []tasks.Action{addA}, nil, nil),
			[]message.Message{call("1", "add", `{"key":"x","n":2.0}`), toolMsg("1", "2")}, AgentStop, 1, 0},
		{"action extra arg fails", baseTask([]tasks.RewardType{"ACTION"}, []tasks.Action{addA}, nil, nil),
			[]message.Message{call("1", "add", `{"key":"x","n":2,"z":1}`), toolMsg("1", "2")}, AgentStop, 0, 0},
		{"action subset of gold args matches (quirk)", baseTask([]tasks.RewardType{"ACTION"}, []tasks.Action{addA}, nil, nil),
			[]message.Message{call("1", "add", `{"key":"x"}`), toolMsg("1", "0")}, AgentStop, 1, 0},
		{"compare_args empty matches on name", baseTask([]tasks.RewardType{"ACTION"},
			[]tasks.Action{{Name: "add", Arguments: json.RawMessage(`{"key":"y"}`), CompareArgs: ptr([]string{})}}, nil, nil),
			[]message.Message{call("1", "add", `{"key":"x","n":1}`), toolMsg("1", "1")}, AgentStop, 1, 0},
		{"communicate strips commas from message", baseTask([]tasks.RewardType{"COMMUNICATE"}, nil, []string{"1000"}, nil),
			[]message.Message{{Role: message.Assistant, Content: "You get 1,000 points"}}, UserStop, 1, 0},
		{"communicate missing", baseTask([]tasks.RewardType{"COMMUNICATE"}, nil, []string{"refund"}, nil),
			[]message.Message{{Role: message.User, Content: "refund"}}, UserStop, 0, 0},
		{"nl without judge is not evaluated", baseTask([]tasks.RewardType{"DB", "NL_ASSERTION"}, nil, nil, []string{"agent is polite"}),
			nil, UserStop, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Evaluate(context.Background(), counterDomain{}, tc.task, tc.traj, tc.term, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if info.Reward != tc.want {
				t.Errorf("reward = %v; want %v (info %+v)", info.Reward, tc.want, info)
			}
			if len(info.NotEvaluated) != tc.notEvaluated {
				t.Errorf("not evaluated = %v; want %d entries", info.NotEvaluated, tc.notEvaluated)
			}
		})
	}
}

func TestReplayMismatchIsErrorWhenStrict(t *testing.T) {
	t.Parallel()
	task := &tasks.Task{ID: "t", EvaluationCriteria: &tasks.EvaluationCriteria{
		Actions: []tasks.Action{{Name: "add", Arguments: json.RawMessage(`{"key":"x","n":2}`)}}, RewardBasis: []tasks.RewardType{"DB"}}}
	traj := []message.Message{call("1", "add", `{"key":"x","n":2}`), toolMsg("1", "99")}
	if _, err := Evaluate(context.Background(), counterDomain{}, task, traj, UserStop, Options{}); err == nil {
		t.Fatal("strict replay accepted a different output")
	}
	info, err := Evaluate(context.Background(), counterDomain{}, task, traj, UserStop, Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if info.Reward != 1 || len(info.Notes) != 1 {
		t.Errorf("lenient: reward %v notes %v; want 1 and one note", info.Reward, info.Notes)
	}
}

type fakeJudge struct {
	met  bool
	drop int // verdicts left out of the reply
}

func (j fakeJudge) JudgeNL(_ context.Context, _ []message.Message, as []string) (JudgeResult, error) {
	var r JudgeResult
	for _, a := range as[min(j.drop, len(as)):] {
		r.Checks = append(r.Checks, NLCheck{NLAssertion: a, Met: j.met})
	}
	r.Usage = message.Usage{PromptTokens: 10, CompletionTokens: 2}
	return r, nil
}

func TestJudge(t *testing.T) {
	t.Parallel()
	task := &tasks.Task{ID: "t", EvaluationCriteria: &tasks.EvaluationCriteria{NLAssertions: []string{"ok"}, RewardBasis: []tasks.RewardType{"NL_ASSERTION"}}}
	for _, met := range []bool{true, false} {
		info, err := Evaluate(context.Background(), counterDomain{}, task, nil, UserStop, Options{Judge: fakeJudge{met: met}})
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		if met {
			want = 1
		}
		if info.Reward != want || info.JudgeUsage == nil {
			t.Errorf("met=%v: reward %v usage %v; want %v and usage", met, info.Reward, info.JudgeUsage, want)
		}
	}
}

// TestJudgeShortReply: a judge reply whose results list is empty (or
// short) is scored as τ²-bench scores it — all() over the verdicts given,
// so an empty list is met — and said in the reward info, never silently.
func TestJudgeShortReply(t *testing.T) {
	t.Parallel()
	task := &tasks.Task{ID: "t", EvaluationCriteria: &tasks.EvaluationCriteria{NLAssertions: []string{"a", "b"}, RewardBasis: []tasks.RewardType{"NL_ASSERTION"}}}
	for _, tc := range []struct {
		drop, missing int
		met           bool
		reward        float64
	}{
		{0, 0, true, 1},
		{2, 2, false, 1}, // empty list: all([]) is true upstream
		{1, 1, false, 0},
		{1, 1, true, 1},
	} {
		info, err := Evaluate(context.Background(), counterDomain{}, task, nil, UserStop, Options{Judge: fakeJudge{met: tc.met, drop: tc.drop}})
		if err != nil {
			t.Fatal(err)
		}
		if info.Reward != tc.reward || info.NLMissing != tc.missing || (tc.missing > 0) != (len(info.Notes) == 1) {
			t.Errorf("drop %d met %v: reward %v missing %d notes %q; want %v, %d, a note iff missing", tc.drop, tc.met, info.Reward, info.NLMissing, info.Notes, tc.reward, tc.missing)
		}
	}
}
