package ledgeragent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
)

// shop is the offline test domain with a ledger policy: orders are stored at
// orders.<id>; pay_order needs the order read, and refuses orders that are
// already paid (BLOCK) or a payment method the user does not have (REVISE).
type shop struct{ *offlinetest.Domain }

type order struct {
	OrderID  string `json:"order_id"`
	UserID   string `json:"user_id"`
	Status   string `json:"status"`
	PaidWith string `json:"paid_with"`
}

type user struct {
	UserID         string         `json:"user_id"`
	PaymentMethods map[string]any `json:"payment_methods"`
}

func (shop) Route(tool string, args json.RawMessage, out string) []ledger.Entry {
	switch tool {
	case "get_order_details":
		var o order
		if json.Unmarshal([]byte(out), &o) == nil {
			return []ledger.Entry{{Path: "orders." + o.OrderID, Value: &o}}
		}
	case "get_user_details":
		var u user
		if json.Unmarshal([]byte(out), &u) == nil {
			return []ledger.Entry{{Path: "user", Value: &u}}
		}
	}
	return nil
}

type payArgs struct {
	OrderID         string `json:"order_id"`
	PaymentMethodID string `json:"payment_method_id"`
}

func (shop) DecodeArgs(tool string, raw json.RawMessage) (any, *ledger.Failure) {
	var a payArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &ledger.Failure{ID: "shop.pay.arguments", Clause: "Payments", Reason: "arguments unreadable"}
	}
	return &a, nil
}

func (shop) GatePredicates() []ledger.Predicate {
	return []ledger.Predicate{
		ledger.Typed("shop.pay.order_read", "pay_order", "Payments", func(l *ledger.Ledger, a *payArgs) ledger.Outcome {
			v, ok := l.Get("orders." + a.OrderID)
			if !ok {
				return ledger.NeedRevise("Read order " + a.OrderID + " first.")
			}
			if v.(*order).PaidWith != "" {
				return ledger.Refuse("Order " + a.OrderID + " is already paid.")
			}
			return ledger.OK
		}),
		ledger.Typed("shop.pay.method_owned", "pay_order", "Payments", func(l *ledger.Ledger, a *payArgs) ledger.Outcome {
			v, ok := l.Get("user")
			if !ok {
				return ledger.NeedRevise("Read the user first.")
			}
			if _, ok := v.(*user).PaymentMethods[a.PaymentMethodID]; !ok {
				return ledger.NeedRevise("Payment method " + a.PaymentMethodID + " is not the user's.")
			}
			return ledger.OK
		}),
	}
}

// gen replays replies and records requests.
type gen struct {
	replies []message.Message
	reqs    []llm.Request
}

func (g *gen) Generate(_ context.Context, r llm.Request) (llm.Response, error) {
	g.reqs = append(g.reqs, r)
	m := message.Message{Content: "..."}
	if len(g.replies) > 0 {
		m, g.replies = g.replies[0], g.replies[1:]
	}
	m.Role = message.Assistant
	return llm.Response{Message: m, Usage: message.Usage{PromptTokens: 10, CompletionTokens: 1}}, nil
}

