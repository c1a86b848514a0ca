package metrics

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// TestReusedCallIDs: a provider that gives every call the same id must not
// lend one call another's outcome, neither in the action calls nor in the
// gate's violations.
func TestReusedCallIDs(t *testing.T) {
	t.Parallel()
	call := func(args string) message.Message {
		return message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{{ID: "call_0", Name: "cancel_reservation", Arguments: []byte(args)}}}
	}
	traj := []message.Message{
		{Role: message.User, Content: "cancel both"},
		call(`{"reservation_id":"A"}`),
		{Role: message.Tool, ToolCallID: "call_0", Content: "Error: blocked", Error: true},
		call(`{"reservation_id":"B"}`),
		{Role: message.Tool, ToolCallID: "call_0", Content: "{}"},
	}
	cs := calls(traj)
	if len(cs) != 2 || cs[0].executed || !cs[1].executed {
		t.Fatalf("calls executed = %v; want [false true]", []bool{len(cs) > 0 && cs[0].executed, len(cs) > 1 && cs[1].executed})
	}
	tests := []struct {
		name     string
		verdicts []GateVerdict
		want     int
	}{
		{"blocked call did not run", []GateVerdict{{Tool: "cancel_reservation", CallID: "call_0", Verdict: "BLOCK"}, {Tool: "cancel_reservation", CallID: "call_0", Verdict: "ALLOW"}}, 0},
		{"refused call ran", []GateVerdict{{Tool: "cancel_reservation", CallID: "call_0", Verdict: "ALLOW"}, {Tool: "cancel_reservation", CallID: "call_0", Verdict: "BLOCK", Shadow: true}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &results.Record{Messages: traj}
			if got := violations(r, tc.verdicts); len(got) != tc.want {
				t.Errorf("violations = %d; want %d", len(got), tc.want)
			}
		})
	}
}
