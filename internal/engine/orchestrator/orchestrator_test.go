package orchestrator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
)

// script replays fixed messages; each call records what it received.
type script struct {
	msgs []message.Message
	err  error
	seen [][]message.Message
}

func (s *script) Next(_ context.Context, in []message.Message) (message.Message, error) {
	s.seen = append(s.seen, in)
	if len(s.msgs) == 0 {
		if s.err != nil {
			return message.Message{}, s.err
		}
		return message.Message{Content: "..."}, nil
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	return m, nil
}

func text(s string) message.Message { return message.Message{Content: s} }

func calls(cs ...string) message.Message {
	var m message.Message
	for i, c := range cs {
		name, args, _ := strings.Cut(c, " ")
		m.ToolCalls = append(m.ToolCalls, message.ToolCall{ID: fmt.Sprintf("c%d_%s", i, name), Name: name, Arguments: json.RawMessage(args)})
	}
	return m
}

func TestRunPayTask(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	agent := &script{msgs: []message.Message{
		calls(`get_user_details {"user_id": "u1"}`, `get_order_details {"order_id": "#O1"}`),
		calls(`pay_order {"order_id": "#O1", "payment_method_id": "card_1"}`),
		text("Done: #O1 is paid."),
	}}
	user := &script{msgs: []message.Message{text("Pay #O1 please, I am u1."), text("Thanks ###STOP###")}}
	rec, err := orchestrator.Run(context.Background(), dom, offlinetest.Task("pay"), agent, user, orchestrator.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.TerminationReason != evaluator.UserStop || !rec.Success() {
		t.Fatalf("termination %s reward %v; want user_stop and 1 (%+v)", rec.TerminationReason, rec.Reward(), rec.RewardInfo)
	}
	// greeting, user, agent (2 calls), 2 tool results, agent call, tool result, agent text, user stop
	if len(rec.Messages) != 9 {
		t.Errorf("trajectory has %d messages; want 9", len(rec.Messages))
	}
	for i, m := range rec.Messages {
		if m.TurnIdx != i {
			t.Errorf("turn_idx %d at %d", m.TurnIdx, i)
		}
	}
	// the agent received both tool results at once, in call order
	if got := agent.seen[1]; len(got) != 2 || got[0].ToolCallID != "c0_get_user_details" || got[1].ToolCallID != "c1_get_order_details" {
		t.Errorf("agent got %+v after parallel calls", got)
	}
	// the user never sees tool calls or results: only the greeting and the agent's text
	for _, in := range user.seen {
		for _, m := range in {
			if m.Role != message.Assistant || m.IsToolCall() {
				t.Errorf("user saw %+v", m)
			}
		}
	}
}

func TestUserToolsRouteBackToUser(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	agent := &script{msgs: []message.Message{
		calls(`get_user_details {"user_id": "u1"}`),
		text("Please restart your device and check it."),
		calls(`cancel_order {"order_id": "#O2"}`),
		text("Cancelled."),
	}}
	user := &script{msgs: []message.Message{
		text("Cancel #O2, I am u1."),
		calls(`restart_device {}`),
		calls(`check_device {}`),
		text("Restarted once. Please cancel."),
		text("###STOP###"),
	}}
	rec, err := orchestrator.Run(context.Background(), dom, offlinetest.Task("device"), agent, user, orchestrator.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Success() {
		t.Fatalf("reward %v: %+v", rec.Reward(), rec.RewardInfo)
	}
	var userTool bool
	for _, m := range rec.Messages {
		if m.Role == message.Tool && m.Requestor == message.ByUser {
			userTool = true
		}
	}
	if !userTool {
		t.Errorf("no user tool result in the trajectory")
	}
	if got := user.seen[2]; len(got) != 1 || got[0].Role != message.Tool {
		t.Errorf("user tool result not routed to the user: %+v", got)
	}
}

func TestTerminations(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	badCall := calls(`get_order_details {"order_id": "#nope"}`)
	loopAgent := func(m message.Message, n int) *script {
		s := &script{}
		for i := 0; i < n; i++ {
			s.msgs = append(s.msgs, m)
		}
		return s
	}
	chatty := &script{}
	for i := 0; i < 100; i++ {
		chatty.msgs = append(chatty.msgs, text("hello"))
	}
	cases := []struct {
		name  string
		agent orchestrator.Agent
		user  orchestrator.User
		cfg   orchestrator.Config
		want  evaluator.Termination
	}{
		{"too many errors counts all tool errors", loopAgent(badCall, 50), &script{msgs: []message.Message{text("hi")}}, orchestrator.Config{MaxErrors: 3}, evaluator.TooManyErrors},
		{"max steps", chatty, &script{}, orchestrator.Config{MaxSteps: 6}, evaluator.MaxSteps},
		{"empty agent message", &script{msgs: []message.Message{{}}}, &script{msgs: []message.Message{text("hi")}}, orchestrator.Config{}, evaluator.AgentError},
		{"user error", &script{}, &script{err: errors.New("bad reply")}, orchestrator.Config{}, evaluator.UserError},
		{"infrastructure", &script{err: fmt.Errorf("api: %w", fault.ErrInfrastructure)}, &script{msgs: []message.Message{text("hi")}}, orchestrator.Config{}, evaluator.InfrastructureError},
		{"transfer token stops", &script{}, &script{msgs: []message.Message{text("###TRANSFER###")}}, orchestrator.Config{}, evaluator.UserStop},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := orchestrator.Run(context.Background(), dom, offlinetest.Task("pay"), tc.agent, tc.user, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if rec.TerminationReason != tc.want {
				t.Errorf("termination = %s; want %s (%s)", rec.TerminationReason, tc.want, rec.Error)
			}
			if tc.want != evaluator.UserStop && rec.Reward() != 0 {
				t.Errorf("premature end scored %v", rec.Reward())
			}
			if tc.want == evaluator.InfrastructureError && (rec.RewardInfo != nil || rec.Error == "") {
				t.Errorf("infrastructure error should carry the error and no reward")
			}
		})
	}
}

func TestMalformedArgumentsAreToolErrors(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	agent := &script{msgs: []message.Message{
		{ToolCalls: []message.ToolCall{{ID: "x", Name: "get_user_details", Arguments: json.RawMessage(`"{not json"`)}}},
		{ToolCalls: []message.ToolCall{{ID: "y", Name: "no_such_tool", Arguments: json.RawMessage(`{}`)}}},
		text("sorry"),
	}}
	user := &script{msgs: []message.Message{text("hi"), text("###STOP###")}}
	rec, err := orchestrator.Run(context.Background(), dom, offlinetest.Task("pay"), agent, user, orchestrator.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.NumErrors != 2 || rec.TerminationReason != evaluator.UserStop {
		t.Fatalf("num_errors %d termination %s", rec.NumErrors, rec.TerminationReason)
	}
	var contents []string
	for _, m := range rec.Messages {
		if m.Role == message.Tool {
			contents = append(contents, m.Content)
		}
	}
	want := []string{"Error: ShopTools.get_user_details() argument after ** must be a mapping, not str", "Error: Tool 'no_such_tool' not found."}
	if strings.Join(contents, "|") != strings.Join(want, "|") {
		t.Errorf("tool messages = %q; want %q", contents, want)
	}
}

func BenchmarkTurnOverhead(b *testing.B) {
	dom := offlinetest.New()
	task := offlinetest.Task("pay")
	b.ReportAllocs()
	for b.Loop() {
		agent := &script{msgs: []message.Message{
			calls(`get_user_details {"user_id": "u1"}`),
			text("ok"),
		}}
		user := &script{msgs: []message.Message{text("hi"), text("###STOP###")}}
		if _, err := orchestrator.Run(context.Background(), dom, task, agent, user, orchestrator.Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEmptyMessageKept: an empty agent or user message ends the simulation
// with agent_error or user_error and stays in the trajectory as its last
// message.
func TestEmptyMessageKept(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	cases := []struct {
		name  string
		agent *script
		user  *script
		role  message.Role
		want  evaluator.Termination
	}{
		{"agent", &script{msgs: []message.Message{{}}}, &script{msgs: []message.Message{text("hi")}}, message.Assistant, evaluator.AgentError},
		{"user", &script{msgs: []message.Message{text("how can I help")}}, &script{msgs: []message.Message{text("hi"), {}}}, message.User, evaluator.UserError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := orchestrator.Run(context.Background(), dom, offlinetest.Task("pay"), tc.agent, tc.user, orchestrator.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if rec.TerminationReason != tc.want {
				t.Fatalf("termination = %s; want %s", rec.TerminationReason, tc.want)
			}
			last := rec.Messages[len(rec.Messages)-1]
			if last.Role != tc.role || last.HasText() || last.IsToolCall() {
				t.Errorf("last message = %+v; want the empty %s message", last, tc.role)
			}
		})
	}
}

// TestStopOnLastStep: upstream checks max_steps and max_errors after the
// step that stopped, so a stop on the last allowed step ends as max_steps;
// one step earlier it stays a stop.
func TestStopOnLastStep(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	cases := []struct {
		name     string
		maxSteps int
		agent    []message.Message
		user     []message.Message
		want     evaluator.Termination
	}{
		{"user stop within the limit", 2, nil, []message.Message{text("###STOP###")}, evaluator.UserStop},
		{"user stop on the last step", 1, nil, []message.Message{text("###STOP###")}, evaluator.MaxSteps},
		{"user stop after an agent turn", 3, []message.Message{text("hello")}, []message.Message{text("hi"), text("###STOP###")}, evaluator.MaxSteps},
		{"user stop before the limit", 4, []message.Message{text("hello")}, []message.Message{text("hi"), text("###STOP###")}, evaluator.UserStop},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := orchestrator.Run(context.Background(), dom, offlinetest.Task("pay"), &script{msgs: tc.agent}, &script{msgs: tc.user}, orchestrator.Config{MaxSteps: tc.maxSteps})
			if err != nil {
				t.Fatal(err)
			}
			if rec.TerminationReason != tc.want {
				t.Errorf("termination = %s; want %s", rec.TerminationReason, tc.want)
			}
		})
	}
}

// brokenDomain's tool "lookup_kb" fails as an endpoint would (an
// infrastructure error), like a retrieval tool whose embeddings endpoint
// is down.
type brokenDomain struct{ envs.Domain }

func (d brokenDomain) NewEnv() envs.Env { return brokenEnv{d.Domain.NewEnv()} }

type brokenEnv struct{ envs.Env }

func (e brokenEnv) Call(ctx context.Context, req message.Requestor, name string, args json.RawMessage) (any, error) {
	if name == "lookup_kb" {
		return nil, fault.Infrastructure(errors.New("embeddings endpoint down"))
	}
	return e.Env.Call(ctx, req, name, args)
}

// TestToolInfrastructureFailure: a tool's infrastructure failure ends the
// simulation as an infrastructure error; the model never sees it.
func TestToolInfrastructureFailure(t *testing.T) {
	t.Parallel()
	agent := &script{msgs: []message.Message{calls(`get_user_details {"user_id": "u1"}`, `lookup_kb {"query": "x"}`)}}
	user := &script{msgs: []message.Message{text("Hi, I am u1.")}}
	rec, err := orchestrator.Run(context.Background(), brokenDomain{offlinetest.New()}, offlinetest.Task("pay"), agent, user, orchestrator.Config{})
	if err != nil || rec.TerminationReason != evaluator.InfrastructureError || !errors.Is(rec.Cause, fault.ErrInfrastructure) ||
		!strings.Contains(rec.Error, "embeddings endpoint down") || rec.RewardInfo != nil {
		t.Fatalf("termination %s, error %q, err %v; want an unscored infrastructure error", rec.TerminationReason, rec.Error, err)
	}
	last := rec.Messages[len(rec.Messages)-1]
	if last.Role != message.Tool || last.ToolCallID != "c0_get_user_details" || strings.Contains(last.Content, "endpoint") {
		t.Errorf("last message %+v; want the first call's result and nothing of the failure", last)
	}
}
