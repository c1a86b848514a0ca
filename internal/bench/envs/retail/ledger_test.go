package retail

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

var (
	_ ledgeragent.Policy  = (*Domain)(nil)
	_ ledgeragent.Auditor = (*Domain)(nil)
)

// readInto runs agent reads on env and absorbs every successful one into l,
// as LedgerAgent does. A failing read is a test error unless allowFail.
func readInto(t testing.TB, d *Domain, env envs.Env, l *ledger.Ledger, calls ...message.ToolCall) {
	t.Helper()
	for i, tc := range calls {
		tc.ID = fmt.Sprintf("read_%d", i)
		tc.Requestor = message.ByAssistant
		res := envs.Respond(context.Background(), env, tc)
		if res.Error {
			t.Fatalf("%s %s: %s", tc.Name, tc.Arguments, res.Content)
		}
		l.Absorb(d, tc.Name, tc.Arguments, res.Content)
	}
}

// chenSilvaReads are the reads of the paper's retail case study: Chen Silva
// authenticates by name and zip, and the agent reads her profile, the order
// with the tablet and the tablet's product.
func chenSilvaReads() []message.ToolCall {
	return []message.ToolCall{
		ledger.ToolCall("find_user_id_by_name_zip", "first_name", "Chen", "last_name", "Silva", "zip", "46281"),
		ledger.ToolCall("get_user_details", "user_id", "chen_silva_7485"),
		ledger.ToolCall("get_order_details", "order_id", "#W9571698"),
		ledger.ToolCall("get_product_details", "product_id", "8024098596"),
	}
}

func TestRoute(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	env := d.NewEnv()
	out := func(name string, kv ...any) string {
		tc := ledger.ToolCall(name, kv...)
		tc.ID = "x"
		res := envs.Respond(context.Background(), env, tc)
		if res.Error {
			t.Fatalf("%s: %s", name, res.Content)
		}
		return res.Content
	}
	cases := []struct {
		tool   string
		output string
		path   string
		check  func(v any) bool
	}{
		{"find_user_id_by_email", out("find_user_id_by_email", "email", "chen.silva2698@example.com"), "auth.user_id",
			func(v any) bool { return v == "chen_silva_7485" }},
		{"find_user_id_by_name_zip", out("find_user_id_by_name_zip", "first_name", "Chen", "last_name", "Silva", "zip", "46281"), "auth.user_id",
			func(v any) bool { return v == "chen_silva_7485" }},
		{"get_user_details", out("get_user_details", "user_id", "chen_silva_7485"), "user",
			func(v any) bool { u, ok := v.(*User); return ok && u.PaymentMethods.Len() == 2 && len(u.Orders) == 4 }},
		{"get_order_details", out("get_order_details", "order_id", "#W9571698"), "orders.#W9571698",
			func(v any) bool { o, ok := v.(*Order); return ok && o.Status == StatusDelivered && len(o.Items) == 4 }},
		{"get_product_details", out("get_product_details", "product_id", "8024098596"), "products.8024098596",
			func(v any) bool {
				p, ok := v.(*Product)
				return ok && p.Name == "Tablet" && p.Variants.Has("6065192424")
			}},
		{"get_item_details", out("get_item_details", "item_id", "6065192424"), "items.6065192424",
			func(v any) bool { it, ok := v.(*Variant); return ok && it.Price == 989.7 }},
		{"list_all_product_types", out("list_all_product_types"), "product_types",
			func(v any) bool { m, ok := v.(*omap.Map[string]); return ok && m.Len() == 50 }},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			es := d.Route(tc.tool, nil, tc.output)
			if len(es) != 1 || es[0].Path != tc.path || !tc.check(es[0].Value) {
				t.Fatalf("Route = %+v; want one entry at %s", es, tc.path)
			}
			// The stored record renders as the tool returned it.
			if tc.path != "auth.user_id" {
				l := ledger.New()
				l.Put(es[0].Path, es[0].Value)
				line := strings.Split(l.Render(), "\n")[2]
				if got := strings.TrimPrefix(line, tc.path+": "); got != tc.output {
					t.Errorf("rendered %s\nwant        %s", got, tc.output)
				}
			}
		})
	}
	// Not routed: non-reads, writes, garbage.
	for _, tc := range []struct{ tool, output string }{
		{"calculate", "4.0"},
		{"transfer_to_human_agents", "Transfer successful"},
		{"cancel_pending_order", out("get_order_details", "order_id", "#W9571698")},
		{"get_order_details", "not json"},
		{"get_order_details", `{"order_id": ""}`},
		{"get_user_details", `{"user_id": "x", "payment_methods": {"p": {"source": "bitcoin", "id": "p"}}}`},
		{"get_product_details", `[]`},
		{"get_item_details", `{"item_id": 5}`},
		{"find_user_id_by_email", ""},
		{"find_user_id_by_email", `{"user_id": "x"}`},
		{"list_all_product_types", `["a"]`},
	} {
		if es := d.Route(tc.tool, nil, tc.output); es != nil {
			t.Errorf("Route(%s, %.40q) = %+v; want nil", tc.tool, tc.output, es)
		}
	}
}

