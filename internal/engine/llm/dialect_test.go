package llm

import (
	"encoding/json"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

// TestDialectTauBenchV1 checks the request τ-bench v1's litellm calls make
// against the τ²-bench default, on the same conversation.
func TestDialectTauBenchV1(t *testing.T) {
	t.Parallel()
	temp, zero := 0.5, 0.0
	enc, err := newEncoder(Backbone{Model: "m", Temperature: &temp, MaxTokens: 64})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []message.Message{
		{Role: message.System, Content: "S"},
		{Role: message.User, Content: "U"},
		{Role: message.Assistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":  1.50}`)}}},
		{Role: message.Tool, ToolCallID: "c1", Name: "f", Content: "R"},
		{Role: message.Assistant, Content: "A"},
	}
	tools := []tool.Info{{Name: "f", Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"tau2 default", Request{Messages: msgs, Tools: tools},
			`{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","name":"f","type":"function","function":{"name":"f","arguments":"{\"a\": 1.5}"}}]},{"role":"tool","content":"R","tool_call_id":"c1"},{"role":"assistant","content":"A","tool_calls":null}],"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{}}}}],"tool_choice":"auto","temperature":0.5,"max_tokens":64}`},
		{"v1 agent: own temperature only", Request{Messages: msgs, Tools: tools, Temperature: &zero, Dialect: DialectTauBenchV1},
			`{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"},{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"a\":  1.50}","name":"f"},"id":"c1","type":"function"}],"function_call":null},{"role":"tool","tool_call_id":"c1","name":"f","content":"R"},{"content":"A","role":"assistant","tool_calls":null,"function_call":null}],"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{}}}}],"temperature":0.0,"max_tokens":64}`},
		{"v1 user: no sampling", Request{Messages: msgs[:2], Dialect: DialectTauBenchV1},
			`{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"max_tokens":64}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := enc.encode(nil, &tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("body\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
