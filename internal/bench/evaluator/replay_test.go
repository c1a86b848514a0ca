package evaluator

import (
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// TestReplayExchanges checks the trajectory shapes upstream's
// get_actions_from_messages accepts and the ones it raises for.
func TestReplayExchanges(t *testing.T) {
	t.Parallel()
	call := func(ids ...string) message.Message {
		m := message.Message{Role: message.Assistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, message.ToolCall{ID: id, Name: "f"})
		}
		return m
	}
	tool := func(id string) message.Message { return message.Message{Role: message.Tool, ToolCallID: id} }
	text := func(r message.Role) message.Message { return message.Message{Role: r, Content: "hi"} }
	tests := []struct {
		name    string
		traj    []message.Message
		results []int // the tool message answering each call
		err     string
	}{
		{"in order", []message.Message{text(message.User), call("a", "b"), tool("a"), tool("b"), text(message.Assistant)}, []int{2, 3}, ""},
		{"reused ids across messages", []message.Message{call("x"), tool("x"), call("x"), tool("x")}, []int{1, 3}, ""},
		{"reused ids within a message", []message.Message{call("x", "x"), tool("x"), tool("x")}, []int{1, 2}, ""},
		{"answers out of order", []message.Message{call("a", "b"), tool("b"), tool("a")}, nil, "id mismatch"},
		{"missing answer", []message.Message{call("a", "b"), tool("a"), text(message.User)}, nil, "no tool message"},
		{"orphan tool message", []message.Message{text(message.User), tool("a")}, nil, "answers no tool call"},
		{"extra tool message", []message.Message{call("a"), tool("a"), tool("a")}, nil, "answers no tool call"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			exs, err := ReplayExchanges(tc.traj)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ReplayExchanges error %v; want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, ex := range exs {
				got = append(got, ex.Result)
			}
			if len(got) != len(tc.results) {
				t.Fatalf("results %v; want %v", got, tc.results)
			}
			for i := range got {
				if got[i] != tc.results[i] {
					t.Errorf("results %v; want %v", got, tc.results)
				}
			}
		})
	}
}