// FuzzRoute: any output of any read tool gives entries or nothing, never a
// panic, and the entries render.
func FuzzRoute(f *testing.F) {
	d := domainForTest(f)
	for _, s := range []string{`{"order_id": "#W1", "items": [], "payment_history": []}`, `{"user_id": "u", "payment_methods": {}}`,
		`{"product_id": "1", "variants": {"2": {"item_id": "2", "options": {}, "available": true, "price": 1}}}`, `{"A": "1"}`, "u_1", "null"} {
		f.Add("get_order_details", s)
		f.Add("get_user_details", s)
		f.Add("get_product_details", s)
		f.Add("get_item_details", s)
		f.Add("list_all_product_types", s)
		f.Add("find_user_id_by_email", s)
	}
	f.Fuzz(func(t *testing.T, tool, output string) {
		l := ledger.New()
		l.Absorb(d, tool, nil, output)
		_ = l.Render()
	})
}

// TestRenderGolden renders the ledger of the paper's retail case study after
// absorbing the real tool outputs.
func TestRenderGolden(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	l := ledger.New()
	readInto(t, d, d.NewEnv(), l, chenSilvaReads()...)
	golden(t, "ledger_chen_silva.golden", l.Render())

	// A second scenario: an authenticated user with pending, processed and
	// delivered orders, an item and the product type list.
	l = ledger.New()
	readInto(t, d, d.NewEnv(), l, oliviaReads()...)
	readInto(t, d, d.NewEnv(), l,
		ledger.ToolCall("get_item_details", "item_id", "8214883393"),
		ledger.ToolCall("list_all_product_types"))
	golden(t, "ledger_olivia_ito.golden", l.Render())
}

// longConversation returns a ledger at the end of a long conversation (the
// user, every one of their orders, the products of those orders) and the
// next read to absorb.
func longConversation(b testing.TB, d *Domain) (*ledger.Ledger, message.ToolCall, string) {
	env := d.NewEnv()
	l := ledger.New()
	reads := oliviaReads()
	u, _ := d.DB().Users.Get("olivia_ito_3591")
	for _, id := range u.Orders {
		o, _ := d.DB().Orders.Get(id)
		reads = append(reads, ledger.ToolCall("get_order_details", "order_id", id))
		for _, it := range o.Items {
			reads = append(reads, ledger.ToolCall("get_product_details", "product_id", it.ProductID))
		}
	}
	readInto(b, d, env, l, reads...)
	next := ledger.ToolCall("get_order_details", "order_id", "#W5442520")
	res := envs.Respond(context.Background(), env, message.ToolCall{ID: "n", Name: next.Name, Arguments: next.Arguments})
	return l, next, res.Content
}

