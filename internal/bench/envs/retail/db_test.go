package retail

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestPinnedDBLazy is what lets Load trust the pinned db.json: it passes the
// full validation, and decoded lazily it dumps byte for byte as decoded in
// full, table by table in order.
func TestPinnedDBLazy(t *testing.T) {
	t.Parallel()
	eager, lazy := datatest.PinnedDB(t, Name, DecodeDB, loadDB)
	if err := lazy.validate(); err != nil {
		t.Errorf("lazily decoded db: %v", err)
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"products", &lazy.Products, &eager.Products},
		{"users", &lazy.Users, &eager.Users},
		{"orders", &lazy.Orders, &eager.Orders},
	} {
		if pyjson.String(tc.got) != pyjson.String(tc.want) {
			t.Errorf("%s: lazy and full decoding differ", tc.name)
		}
	}
}

// TestLoadDBValidatesOtherContent: content that is not the pinned file is
// decoded and validated in full.
func TestLoadDBValidatesOtherContent(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"products": {}, "users": {}, "orders": {"o": {"order_id": "o", "user_id": "u", "address": {}, "items": [], "status": "lost", "fulfillments": [], "payment_history": []}}}`,
		`{"products": {}, "users": {}, "orders": {}, "extra": {}}`,
		`{"products": {"p": null}, "users": {}, "orders": {}}`,
	} {
		if _, err := loadDB([]byte(in)); err == nil {
			t.Errorf("loadDB accepted %s", in)
		}
	}
}

func BenchmarkLoadDB(b *testing.B) { datatest.BenchmarkDB(b, Name, DecodeDB, loadDB) }
