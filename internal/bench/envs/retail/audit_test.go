package retail

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func TestEvidenceReads(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	names := func(calls []message.ToolCall) string {
		var s []string
		for _, c := range calls {
			s = append(s, c.Name+string(c.Arguments))
		}
		return strings.Join(s, " ")
	}
	cases := []struct {
		tool, args, want string
	}{
		{toolReturn, `{"order_id": "#W9571698", "item_ids": ["6065192424"], "payment_method_id": "gift_card_7250692"}`,
			`find_user_id_by_email{"email":"chen.silva2698@example.com"} get_user_details{"user_id":"chen_silva_7485"} get_order_details{"order_id":"#W9571698"}`},
		{toolExchange, `{"order_id": "#W9571698", "item_ids": ["6065192424", "7381052709", "6065192424"], "new_item_ids": ["a", "b", "c"], "payment_method_id": "gift_card_7250692"}`,
			`find_user_id_by_email{"email":"chen.silva2698@example.com"} get_user_details{"user_id":"chen_silva_7485"} get_order_details{"order_id":"#W9571698"} get_product_details{"product_id":"8024098596"} get_product_details{"product_id":"2747247837"}`},
		{toolUserAddress, userAddress,
			`find_user_id_by_email{"email":"olivia.ito5204@example.com"} get_user_details{"user_id":"olivia_ito_3591"}`},
		{toolCancel, `{"order_id": "#W0000000", "reason": "no longer needed"}`, `get_order_details{"order_id":"#W0000000"}`},
		{toolCancel, `{"order_id": 5}`, ``},
		{"get_order_details", `{"order_id": "#W9571698"}`, ``},
	}
	for _, tc := range cases {
		if got := names(d.EvidenceReads(tc.tool, json.RawMessage(tc.args))); got != tc.want {
			t.Errorf("EvidenceReads(%s, %s) =\n%s\nwant\n%s", tc.tool, tc.args, got, tc.want)
		}
	}
}

// allKinds are the mutation kinds the gold writes produce.
var allKinds = []string{MutCrossProductItem, MutForeignOrder, MutForeignPayment, MutInsufficientGiftCard, MutInvalidCancelReason,
	MutItemNotInOrder, MutOtherUser, MutRefundToOtherMethod, MutRepeatWrite, MutSamePaymentMethod, MutUnavailableItem, MutWrongStatus}

// TestGateAuditMutations: the gate catches at least 95% of every mutation
// kind (currently all of them).
func TestGateAuditMutations(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	ts, err := d.Tasks().Select(tasks.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	reps, err := ledgeragent.AuditMutations(context.Background(), d, ts)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range reps {
		kinds = append(kinds, r.Kind)
		if r.Total == 0 || float64(r.Caught) < 0.95*float64(r.Total) {
			t.Errorf("%s: caught %d of %d (missed in tasks %v)", r.Kind, r.Caught, r.Total, r.Missed)
		}
		t.Logf("%-24s %4d/%-4d", r.Kind, r.Caught, r.Total)
	}
	if !slices.Equal(kinds, allKinds) {
		t.Errorf("kinds %v; want %v", kinds, allKinds)
	}
}

// envEnforced are the kinds whose violation upstream's tools reject too: the
// mutated call must fail in the environment. The others are policy-only
// (checked on their own terms below).
var envEnforced = map[string]bool{
	MutWrongStatus: true, MutInvalidCancelReason: true, MutItemNotInOrder: true, MutCrossProductItem: true,
	MutUnavailableItem: true, MutForeignPayment: true, MutRefundToOtherMethod: true, MutInsufficientGiftCard: true,
	MutSamePaymentMethod: true,
}

// TestMutationsViolate checks, independently of the gate, that every
// mutation of every gold write really breaks the policy: at the point of the
// gold write, the mutated call is run on a copy of the environment (same
// history replayed) and must fail where the tools enforce the rule, and
// otherwise target another user's order or profile, or repeat a write that
// already succeeded.
func TestMutationsViolate(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	ts, err := d.Tasks().Select(tasks.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	counts := map[string]int{}
	for i := range ts {
		task := &ts[i]
		env, err := evaluator.NewInitializedEnv(ctx, d, task)
		if err != nil {
			t.Fatal(err)
		}
		l := ledger.New()
		var history []message.ToolCall
		run := func(tc message.ToolCall) message.Message {
			tc.ID = fmt.Sprintf("c%d", len(history))
			tc.Requestor = message.ByAssistant
			res := envs.Respond(ctx, env, tc)
			history = append(history, tc)
			if ti, ok := envs.ToolInfo(d, message.ByAssistant, tc.Name); ok && ti.Kind == "read" && !res.Error {
				l.Absorb(d, tc.Name, tc.Arguments, res.Content)
			}
			return res
		}
		for _, a := range task.GoldActions() {
			tc := message.ToolCall{Name: a.Name, Arguments: a.Arguments}
			if ti, ok := d.Toolset().Lookup(a.Name); !ok || !ti.Mutates() {
				run(tc)
				continue
			}
			for _, r := range d.EvidenceReads(a.Name, a.Arguments) {
				run(r)
			}
			for _, m := range d.Mutations(a.Name, a.Arguments, l) {
				counts[m.Kind]++
				if why := violates(ctx, t, d, task, history, l, m); why != "" {
					t.Errorf("task %s %s %s %s: %s", task.ID, m.Kind, m.Tool, m.Args, why)
				}
			}
			decoded, _ := d.DecodeArgs(a.Name, a.Arguments)
			idx := l.LogWrite(a.Name, a.Arguments, decoded)
			res := run(tc)
			l.Resolve(idx, !res.Error)
		}
	}
	for _, k := range allKinds {
		if counts[k] == 0 {
			t.Errorf("no %s mutation checked", k)
		}
	}
}

// violates returns why m does not violate the policy ("" when it does).
func violates(ctx context.Context, t *testing.T, d *Domain, task *tasks.Task, history []message.ToolCall, l *ledger.Ledger, m ledger.Mutation) string {
	env, err := evaluator.NewInitializedEnv(ctx, d, task)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range history {
		envs.Respond(ctx, env, tc)
	}
	a, ok := d.template(m.Tool, m.Args)
	if !ok {
		return "undecodable"
	}
	auth := authUserID(l)
	res := envs.Respond(ctx, env, message.ToolCall{ID: "mutation", Name: m.Tool, Arguments: m.Args, Requestor: message.ByAssistant})
	switch {
	case envEnforced[m.Kind]:
		if res.Error {
			return ""
		}
		return "the environment accepted it: " + res.Content
	case m.Kind == MutForeignOrder:
		if o, ok := d.DB().Orders.Get(a.OrderID); ok && o.UserID != auth {
			return ""
		}
		return "the order is the authenticated user's"
	case m.Kind == MutOtherUser:
		if a.UserID != auth && a.UserID != "" {
			return ""
		}
		return "the user is the authenticated one"
	case m.Kind == MutRepeatWrite:
		if m.Tool != toolUserAddress && m.Tool != toolModifyAddress && res.Error {
			return "" // the tools enforce once-per-order for items, exchanges and payments
		}
		for _, w := range l.Writes() {
			if w.Tool == m.Tool && w.Succeeded && writeOrderID(w) == a.OrderID {
				if prev := templateOf(w.Decoded); m.Tool != toolUserAddress || (prev.UserID == a.UserID && prev.Address == a.Address) {
					return ""
				}
			}
		}
		return "no earlier successful write to repeat"
	}
	return "unknown kind"
}
