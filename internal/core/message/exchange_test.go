package message

import (
	"reflect"
	"testing"
)

func TestExchanges(t *testing.T) {
	t.Parallel()
	call := func(id, name string) ToolCall { return ToolCall{ID: id, Name: name} }
	tests := []struct {
		name string
		traj []Message
		want []int // Result per call, in order
	}{
		{"one call", []Message{
			{Role: Assistant, ToolCalls: []ToolCall{call("a", "x")}},
			{Role: Tool, ToolCallID: "a"},
		}, []int{1}},
		{"id reused across messages pairs by position", []Message{
			{Role: Assistant, ToolCalls: []ToolCall{call("call_0", "read")}},
			{Role: Tool, ToolCallID: "call_0", Content: "first"},
			{Role: User, Content: "ok"},
			{Role: Assistant, ToolCalls: []ToolCall{call("call_0", "write")}},
			{Role: Tool, ToolCallID: "call_0", Content: "second"},
		}, []int{1, 4}},
		{"id reused within one message", []Message{
			{Role: Assistant, ToolCalls: []ToolCall{call("c", "x"), call("c", "y")}},
			{Role: Tool, ToolCallID: "c"},
			{Role: Tool, ToolCallID: "c"},
		}, []int{1, 2}},
		{"answers out of order", []Message{
			{Role: Assistant, ToolCalls: []ToolCall{call("a", "x"), call("b", "y")}},
			{Role: Tool, ToolCallID: "b"},
			{Role: Tool, ToolCallID: "a"},
		}, []int{2, 1}},
		{"unanswered call", []Message{
			{Role: Assistant, ToolCalls: []ToolCall{call("a", "x"), call("b", "y")}},
			{Role: Tool, ToolCallID: "a"},
			{Role: Assistant, Content: "done"},
			{Role: Tool, ToolCallID: "b"}, // not after its own message
		}, []int{1, -1}},
		{"user calls", []Message{
			{Role: User, ToolCalls: []ToolCall{call("u", "toggle")}},
			{Role: Tool, ToolCallID: "u"},
		}, []int{1}},
		{"no calls", []Message{{Role: User, Content: "hi"}, {Role: Assistant, Content: "hello"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			for _, ex := range Exchanges(tc.traj) {
				got = append(got, ex.Result)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Exchanges results = %v; want %v", got, tc.want)
			}
		})
	}
}

func TestExchangesFillsRequestor(t *testing.T) {
	t.Parallel()
	traj := []Message{
		{Role: User, ToolCalls: []ToolCall{{ID: "u", Name: "toggle"}}},
		{Role: Assistant, ToolCalls: []ToolCall{{ID: "a", Name: "get", Requestor: ByAssistant}}},
	}
	ex := Exchanges(traj)
	if ex[0].Call.Requestor != ByUser || ex[1].Call.Requestor != ByAssistant {
		t.Errorf("requestors = %q, %q; want user, assistant", ex[0].Call.Requestor, ex[1].Call.Requestor)
	}
	if ex[0].Message != 0 || ex[1].Message != 1 || ex[0].Answered() {
		t.Errorf("exchanges = %+v", ex)
	}
}
