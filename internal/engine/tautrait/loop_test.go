package tautrait_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/telehealth"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/tautrait"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// script plays fixed messages; the last one repeats. It records what it
// was given.
type script struct {
	msgs []message.Message
	n    int
	seen [][]message.Message
}

func (s *script) Next(_ context.Context, in []message.Message) (message.Message, error) {
	s.seen = append(s.seen, in)
	m := s.msgs[min(s.n, len(s.msgs)-1)]
	s.n++
	return m, nil
}

func call(name, args string) message.Message {
	return message.Message{ToolCalls: []message.ToolCall{{ID: "c-" + name, Name: name, Arguments: json.RawMessage(args)}}}
}

func say(s string) message.Message { return message.Message{Content: s} }

// TestLoopRules checks the loop rules of τ-Trait's ToolCallingAgent and
// Env.step (see the package documentation).
func TestLoopRules(t *testing.T) {
	t.Parallel()
	dom, err := telehealth.Load(datatest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	two := call("think", `{"thought": "a"}`)
	two.ToolCalls = append(two.ToolCalls, message.ToolCall{ID: "c-2", Name: "transfer_to_human_support", Arguments: json.RawMessage(`{"reason": "x"}`)})
	tests := []struct {
		name      string
		agent     []message.Message
		user      []message.Message
		term      evaluator.Termination
		steps     int
		lastTool  string // content of the last tool message ("" for none)
		userCalls int
	}{
		{"a failing transfer still ends", []message.Message{call("transfer_to_human_support", `{}`)}, []message.Message{say("hi")},
			evaluator.AgentStop, 1, "Error: TransferToHumanSupport.invoke() missing 1 required positional argument: 'reason'", 1},
		{"unknown tool: an observation, the episode goes on", []message.Message{call("nope", `{}`), say("bye")}, []message.Message{say("hi"), say("###STOP###")},
			evaluator.UserStop, 2, "Unknown action nope", 2},
		{"only the first call runs", []message.Message{two, say("bye")}, []message.Message{say("hi"), say("ok ###STOP###")},
			evaluator.UserStop, 2, "", 2},
		{"an empty reply is a respond", []message.Message{say("")}, []message.Message{say("hi"), say("###STOP###")},
			evaluator.UserStop, 1, "", 2},
		{"only ###STOP### ends", []message.Message{say("a"), say("b")}, []message.Message{say("hi"), say("###TRANSFER###"), say("###STOP###")},
			evaluator.UserStop, 2, "", 3},
		{"30 agent steps at most", []message.Message{call("think", `{"thought": "x"}`)}, []message.Message{say("hi")},
			evaluator.MaxSteps, tautrait.MaxSteps, "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			agent, user := &script{msgs: tc.agent}, &script{msgs: tc.user}
			task := &dom.Tasks().Extra["test"][0]
			rec, err := orchestrator.Run(context.Background(), dom, task, agent, user, orchestrator.Config{Loop: tautrait.Loop})
			if err != nil {
				t.Fatal(err)
			}
			if rec.TerminationReason != tc.term || rec.Steps != tc.steps || user.n != tc.userCalls {
				t.Errorf("termination %s after %d steps, %d user turns; want %s, %d, %d", rec.TerminationReason, rec.Steps, user.n, tc.term, tc.steps, tc.userCalls)
			}
			if rec.Messages[0].Role != message.User || user.seen[0][0].Content != orchestrator.DefaultGreeting {
				t.Errorf("the user does not speak first, to the greeting: %+v", rec.Messages[0])
			}
			if len(agent.seen[0]) != 1 || agent.seen[0][0].Content != tc.user[0].Content {
				t.Errorf("the agent's first input %+v; want the user's first message", agent.seen[0])
			}
			var tools []message.Message
			for _, m := range rec.Messages {
				if len(m.ToolCalls) > 1 {
					t.Errorf("a trajectory message keeps %d tool calls", len(m.ToolCalls))
				}
				if m.Role == message.Tool {
					tools = append(tools, m)
					if m.Name == "" {
						t.Errorf("tool message without name: %+v", m)
					}
				}
			}
			if tc.lastTool != "" && (len(tools) == 0 || tools[len(tools)-1].Content != tc.lastTool) {
				t.Errorf("tool messages %+v; want the last %q", tools, tc.lastTool)
			}
			if tc.name == "an empty reply is a respond" && (len(user.seen) < 2 || user.seen[1][0].Content != "") {
				t.Errorf("the user got %+v", user.seen)
			}
			if tc.name == "only the first call runs" && strings.Contains(tools[0].Content, "Transferring") {
				t.Error("the second call ran")
			}
		})
	}
}