// BenchmarkLedgerTurn measures LedgerAgent's per-turn work at the end of a
// long conversation: absorbing one read (an order), rendering the whole
// ledger, and judging one write.
func BenchmarkLedgerTurn(b *testing.B) {
	d := domainForTest(b)
	l, next, output := longConversation(b, d)
	b.Logf("%d entries, %d rendered bytes", l.Len(), len(l.Render()))
	b.Run("absorb", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l.Absorb(d, next.Name, next.Arguments, output)
		}
	})
	b.Run("render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = l.Render()
		}
	})
	gate := ledger.NewGate(d.GatePredicates(), writeTools(d), d.DecodeArgs)
	write := json.RawMessage(`{"order_id": "#W5442520", "item_ids": ["3330317167"], "new_item_ids": ["8214883393"], "payment_method_id": "gift_card_7794233"}`)
	if v := gate.Judge(l, toolModifyItems, "", write); v.Decision != ledger.Allow {
		b.Fatalf("verdict %+v", v)
	}
	b.Run("gate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = gate.Judge(l, toolModifyItems, "", write)
		}
	})
}

func writeTools(d *Domain) []string {
	var out []string
	for _, ti := range d.AgentTools() {
		if ti.Mutates() {
			out = append(out, ti.Name)
		}
	}
	return out
}

// TestRouteFastDecode: the fast order and product decoders give the same
// records as the reflective ones, on every order and product of the
// database, and odd shapes fall back to the reflective decoder.
func TestRouteFastDecode(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	for id, o := range d.DB().Orders.All() {
		raw := []byte(pyjson.String(o))
		fast, err := fastOrder(raw)
		slow, err2 := decodeOrder(raw)
		if err != nil || err2 != nil || pyjson.String(fast) != pyjson.String(slow) || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("order %s: fast %v %+v\nslow %v %+v", id, err, fast, err2, slow)
		}
	}
	for id, p := range d.DB().Products.All() {
		raw := []byte(pyjson.String(p))
		fast, err := fastProduct(raw)
		slow, err2 := decodeProduct(raw)
		if err != nil || err2 != nil || pyjson.String(fast) != pyjson.String(slow) {
			t.Fatalf("product %s: fast %v %+v\nslow %v %+v", id, err, fast, err2, slow)
		}
	}
	// Orders after writes (optional fields set; an int price difference).
	for _, raw := range []string{
		`{"order_id": "#W1", "user_id": "u", "address": {}, "items": [], "status": "exchange requested", "fulfillments": [], "payment_history": [], "cancel_reason": null, "exchange_items": [], "exchange_new_items": [], "exchange_payment_method_id": "gift_card_1", "exchange_price_difference": 0, "return_items": ["1", "2"], "return_payment_method_id": "paypal_2"}`,
		`{"order_id": "#W1", "user_id": "u", "items": [{"name": "A \"q\"", "product_id": "1", "item_id": "2", "price": 10, "options": {"k": "é"}}], "exchange_price_difference": -1.5e2, "cancel_reason": "no longer needed", "extra": {"x": [1]}}`,
	} {
		fast, err := fastOrder([]byte(raw))
		if err != nil {
			t.Fatalf("fastOrder(%s): %v", raw, err)
		}
		slow, _ := decodeOrder([]byte(raw))
		slow.ExchangePriceDifference.Int = fast.ExchangePriceDifference.Int // json ignores the literal's form
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("fastOrder(%s) = %+v; want %+v", raw, fast, slow)
		}
	}
	// Shapes the fast path leaves to the reflective decoder.
	for _, raw := range []string{
		`{"order_id": "#W1", "items": null}`,
		`{"order_id": 5}`,
		`{"order_id": "#W1", "payment_history": [{"amount": "5"}]}`,
		`{"order_id": "#W1", "exchange_price_difference": Infinity}`,
		`{"order_id": "#W1", "items": [{"price": 0x10}]}`,
		`[]`,
	} {
		if _, err := fastOrder([]byte(raw)); err == nil {
			t.Errorf("fastOrder(%s) succeeded", raw)
		}
	}
	for _, raw := range []string{`{"product_id": "1", "variants": {"2": {"available": 1}}}`, `{"product_id": "1", "variants": null}`} {
		if _, err := fastProduct([]byte(raw)); err == nil {
			t.Errorf("fastProduct(%s) succeeded", raw)
		}
	}
}

// golden checks got against testdata/<name> (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldentest.Check(t, *update, name, got)
}