func call(id, name, args string) message.ToolCall {
	return message.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func newAgent(t *testing.T, g *gen, mode ledgeragent.Mode) *ledgeragent.Agent {
	t.Helper()
	dom := shop{offlinetest.New()}
	base := baseline.New(g, baseline.Options{Policy: offlinetest.Policy, Tools: dom.AgentTools()})
	a, err := ledgeragent.New(base, dom, mode)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestReviseRemovesCallAndKeepsTurn(t *testing.T) {
	t.Parallel()
	g := &gen{replies: []message.Message{
		// reads and an unreadied write in one message: the write is revised, the read goes out
		{ToolCalls: []message.ToolCall{call("r1", "get_user_details", `{"user_id": "u1"}`), call("w1", "pay_order", `{"order_id": "#O1", "payment_method_id": "card_1"}`)}},
	}}
	a := newAgent(t, g, ledgeragent.Full)
	out, err := a.Next(context.Background(), []message.Message{{Role: message.User, Content: "pay #O1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.ToolCalls) != 1 || out.ToolCalls[0].ID != "r1" {
		t.Fatalf("sent calls = %+v; want only the read", out.ToolCalls)
	}
	rep := a.Report().(ledgeragent.Report)
	if len(rep.Verdicts) != 1 || rep.Verdicts[0].Decision != ledger.Revise || rep.Verdicts[0].Predicate != "shop.pay.order_read" {
		t.Fatalf("verdicts = %+v", rep.Verdicts)
	}
	// the model's own history answers the revised call with the gate's feedback
	g.replies = []message.Message{{Content: "ok"}}
	if _, err := a.Next(context.Background(), []message.Message{{Role: message.Tool, ToolCallID: "r1", Content: `{"user_id": "u1", "payment_methods": {"card_1": {}}}`}}); err != nil {
		t.Fatal(err)
	}
	last := g.reqs[len(g.reqs)-1].Messages
	var fb string
	for _, m := range last {
		if m.Role == message.Tool && m.ToolCallID == "w1" {
			fb = m.Content
		}
	}
	if !strings.HasPrefix(fb, ledgeragent.FeedbackPrefix+": REVISE") || !strings.Contains(fb, "Read order #O1 first.") {
		t.Errorf("feedback = %q", fb)
	}
	// the successful read is now in the ledger and rendered into the system prompt
	if !a.Ledger().Has("user") || !strings.Contains(last[0].Content, "<ledger>") || !strings.Contains(last[0].Content, "user: {") {
		t.Errorf("ledger not rendered: %q", last[0].Content)
	}
}

func TestAllCallsGatedRegenerates(t *testing.T) {
	t.Parallel()
	g := &gen{replies: []message.Message{
		{ToolCalls: []message.ToolCall{call("w1", "pay_order", `{"order_id": "#O1", "payment_method_id": "card_1"}`)}},
		{ToolCalls: []message.ToolCall{call("r1", "get_order_details", `{"order_id": "#O1"}`)}},
	}}
	a := newAgent(t, g, ledgeragent.Full)
	out, err := a.Next(context.Background(), []message.Message{{Role: message.User, Content: "pay"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.reqs) != 2 || len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != "get_order_details" {
		t.Fatalf("calls %d, out %+v; want a regeneration that reads the order", len(g.reqs), out)
	}
}

func TestBlockAndFailedReadsAndWrites(t *testing.T) {
	t.Parallel()
	g := &gen{replies: []message.Message{
		{ToolCalls: []message.ToolCall{call("r1", "get_order_details", `{"order_id": "#O1"}`), call("r2", "get_order_details", `{"order_id": "#X"}`)}},
		{ToolCalls: []message.ToolCall{call("w1", "pay_order", `{"order_id": "#O1", "payment_method_id": "card_1"}`)}},
		{Content: "It is already paid."},
	}}
	a := newAgent(t, g, ledgeragent.Full)
	if _, err := a.Next(context.Background(), []message.Message{{Role: message.User, Content: "pay"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Next(context.Background(), []message.Message{
		{Role: message.Tool, ToolCallID: "r1", Content: `{"order_id": "#O1", "user_id": "u1", "status": "pending", "paid_with": "card_1"}`},
		{Role: message.Tool, ToolCallID: "r2", Content: "Error: order not found", Error: true},
	}); err != nil {
		t.Fatal(err)
	}
	if a.Ledger().Len() != 1 || !a.Ledger().Has("orders.#O1") {
		t.Fatalf("ledger paths = %v; a failed read must not enter", a.Ledger().Paths())
	}
	rep := a.Report().(ledgeragent.Report)
	var decisions []string
	for _, v := range rep.Verdicts {
		decisions = append(decisions, string(v.Decision))
	}
	if strings.Join(decisions, ",") != "BLOCK" {
		t.Errorf("verdicts = %v; want BLOCK (already paid)", decisions)
	}
}

func TestModesAndModelCalls(t *testing.T) {
	t.Parallel()
	for _, mode := range []ledgeragent.Mode{ledgeragent.LedgerOnly, ledgeragent.GateOnly} {
		g := &gen{replies: []message.Message{{ToolCalls: []message.ToolCall{call("w1", "pay_order", `{"order_id": "#O1", "payment_method_id": "card_1"}`)}}}}
		a := newAgent(t, g, mode)
		out, _ := a.Next(context.Background(), []message.Message{{Role: message.User, Content: "pay"}})
		switch mode {
		case ledgeragent.LedgerOnly:
			if len(out.ToolCalls) != 1 {
				t.Errorf("ledger-only must not gate: %+v", out)
			}
		case ledgeragent.GateOnly:
			for _, r := range g.reqs {
				if strings.Contains(r.Messages[0].Content, "<ledger>") {
					t.Errorf("gate-only must not render the ledger")
				}
			}
		}
	}
}

var _ orchestrator.Agent = (*ledgeragent.Agent)(nil)

func BenchmarkAgentTurn(b *testing.B) {
	dom := shop{offlinetest.New()}
	g := &gen{}
	base := baseline.New(g, baseline.Options{Policy: offlinetest.Policy, Tools: dom.AgentTools()})
	a, _ := ledgeragent.New(base, dom, ledgeragent.Full)
	for i := 0; i < 30; i++ {
		a.Ledger().Put("orders.#"+string(rune('A'+i)), &order{OrderID: "#x", Status: "pending"})
	}
	in := []message.Message{{Role: message.User, Content: "hi"}}
	b.ReportAllocs()
	for b.Loop() {
		g.reqs = g.reqs[:0]
		if _, err := a.Next(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}
