package telecom

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// envSink keeps benchmarked environments alive so they are really built.
var envSink envs.Env

func BenchmarkNewEnv(b *testing.B) {
	d := domainForTest(b)
	b.ReportAllocs()
	for b.Loop() {
		envSink = d.NewEnv()
	}
}

// BenchmarkToolCall measures one tool call answered as a tool message
// (envs.Respond: call, format, sync) on an environment set up as a task's
// initialization actions leave it.
func BenchmarkToolCall(b *testing.B) {
	d := domainForTest(b)
	ctx := context.Background()
	for _, c := range []struct {
		bench string
		req   message.Requestor
		name  string
		args  string
	}{
		{"agent/get_customer_by_phone", message.ByAssistant, "get_customer_by_phone", `{"phone_number": "555-123-2002"}`},
		{"agent/get_data_usage", message.ByAssistant, "get_data_usage", `{"customer_id": "C1001", "line_id": "L1002"}`},
		{"agent/enable_roaming", message.ByAssistant, "enable_roaming", `{"customer_id": "C1001", "line_id": "L1002"}`},
		{"user/check_status_bar", message.ByUser, "check_status_bar", `{}`},
		{"user/toggle_data", message.ByUser, "toggle_data", `{}`},
		{"user/run_speed_test", message.ByUser, "run_speed_test", `{}`},
		{"user/grant_app_permission", message.ByUser, "grant_app_permission", `{"app_name": "messaging", "permission": "sms"}`},
	} {
		b.Run(c.bench, func(b *testing.B) {
			e := d.newEnv()
			if _, err := e.RunFunction(ctx, message.ByUser, "set_user_info", json.RawMessage(`{"name": "John Smith", "phone_number": "555-123-2002"}`)); err != nil {
				b.Fatal(err)
			}
			tc := message.ToolCall{ID: "b", Name: c.name, Arguments: json.RawMessage(c.args), Requestor: c.req}
			b.ReportAllocs()
			for b.Loop() {
				if m := envs.Respond(ctx, e, tc); m.Error {
					b.Fatal(m.Content)
				}
			}
		})
	}
}

func BenchmarkSync(b *testing.B) {
	d := domainForTest(b)
	e := d.newEnv()
	if _, err := e.RunFunction(context.Background(), message.ByUser, "set_user_info", json.RawMessage(`{"name": "John Smith", "phone_number": "555-123-2002"}`)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Sync()
	}
}

// BenchmarkLoadDB measures reading both databases (db.toml, user_db.toml).
func BenchmarkLoadDB(b *testing.B) {
	dir := data.Tau2Domain(testRoot(b), Name)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadDB(filepath.Join(dir, "db.toml")); err != nil {
			b.Fatal(err)
		}
		if _, err := LoadUserDB(filepath.Join(dir, "user_db.toml")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad measures loading the whole domain, dominated by parsing the
// 14 MB tasks.json.
func BenchmarkLoad(b *testing.B) {
	root := testRoot(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(root); err != nil {
			b.Fatal(err)
		}
	}
}
