package envs

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

type counter struct{ n int }

type addArgs struct {
	By int `json:"by"`
}

func add(_ context.Context, c *counter, a addArgs) (any, error) {
	c.n += a.By
	return c.n, nil
}

// TestSingle: CallTool and RunToolFunction route and fail as τ²-bench's
// Environment.make_tool_call and run_env_function_call do for a domain
// without user tools (texts as upstream's Python raises them).
func TestSingle(t *testing.T) {
	t.Parallel()
	s := NewSingle("toy", "the policy", nil, tool.NewSet("ToyTools", tool.New("add", tool.Write, "", add)))
	if s.Name() != "toy" || s.Policy() != "the policy" || s.Tasks() != nil || s.UserTools() != nil || len(s.AgentTools()) != 1 {
		t.Fatalf("Single's Domain methods: %q %q %v %v %v", s.Name(), s.Policy(), s.Tasks(), s.UserTools(), s.AgentTools())
	}
	ctx := context.Background()
	args := json.RawMessage(`{"by": 2}`)
	for _, tc := range []struct {
		name      string
		requestor message.Requestor
		tool      string
		call      string // CallTool's error ("" for none)
		run       string // RunToolFunction's error
	}{
		{"assistant", message.ByAssistant, "add", "", ""},
		{"user", message.ByUser, "add", "User tools not available", "'NoneType' object has no attribute 'add'"},
		{"empty requestor", "", "add", "Invalid requestor: ", "Invalid environment type: "},
		{"other requestor", "system", "add", "Invalid requestor: system", "Invalid environment type: system"},
		{"unknown tool", message.ByAssistant, "sub", "Tool 'sub' not found.", "'ToyTools' object has no attribute 'sub'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &counter{}
			_, err := s.CallTool(ctx, c, tc.requestor, tc.tool, args)
			if got := errText(err); got != tc.call {
				t.Errorf("CallTool error = %q; want %q", got, tc.call)
			}
			if tc.call == "" && c.n != 2 {
				t.Errorf("CallTool left %d; want 2", c.n)
			}
			c = &counter{}
			_, err = s.RunToolFunction(ctx, c, tc.requestor, tc.tool, args)
			if got := errText(err); got != tc.run {
				t.Errorf("RunToolFunction error = %q; want %q", got, tc.run)
			}
			if tc.run == "" && c.n != 2 {
				t.Errorf("RunToolFunction left %d; want 2", c.n)
			}
		})
	}
	described := tool.NewSet("ToyTools", tool.New("add", tool.Write, "adds", add))
	s.SetToolset(described)
	if s.Toolset() != described || s.AgentTools()[0].Description != "adds" {
		t.Errorf("SetToolset: AgentTools %v", s.AgentTools())
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
