package ledgeragent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
)

// buggyShop's pay_order predicate panics: a harness defect.
type buggyShop struct{ shop }

func (buggyShop) GatePredicates() []ledger.Predicate {
	return []ledger.Predicate{
		ledger.Typed("shop.pay.buggy", "pay_order", "Payments", func(l *ledger.Ledger, a *payArgs) ledger.Outcome {
			var m map[string]int
			m[a.OrderID]++ // assignment to a nil map
			return ledger.OK
		}),
	}
}

// TestPredicatePanicIsInfrastructure: a predicate that panics ends the
// simulation as an infrastructure error naming it (re-run on resume, never
// scored), instead of a REVISE the model is blamed for.
func TestPredicatePanicIsInfrastructure(t *testing.T) {
	t.Parallel()
	dom := buggyShop{shop{offlinetest.New()}}
	g := &gen{replies: []message.Message{
		{ToolCalls: []message.ToolCall{call("w1", "pay_order", `{"order_id": "#O1", "payment_method_id": "card_1"}`)}},
	}}
	a, err := ledgeragent.New(baseline.New(g, baseline.Options{Policy: offlinetest.Policy, Tools: dom.AgentTools()}), dom, ledgeragent.GateOnly)
	if err != nil {
		t.Fatal(err)
	}
	user := &script{msgs: []message.Message{{Content: "Pay #O1 please, I am u1."}}}
	rec, err := orchestrator.Run(context.Background(), dom, offlinetest.Task("pay"), a, user, orchestrator.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.TerminationReason != evaluator.InfrastructureError || !errors.Is(rec.Cause, fault.ErrInfrastructure) || !errors.Is(rec.Cause, ledger.ErrHarness) {
		t.Fatalf("termination %s cause %v; want an infrastructure error (gate harness error)", rec.TerminationReason, rec.Cause)
	}
	if !strings.Contains(rec.Error, "gate predicate shop.pay.buggy panicked") || !strings.Contains(rec.Error, "nil map") {
		t.Errorf("error %q: want the predicate and the panic named", rec.Error)
	}
	if len(g.reqs) != 1 {
		t.Errorf("the model was called %d times; want once (no gate feedback fed back)", len(g.reqs))
	}
	for _, m := range rec.Messages {
		if strings.HasPrefix(m.Content, ledgeragent.FeedbackPrefix) {
			t.Errorf("gate feedback in the trajectory: %q", m.Content)
		}
	}
	rep := a.Report().(ledgeragent.Report)
	if len(rep.Verdicts) != 1 || rep.Verdicts[0].Decision != ledger.HarnessError {
		t.Errorf("verdicts %+v; want the one harness error", rep.Verdicts)
	}
}

// script replays fixed messages, then "...".
type script struct{ msgs []message.Message }

func (s *script) Next(context.Context, []message.Message) (message.Message, error) {
	if len(s.msgs) == 0 {
		return message.Message{Content: "..."}, nil
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	return m, nil
}
