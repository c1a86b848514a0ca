package ledgeragent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
)

const (
	payO1      = `{"order_id": "#O1", "payment_method_id": "card_1"}`
	orderO1    = `{"order_id": "#O1", "user_id": "u1", "status": "pending", "paid_with": ""}`
	orderO1Pd  = `{"order_id": "#O1", "user_id": "u1", "status": "pending", "paid_with": "card_1"}`
	userU1     = `{"user_id": "u1", "payment_methods": {"card_1": {}}}`
	readO1     = `{"order_id": "#O1"}`
	readUserU1 = `{"user_id": "u1"}`
)

func decisions(vs []ledger.Verdict) []ledger.Decision {
	var out []ledger.Decision
	for _, v := range vs {
		out = append(out, v.Decision)
	}
	return out
}

// TestShadowReusedIDs: a provider that reuses one tool-call id for every
// call must not make the audit pair a read with another call's output.
func TestShadowReusedIDs(t *testing.T) {
	t.Parallel()
	dom := shop{offlinetest.New()}
	for _, tc := range []struct {
		name string
		traj []message.Message
		want ledger.Decision
	}{
		{"order then user, same id", []message.Message{
			{Role: message.Assistant, ToolCalls: []message.ToolCall{call("x", "get_order_details", readO1)}},
			{Role: message.Tool, ToolCallID: "x", Content: orderO1},
			{Role: message.Assistant, ToolCalls: []message.ToolCall{call("x", "get_user_details", readUserU1)}},
			{Role: message.Tool, ToolCallID: "x", Content: userU1},
			{Role: message.Assistant, ToolCalls: []message.ToolCall{call("x", "pay_order", payO1)}},
			{Role: message.Tool, ToolCallID: "x", Content: "{}"},
		}, ledger.Allow},
		{"two reads in one message, same id", []message.Message{
			{Role: message.Assistant, ToolCalls: []message.ToolCall{call("x", "get_order_details", readO1), call("x", "get_user_details", readUserU1)}},
			{Role: message.Tool, ToolCallID: "x", Content: orderO1},
			{Role: message.Tool, ToolCallID: "x", Content: userU1},
			{Role: message.Assistant, ToolCalls: []message.ToolCall{call("x", "pay_order", payO1)}},
			{Role: message.Tool, ToolCallID: "x", Content: "{}"},
		}, ledger.Allow},
		{"a later read of a paid order under the same id", []message.Message{
			{Role: message.Assistant, ToolCalls: []message.ToolCall{call("x", "get_user_details", readUserU1)}},
			{Role: message.Tool, ToolCallID: "x", Content: userU1},
			{Role: message.Assistant, ToolCalls: []message.ToolCall{call("x", "get_order_details", readO1)}},
			{Role: message.Tool, ToolCallID: "x", Content: orderO1Pd},
			{Role: message.Assistant, ToolCalls: []message.ToolCall{call("x", "pay_order", payO1)}},
			{Role: message.Tool, ToolCallID: "x", Content: "{}"},
		}, ledger.Block},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := ledgeragent.ShadowVerdicts(dom, tc.traj)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 1 || vs[0].Decision != tc.want {
				t.Errorf("verdicts = %v (%+v); want [%s]", decisions(vs), vs, tc.want)
			}
		})
	}
}

// TestShadowSameMessageSemantics: a read and a write proposed in one
// message: live, the write is judged before the read returns; the shadow
// audit of the same recorded message gives the same verdict.
func TestShadowSameMessageSemantics(t *testing.T) {
	t.Parallel()
	dom := shop{offlinetest.New()}
	msg := message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{
		call("r1", "get_user_details", readUserU1), call("r2", "get_order_details", readO1), call("w1", "pay_order", payO1)}}
	traj := []message.Message{
		msg,
		{Role: message.Tool, ToolCallID: "r1", Content: userU1},
		{Role: message.Tool, ToolCallID: "r2", Content: orderO1},
		{Role: message.Tool, ToolCallID: "w1", Content: "{}"},
	}
	shadow, err := ledgeragent.Shadow(dom, traj)
	if err != nil {
		t.Fatal(err)
	}
	g := &gen{replies: []message.Message{msg}}
	a := newAgent(t, g, ledgeragent.Full)
	if _, err := a.Next(context.Background(), []message.Message{{Role: message.User, Content: "pay"}}); err != nil {
		t.Fatal(err)
	}
	live := a.Report().(ledgeragent.Report).Verdicts
	if len(shadow) != 1 || len(live) != 1 {
		t.Fatalf("shadow %d verdicts, live %d; want 1 each", len(shadow), len(live))
	}
	if shadow[0].Decision != ledger.Revise || live[0].Decision != shadow[0].Decision || live[0].Predicate != shadow[0].Predicate {
		t.Errorf("shadow %s %s, live %s %s; want the same REVISE", shadow[0].Decision, shadow[0].Predicate, live[0].Decision, live[0].Predicate)
	}
	if shadow[0].Message != 0 || shadow[0].CallID != "w1" || shadow[0].EnvRejected {
		t.Errorf("shadow position = msg %d call %q rejected %v", shadow[0].Message, shadow[0].CallID, shadow[0].EnvRejected)
	}
}

// TestLiveReusedIDs: the live agent pairs results with its calls in order
// when a provider reuses an id inside one message.
func TestLiveReusedIDs(t *testing.T) {
	t.Parallel()
	g := &gen{replies: []message.Message{
		{ToolCalls: []message.ToolCall{call("x", "get_order_details", readO1), call("x", "get_user_details", readUserU1)}},
		{Content: "ok"},
	}}
	a := newAgent(t, g, ledgeragent.Full)
	if _, err := a.Next(context.Background(), []message.Message{{Role: message.User, Content: "pay"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Next(context.Background(), []message.Message{
		{Role: message.Tool, ToolCallID: "x", Content: orderO1},
		{Role: message.Tool, ToolCallID: "x", Content: userU1},
	}); err != nil {
		t.Fatal(err)
	}
	if !a.Ledger().Has("orders.#O1") || !a.Ledger().Has("user") {
		t.Errorf("ledger paths = %v; want orders.#O1 and user", a.Ledger().Paths())
	}
}

// TestFailuresLabelled: every failing predicate is reported with its own id
// and reason; the verdict's Reason is the deciding predicate's.
func TestFailuresLabelled(t *testing.T) {
	t.Parallel()
	dom := shop{offlinetest.New()}
	g := ledgeragent.NewGate(dom, dom)
	v := g.Judge(ledger.New(), "pay_order", "c", []byte(payO1))
	if v.Decision != ledger.Revise || len(v.Predicates) != 2 {
		t.Fatalf("verdict = %+v; want REVISE from two predicates", v)
	}
	if v.Predicates[0].ID != "shop.pay.order_read" || v.Predicates[0].Reason != "Read order #O1 first." ||
		v.Predicates[1].ID != "shop.pay.method_owned" || v.Predicates[1].Reason != "Read the user first." {
		t.Errorf("predicates = %+v", v.Predicates)
	}
	if v.Predicate != v.Predicates[0].ID || v.Reason != v.Predicates[0].Reason {
		t.Errorf("deciding predicate %s %q; want the first failure's", v.Predicate, v.Reason)
	}
	fb := ledgeragent.FeedbackText(v)
	for _, want := range []string{"Read order #O1 first. (policy: Payments; check shop.pay.order_read)", "Read the user first. (policy: Payments; check shop.pay.method_owned)"} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback %q lacks %q", fb, want)
		}
	}
}
