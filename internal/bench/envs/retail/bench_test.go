package retail

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// BenchmarkToolCall measures a full tool message (dispatch, argument
// decoding, the tool, JSON output) on the real database: a read, and a write
// on a fresh environment each time (so it includes the copy-on-write copy).
func BenchmarkToolCall(b *testing.B) {
	d := domainForTest(b)
	ctx := context.Background()
	b.Run("get_order_details", func(b *testing.B) {
		e := d.NewEnv()
		call := message.ToolCall{ID: "1", Name: "get_order_details", Arguments: json.RawMessage(`{"order_id": "#W4219264"}`)}
		b.ReportAllocs()
		for b.Loop() {
			if m := envs.Respond(ctx, e, call); m.Error {
				b.Fatal(m.Content)
			}
		}
	})
	b.Run("modify_pending_order_items", func(b *testing.B) {
		call := message.ToolCall{ID: "1", Name: "modify_pending_order_items", Arguments: json.RawMessage(
			`{"order_id": "#W9911714", "item_ids": ["9791469541", "1340995114"], "new_item_ids": ["4107812777", "1421289881"], "payment_method_id": "gift_card_4332117"}`)}
		b.ReportAllocs()
		for b.Loop() {
			e := d.NewEnv()
			if m := envs.Respond(ctx, e, call); m.Error {
				b.Fatal(m.Content)
			}
		}
	})
	b.Run("find_user_id_by_name_zip", func(b *testing.B) {
		e := d.NewEnv()
		call := message.ToolCall{ID: "1", Name: "find_user_id_by_name_zip", Arguments: json.RawMessage(`{"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"}`)}
		b.ReportAllocs()
		for b.Loop() {
			if m := envs.Respond(ctx, e, call); m.Error {
				b.Fatal(m.Content)
			}
		}
	})
}

// BenchmarkNewEnv measures a fresh simulation state (run with -benchmem).
func BenchmarkNewEnv(b *testing.B) {
	d := domainForTest(b)
	envs := make([]envs.Env, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		if len(envs) == cap(envs) {
			envs = envs[:0]
		}
		envs = append(envs, d.NewEnv()) // keep the env on the heap, as a simulation does
	}
}

// BenchmarkSameDB compares two environments after one write each, as the
// evaluator's DB check does.
func BenchmarkSameDB(b *testing.B) {
	d := domainForTest(b)
	ctx := context.Background()
	call := message.ToolCall{ID: "1", Name: "cancel_pending_order", Arguments: json.RawMessage(`{"order_id": "#W4219264", "reason": "no longer needed"}`)}
	x, y := d.NewEnv(), d.NewEnv()
	envs.Respond(ctx, x, call)
	envs.Respond(ctx, y, call)
	b.ReportAllocs()
	for b.Loop() {
		if same, _ := x.SameDB(y); !same {
			b.Fatal("not same")
		}
	}
}

// BenchmarkLoad measures loading the domain (db.json, policy, tasks).
func BenchmarkLoad(b *testing.B) {
	root := datatest.Root(b)
	b.Run("Load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Load(root); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeDB", func(b *testing.B) {
		raw, err := os.ReadFile(filepath.Join(data.Tau2Domain(root, Name), "db.json"))
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeDB(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
