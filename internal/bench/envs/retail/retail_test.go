package retail

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	if got := []int{d.db.Products.Len(), d.db.Users.Len(), d.db.Orders.Len()}; got[0] != 50 || got[1] != 500 || got[2] != 1000 {
		t.Errorf("products, users, orders = %v; want [50 500 1000]", got)
	}
	if d.Name() != "retail" || d.UserTools() != nil {
		t.Errorf("Name() = %q, UserTools() = %v", d.Name(), d.UserTools())
	}
	if !strings.HasPrefix(d.Policy(), "# Retail agent policy") {
		t.Errorf("policy starts %.40q", d.Policy())
	}
	if all, err := d.Tasks().All(); err != nil || len(all) != 114 {
		t.Errorf("%d tasks (%v); want 114", len(all), err)
	}
	if n := len(d.AgentTools()); n != 16 {
		t.Errorf("%d tools; want 16", n)
	}
}

func TestLoadMissingData(t *testing.T) {
	t.Parallel()
	_, err := Load(t.TempDir())
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load(empty dir) = %v; want an fs.ErrNotExist error", err)
	}
	if !strings.Contains(err.Error(), "db.json") {
		t.Errorf("error %q does not name the file", err)
	}
}

func TestLoadBadDB(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := data.Tau2Domain(root, Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "db.json"), []byte(`{"products": {}, "users": {}, "orders": {}, "flights": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(root)
	if err == nil || !strings.Contains(err.Error(), "db.json") || !strings.Contains(err.Error(), "flights") {
		t.Fatalf("Load(extra top-level key) = %v; want an error naming the file and the key", err)
	}
}

func TestDecodeDBValidates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, json, want string }{
		{"status", `{"orders": {"#W1": {"order_id": "#W1", "status": "lost", "items": [], "fulfillments": [], "payment_history": []}}}`, "invalid status"},
		{"source", `{"users": {"u": {"user_id": "u", "payment_methods": {"x": {"source": "cash", "id": "x"}}, "orders": []}}}`, "unknown source"},
		{"gift card balance", `{"users": {"u": {"user_id": "u", "payment_methods": {"x": {"source": "gift_card", "id": "x"}}, "orders": []}}}`, "balance is required"},
		{"transaction type", `{"orders": {"#W1": {"order_id": "#W1", "status": "pending", "payment_history": [{"transaction_type": "gift", "amount": 1, "payment_method_id": "x"}]}}}`, "invalid transaction_type"},
		{"cancel reason", `{"orders": {"#W1": {"order_id": "#W1", "status": "cancelled", "cancel_reason": "bored"}}}`, "invalid cancel_reason"},
		{"not json", `{"products": [`, "invalid JSON"},
		{"not an object", `{"products": []}`, "expected a JSON object"},
		{"bad leaf", `{"users": {"u": {"user_id": 7}}}`, "cannot unmarshal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeDB([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("DecodeDB = %v; want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestDumpDBMatchesFile checks that a fresh environment dumps every record
// and field of db.json in file order, plus the unset optional order fields
// as null (pydantic's model_dump).
func TestDumpDBMatchesFile(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	raw, err := os.ReadFile(filepath.Join(data.Tau2Domain(datatest.Root(t), Name), "db.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := pyjson.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	orders, _ := v.(*pyjson.Dict).Get("orders")
	optional := []string{"cancel_reason", "exchange_items", "exchange_new_items", "exchange_payment_method_id",
		"exchange_price_difference", "return_items", "return_payment_method_id"}
	for _, o := range orders.(*pyjson.Dict).Values {
		od := o.(*pyjson.Dict)
		for _, k := range optional {
			if _, ok := od.Get(k); !ok {
				od.Set(k, nil)
			}
		}
	}
	agent, user := d.NewEnv().DumpDB()
	if user != nil {
		t.Errorf("user DB = %v; want nil", user)
	}
	if got, want := pyjson.String(agent), pyjson.String(v); got != want {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("dump differs at byte %d:\n got ...%s\nwant ...%s", i, got[max(0, i-200):i+100], want[max(0, i-200):i+100])
			}
		}
		t.Fatalf("dump lengths differ: %d vs %d", len(got), len(want))
	}
}

func callJSON(t *testing.T, e envs.Env, name, args string) message.Message {
	t.Helper()
	return envs.Respond(context.Background(), e, message.ToolCall{ID: "1", Name: name, Arguments: json.RawMessage(args)})
}

func TestCopyOnWrite(t *testing.T) {
	t.Parallel()
	d := fixtureDomain(t)
	before := pyjson.String(d.DB())
	a, b := d.Env(), d.Env()
	if m := callJSON(t, a, "cancel_pending_order", `{"order_id": "#W1", "reason": "no longer needed"}`); m.Error {
		t.Fatal(m.Content)
	}
	if got := pyjson.String(d.DB()); got != before {
		t.Fatal("a write changed the shared database")
	}
	o, _ := b.orders.Get("#W1")
	if o.Status != StatusPending {
		t.Errorf("another env sees status %q", o.Status)
	}
	if ag, _ := a.SameDB(b); ag {
		t.Error("SameDB after a write in one env = true")
	}
	if m := callJSON(t, b, "cancel_pending_order", `{"order_id": "#W1", "reason": "no longer needed"}`); m.Error {
		t.Fatal(m.Content)
	}
	if ag, us := a.SameDB(b); !ag || !us {
		t.Errorf("SameDB after the same write = %v, %v; want true, true", ag, us)
	}
	if callJSON(t, b, "cancel_pending_order", `{"order_id": "#W5", "reason": "no longer needed"}`); true {
		if ag, _ := a.SameDB(b); ag {
			t.Error("SameDB after an extra write = true")
		}
	}
	// A snapshot does not follow later writes.
	snap := pyjson.String(a.Snapshot())
	callJSON(t, a, "modify_user_address", `{"user_id": "alice_1", "address1": "x", "address2": "", "city": "c", "state": "s", "country": "USA", "zip": "1"}`)
	if snap == pyjson.String(a.Snapshot()) {
		t.Error("snapshot unchanged by a write")
	}
	// A failed write after a partial change keeps the change, as upstream.
	e := d.Env()
	if m := callJSON(t, e, "modify_pending_order_payment", `{"order_id": "#W6", "payment_method_id": "paypal_2"}`); !m.Error {
		t.Fatalf("want an error, got %s", m.Content)
	}
	o, _ = e.orders.Get("#W6")
	if len(o.PaymentHistory) != 3 {
		t.Errorf("payment history after the failed call has %d entries; want 3", len(o.PaymentHistory))
	}
}

func TestSameDBAcrossDomains(t *testing.T) {
	t.Parallel()
	a, b := fixtureDomain(t).Env(), fixtureDomain(t).Env()
	if ag, _ := a.SameDB(b); !ag {
		t.Error("fresh envs of two loads of the same data differ")
	}
	callJSON(t, a, "return_delivered_order_items", `{"order_id": "#W2", "item_ids": [], "payment_method_id": "credit_card_1"}`)
	if ag, _ := a.SameDB(b); ag {
		t.Error("SameDB = true after a write")
	}
}

func TestRequestorsAndFunctions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := fixtureDomain(t).Env()
	for _, tc := range []struct {
		name string
		run  func() (any, error)
		want string
	}{
		{"user call", func() (any, error) { return e.Call(ctx, message.ByUser, "get_user_details", nil) }, "User tools not available"},
		{"bad requestor", func() (any, error) { return e.Call(ctx, "system", "get_user_details", nil) }, "Invalid requestor: system"},
		{"unknown tool", func() (any, error) { return e.Call(ctx, message.ByAssistant, "book_flight", nil) }, "Tool 'book_flight' not found."},
		{"unknown function", func() (any, error) { return e.RunFunction(ctx, message.ByAssistant, "assert_x", nil) }, "'RetailTools' object has no attribute 'assert_x'"},
		{"user function", func() (any, error) { return e.RunFunction(ctx, message.ByUser, "set_x", nil) }, "'NoneType' object has no attribute 'set_x'"},
		{"bad side", func() (any, error) { return e.RunFunction(ctx, "system", "x", nil) }, "Invalid environment type: system"},
		{"function error", func() (any, error) {
			return e.RunFunction(ctx, message.ByAssistant, "get_order_details", json.RawMessage(`{"order_id": "#W0"}`))
		}, "Order not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.run()
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v; want %q", err, tc.want)
			}
		})
	}
	res, err := e.RunFunction(ctx, message.ByAssistant, "find_user_id_by_email", json.RawMessage(`{"email": "bob@example.com"}`))
	if err != nil || res != "bob_2" {
		t.Errorf("RunFunction(find_user_id_by_email) = %v, %v; want bob_2", res, err)
	}
	// The assistant's Respond through a user tool name: no such tool.
	if m := envs.Respond(ctx, e, message.ToolCall{ID: "1", Name: "toggle_airplane_mode", Requestor: message.ByAssistant}); m.Content != "Error: Tool 'toggle_airplane_mode' not found." || !m.Error {
		t.Errorf("Respond = %+v", m)
	}
}

// TestQuirks pins upstream behaviour that looks like a bug, independently of
// the golden file.
func TestQuirks(t *testing.T) {
	t.Parallel()
	d := fixtureDomain(t)
	t.Run("modify items: every item gets the last variant", func(t *testing.T) {
		e := d.Env()
		m := callJSON(t, e, "modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001", "3000000001"], "new_item_ids": ["2000000002", "3000000002"], "payment_method_id": "credit_card_1"}`)
		if m.Error {
			t.Fatal(m.Content)
		}
		o, _ := e.orders.Get("#W1")
		if o.Items[0].ItemID != "2000000002" || o.Items[0].Price != 30 || pyjson.String(&o.Items[0].Options) != `{"capacity": "1000ml"}` {
			t.Errorf("first item = %+v", o.Items[0])
		}
		last := o.PaymentHistory[len(o.PaymentHistory)-1]
		prices := []float64{46.85, 50.88, 30, 24.99} // float64 arithmetic, not exact constants
		want := math.Abs((prices[0] - prices[1]) + (prices[2] - prices[3]))
		if last.Amount != want || last.Amount == 0.98 || last.TransactionType != "payment" {
			t.Errorf("payment = %+v; want unrounded amount %v", last, want)
		}
	})
	t.Run("modify items: no items is a refund of 0.0", func(t *testing.T) {
		e := d.Env()
		callJSON(t, e, "modify_pending_order_items", `{"order_id": "#W1", "item_ids": [], "new_item_ids": [], "payment_method_id": "paypal_1"}`)
		o, _ := e.orders.Get("#W1")
		if got := pyjson.String(o.PaymentHistory[1]); got != `{"transaction_type": "refund", "amount": 0.0, "payment_method_id": "paypal_1"}` || o.Status != StatusPendingModified {
			t.Errorf("payment %s, status %q", got, o.Status)
		}
	})
	t.Run("exchange: no items leaves an int difference", func(t *testing.T) {
		e := d.Env()
		callJSON(t, e, "exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": [], "new_item_ids": [], "payment_method_id": "credit_card_1"}`)
		o, _ := e.orders.Get("#W2")
		if got := pyjson.String(o.ExchangePriceDifference); got != "0" {
			t.Errorf("exchange_price_difference = %s; want 0", got)
		}
	})
	t.Run("gift card balances are rounded", func(t *testing.T) {
		e := d.Env()
		callJSON(t, e, "modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001"], "new_item_ids": ["2000000004"], "payment_method_id": "gift_card_1"}`)
		u, _ := e.users.Get("alice_1")
		pm, _ := u.PaymentMethods.Get("gift_card_1")
		if pm.Balance != 97.61 {
			t.Errorf("balance = %v; want 97.61", pm.Balance)
		}
	})
	t.Run("list_all_product_types: sorted, later name wins, ASCII escapes", func(t *testing.T) {
		m := callJSON(t, d.Env(), "list_all_product_types", `{}`)
		want := `{"Action Camera": "1000000005", "Caf\u00e9 Mug": "1000000004", "T-Shirt": "1000000001", "Water Bottle": "1000000002"}`
		if m.Content != want {
			t.Errorf("got %s; want %s", m.Content, want)
		}
	})
}
