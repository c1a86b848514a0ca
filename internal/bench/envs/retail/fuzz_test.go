package retail

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// FuzzToolArgs calls tools with arbitrary arguments: a call never panics,
// fails with an "Error: " message or succeeds, and never changes the shared
// database.
func FuzzToolArgs(f *testing.F) {
	for _, tc := range toolCases {
		for _, cl := range tc.calls {
			f.Add(cl.name, cl.args)
		}
	}
	f.Add("get_order_details", `[]`)
	f.Add("get_order_details", `"#W1"`)
	f.Add("modify_pending_order_items", `{"order_id": "#W1", "item_ids": [1, null], "new_item_ids": [{}, []], "payment_method_id": 3}`)
	d := fixtureDomain(f)
	before := pyjson.String(d.DB())
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, name, args string) {
		e := d.Env()
		for range 2 { // a second call sees the first one's writes
			m := envs.Respond(ctx, e, message.ToolCall{ID: "f", Name: name, Arguments: json.RawMessage(args)})
			if m.Error != strings.HasPrefix(m.Content, "Error: ") {
				t.Fatalf("%s(%s): error=%v with content %q", name, args, m.Error, m.Content)
			}
		}
		if _, err := json.Marshal(pyjson.String(e.Snapshot())); err != nil {
			t.Fatal(err)
		}
		if pyjson.String(d.DB()) != before {
			t.Fatalf("%s(%s) changed the shared database", name, args)
		}
	})
}

// FuzzDecodeDB decodes arbitrary bytes: an error or a database whose dump
// decodes to the same dump.
func FuzzDecodeDB(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("testdata", "fixture_db.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte(`{"products": null, "users": {}, "orders": {"#W1": null}}`))
	f.Add([]byte(`{"users": {"u": {"user_id": "u", "payment_methods": {"g": {"source": "gift_card", "id": "g", "balance": 1}}, "orders": []}}}`))
	f.Add([]byte(`{"products": {"p": {"variants": {"v": {"options": {"a\"b": "c\u00e9"}}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := DecodeDB(data)
		if err != nil {
			return
		}
		dump := pyjson.String(db)
		again, err := DecodeDB([]byte(dump))
		if err != nil {
			t.Fatalf("dump of a decoded DB does not decode: %v\n%s", err, dump)
		}
		if d2 := pyjson.String(again); d2 != dump {
			t.Fatalf("round trip differs:\n%s\n%s", dump, d2)
		}
	})
}
