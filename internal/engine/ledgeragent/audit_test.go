package ledgeragent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func (shop) EvidenceReads(tool string, args json.RawMessage) []message.ToolCall {
	var a struct {
		OrderID string `json:"order_id"`
	}
	_ = json.Unmarshal(args, &a) // bad arguments: no order to read
	return []message.ToolCall{
		{Name: "get_user_details", Arguments: json.RawMessage(`{"user_id": "u1"}`)},
		{Name: "get_order_details", Arguments: json.RawMessage(`{"order_id": "` + a.OrderID + `"}`)},
	}
}

func (shop) Mutations(tool string, args json.RawMessage, l *ledger.Ledger) []ledger.Mutation {
	if tool != "pay_order" {
		return nil
	}
	return []ledger.Mutation{
		{Kind: "foreign_payment_method", Tool: tool, Args: json.RawMessage(`{"order_id": "#O1", "payment_method_id": "card_999"}`)},
		{Kind: "unread_order", Tool: tool, Args: json.RawMessage(`{"order_id": "#O9", "payment_method_id": "card_1"}`)},
	}
}

func TestAudits(t *testing.T) {
	t.Parallel()
	dom := shop{offlinetest.New()}
	ts := offlinetest.Tasks()[:1] // "pay"
	// the gold script's evidence: the write lacks the reads its gate needs
	script, err := ledgeragent.EvidencePlan(context.Background(), dom, &ts[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(script.Reads) != 3 || len(script.Reads[2]) != 0 || len(script.EnvRejected) != 3 || script.EnvRejected[2] {
		t.Errorf("evidence plan = %+v; want no reads before pay_order (the gold reads hold what its gate needs) and no rejection", script)
	}
	muts, err := ledgeragent.AuditMutations(context.Background(), dom, ts)
	if err != nil {
		t.Fatal(err)
	}
	if len(muts) != 2 {
		t.Fatalf("mutation kinds = %+v", muts)
	}
	for _, m := range muts {
		if m.Total != 1 || m.Caught != 1 {
			t.Errorf("%s: %d/%d caught", m.Kind, m.Caught, m.Total)
		}
	}
	// shadow verdicts from recorded outputs: the write came before any read
	traj := []message.Message{
		{Role: message.Assistant, ToolCalls: []message.ToolCall{call("w", "pay_order", `{"order_id": "#O1", "payment_method_id": "card_1"}`)}},
		{Role: message.Tool, ToolCallID: "w", Content: "{}"},
		{Role: message.Assistant, ToolCalls: []message.ToolCall{call("r", "get_order_details", `{"order_id": "#O1"}`)}},
		{Role: message.Tool, ToolCallID: "r", Content: `{"order_id": "#O1", "paid_with": ""}`},
	}
	zero := 0.0
	runs := []ledgeragent.RecordedRun{{Index: 3, TaskID: "pay", Trial: 1, Messages: traj, Reward: 1, Rescored: &zero}}
	reps, stops, err := ledgeragent.AuditRecorded(dom, "f.json", runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 {
		t.Fatalf("rows = %+v; want success/failure and an empty failure row", reps)
	}
	if s := reps[0]; s.Outcome != "success" || s.Rescored != "failure" || s.Runs != 1 || s.Writes != 1 || s.Revise != 1 || s.Flagged != 1 || s.StoppedNotRejected != 1 || s.StoppedEnvRejected != 0 {
		t.Errorf("recorded success row = %+v", s)
	}
	if f := reps[1]; f.Outcome != "failure" || f.Runs != 0 {
		t.Errorf("recorded failure row = %+v", f)
	}
	if len(stops) != 1 {
		t.Fatalf("stops = %+v", stops)
	}
	st := stops[0]
	if st.Report != "verdict" || st.SimulationIndex != 3 || st.MessageIndex != 0 || st.CallID != "w" || st.TaskID != "pay" || st.Trial != 1 ||
		st.Verdict != ledger.Revise || st.Outcome != "success" || st.Rescored != "failure" || st.EnvRejected ||
		len(st.Predicates) != 2 || st.Predicates[0].ID != "shop.pay.order_read" {
		t.Errorf("stop = %+v", st)
	}
}

// TestEvidencePlan: the gold script reads what the gate needs before a
// write, only when the gold reads so far do not hold it; a user action in
// between makes earlier reads stale (what the user did reaches the agent
// only through what it reads again), and a read is not repeated while
// nothing changed, nor after a write that left its answer as it was unless
// the gate needs it.
func TestEvidencePlan(t *testing.T) {
	t.Parallel()
	dom := shop{offlinetest.New()}
	act := func(by, name, args string) tasks.Action {
		return tasks.Action{Requestor: by, Name: name, Arguments: json.RawMessage(args)}
	}
	pay := act("", "pay_order", `{"order_id": "#O1", "payment_method_id": "card_1"}`)
	tests := []struct {
		name  string
		gold  []tasks.Action
		reads []int // evidence reads before each gold action
	}{
		{"no reads in the gold", []tasks.Action{pay}, []int{2}},
		{"gold reads suffice", []tasks.Action{act("", "get_user_details", `{"user_id": "u1"}`), act("", "get_order_details", `{"order_id": "#O1"}`), pay}, []int{0, 0, 0}},
		{"one read missing, the other not repeated", []tasks.Action{act("", "get_order_details", `{"order_id": "#O1"}`), pay}, []int{0, 1}},
		{"reads before a user action are made again", []tasks.Action{act("", "get_order_details", `{"order_id": "#O1"}`), act("user", "restart_device", `{}`), pay}, []int{0, 0, 2}},
		{"the gold reads suffice after a user action", []tasks.Action{act("", "get_user_details", `{"user_id": "u1"}`), act("user", "restart_device", `{}`), act("", "get_order_details", `{"order_id": "#O1"}`), pay}, []int{0, 0, 0, 0}},
		// the user record the first payment left as it was is not read again
		{"a read a write left unchanged is not repeated", []tasks.Action{pay, act("", "pay_order", `{"order_id": "#O2", "payment_method_id": "card_1"}`)}, []int{2, 1}},
		{"a user action makes an unchanged read count again", []tasks.Action{pay, act("user", "restart_device", `{}`), act("", "pay_order", `{"order_id": "#O2", "payment_method_id": "card_1"}`)}, []int{2, 0, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			task := &tasks.Task{ID: "t", EvaluationCriteria: &tasks.EvaluationCriteria{Actions: tc.gold}}
			script, err := ledgeragent.EvidencePlan(context.Background(), dom, task)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, r := range script.Reads {
				got = append(got, len(r))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.reads) {
				t.Errorf("evidence reads per gold action = %v; want %v (%+v)", got, tc.reads, script.Reads)
			}
		})
	}
}
