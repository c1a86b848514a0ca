package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/rusage"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// firstCalls is a cheap read tool call per domain, made on a fresh
// environment once the domain is loaded: start-up ends when the first tool
// answers.
var firstCalls = []struct{ domain, tool, args string }{
	{"airline", "get_user_details", `{"user_id": "mia_li_3668"}`},
	{"retail", "find_user_id_by_name_zip", `{"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"}`},
	{"telecom", "get_customer_by_phone", `{"phone_number": "555-123-2002"}`},
	{"telehealth", "get_patient_details", `{"patient_id": "sarah_johnson_1234"}`},
	{"banking_knowledge", "get_user_information_by_id", `{"user_id": "6680a37184"}`},
	{"taubench-airline", "get_user_details", `{"user_id": "mia_li_3668"}`},
	{"tautrait-retail", "find_user_id_by_name_zip", `{"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"}`},
}

// pulledRoot pulls the test data into a fresh data directory, as `data
// pull` does (with the derived files it writes, such as the tasks indexes):
// the start-up a user's commands pay.
func pulledRoot(b *testing.B) string {
	b.Helper()
	m, err := data.LoadManifest()
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	if _, err := data.Pull(context.Background(), m, data.Source{Dir: datatest.Root(b)}, root, nil); err != nil {
		b.Fatal(err)
	}
	if err := convertDerived(root); err != nil {
		b.Fatal(err)
	}
	return root
}

// BenchmarkStartup measures loading a domain from a pulled data directory
// up to the answer of its first tool call (the start-up every command
// pays).
func BenchmarkStartup(b *testing.B) {
	root := pulledRoot(b)
	ctx := context.Background()
	for _, c := range firstCalls {
		b.Run(c.domain, func(b *testing.B) {
			call := message.ToolCall{ID: "b", Name: c.tool, Arguments: json.RawMessage(c.args), Requestor: message.ByAssistant}
			b.ReportAllocs()
			cpu0 := rusage.CPU()
			for b.Loop() {
				dom, err := domains.Load(c.domain, root)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := dom.Tasks().Select(tasks.Selection{}); err != nil {
					b.Fatal(err)
				}
				if m := envs.Respond(ctx, dom.NewEnv(), call); m.Error {
					b.Fatalf("%s: %s", c.tool, m.Content)
				}
			}
			reportMS(b, cpu0)
		})
	}
}

// BenchmarkVerifyShort runs the short jobs `verify --domain D --limit 5`
// and the whole airline and telecom base splits in process, on a pulled
// data directory, start-up (and the check of the pinned hashes) included.
func BenchmarkVerifyShort(b *testing.B) {
	root := pulledRoot(b)
	for _, c := range []struct {
		domain string
		limit  int
	}{{"airline", 5}, {"retail", 5}, {"telecom", 5}, {"telehealth", 5}, {"taubench-airline", 5}, {"tautrait-retail", 5}, {"airline", 0}, {"telecom", 0}} {
		name := c.domain + "/limit5"
		if c.limit == 0 {
			name = c.domain + "/base"
		}
		b.Run(name, func(b *testing.B) {
			var out bytes.Buffer
			s := &Streams{Out: &out, ErrOut: &out}
			b.ReportAllocs()
			cpu0 := rusage.CPU()
			for b.Loop() {
				out.Reset()
				if err := runVerify(context.Background(), s, &verifyOptions{Domains: []string{c.domain}, Limit: c.limit, DataDir: root, Format: "text"}); err != nil {
					b.Fatalf("%v\n%s", err, out.String())
				}
			}
			reportMS(b, cpu0)
		})
	}
}

// reportMS adds milliseconds per run, the unit start-up is discussed in,
// wall-clock and CPU (user + system of the process since cpu0: on a
// shared machine the steadier measure).
func reportMS(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/run")
	b.ReportMetric(float64((rusage.CPU()-cpu0).Microseconds())/1e3/float64(b.N), "cpu-ms/run")
}
