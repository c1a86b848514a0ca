package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
)

// fakeRetail answers a retail simulation's three kinds of requests: the
// judge (an empty verdict list), the agent (one tool call, then a closing
// text) and the τ²-bench user (a request, then ###STOP###).
func fakeRetail(r *openaitest.Request) openaitest.Reply {
	if len(r.Messages) == 2 && len(r.Tools) == 0 && strings.Contains(r.Messages[1].Text(), "expectedOutcomes") { // the judge

		return openaitest.Text(`{"results": []}`)
	}
	if len(r.Tools) > 0 { // the agent
		for _, m := range r.Messages {
			if m.Role == "assistant" && len(m.ToolCalls) > 0 {
				return openaitest.Text("I have looked into it; everything is in order. Goodbye.")
			}
		}
		return openaitest.Calls(openaitest.Call("find_user_id_by_name_zip", `{"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"}`))
	}
	for _, m := range r.Messages { // the user: its own turns are "assistant"
		if m.Role == "assistant" {
			return openaitest.Text("Thanks, that is all. ###STOP###")
		}
	}
	return openaitest.Text("Hi, I need help with an order of mine.")
}

// writeBackbones writes a backbones file for the fake server.
func writeBackbones(t testing.TB, dir, url string, timeout time.Duration) string {
	t.Helper()
	path := filepath.Join(dir, "backbones.yaml")
	text := fmt.Sprintf(`judge: fake
backbones:
  fake:
    base_url: %s
    model: fake-model
    temperature: 0
    timeout: %s
    max_retries: 3
    price: {input: 2, output: 8}
`, url, timeout)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runInProcess runs `run` with model clients whose backoffs are short.
func runInProcess(t testing.TB, ctx context.Context, args ...string) (execResult, error) {
	t.Helper()
	return runWithEnv(t, ctx, nil, args...)
}

// TestFaultInjectionFullRetail runs every retail task against a fake API
// that fails often (20% 429, 5% 500, 2% malformed arguments, 1% hangs past
// the per-attempt timeout): every unit ends with a record, infrastructure
// errors included; a resume completes them; no unit is lost or counted
// twice.
func TestFaultInjectionFullRetail(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a full retail run; skipped with -short")
	}
	srv := openaitest.NewHandlerServer(t, fakeRetail)
	// Each 429 asks for a 10 ms pause: without Retry-After, a 429 pauses the
	// backbone for llm.RateLimitPause (1 s), and the run would take the
	// pauses' time, not the faults'.
	srv.SetFaults(&openaitest.Faults{Seed: 7, RateLimit: 0.20, ServerError: 0.05, MalformedArgs: 0.02, Hang: 0.01, RetryAfter: "0.01"})
	tmp := t.TempDir()
	bb := writeBackbones(t, tmp, srv.BaseURL(), time.Second)
	dir := filepath.Join(tmp, "run")
	args := []string{"--domain", "retail", "--backbone", "fake", "--backbones", bb, "--trials", "1", "--concurrency", "32", "--out", dir, "--quiet"}

	r, err := runInProcess(t, t.Context(), args...)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, r.errOut)
	}
	run := loadRun(t, dir)
	if len(run.Records) != 114 || rawLines(t, dir) != 114 {
		t.Fatalf("first pass: %d units, %d lines; want 114 each", len(run.Records), rawLines(t, dir))
	}
	infra := 0
	for _, rec := range run.Records {
		if rec.Infrastructure() {
			infra++
			if rec.Error == "" {
				t.Errorf("unit %v: infrastructure error without text", rec.Key())
			}
		}
	}
	st := srv.Stats()
	t.Logf("first pass: %d requests (429 %d, 500 %d, malformed %d, hangs %d); %d of 114 simulations ended in infrastructure errors",
		st.Requests, st.RateLimited, st.ServerErrors, st.MalformedArgs, st.Hangs, infra)
	if st.RateLimited == 0 || st.ServerErrors == 0 || st.Hangs == 0 || st.MalformedArgs == 0 {
		t.Errorf("not every fault was injected: %+v", st)
	}
	if want := plural(infra, "infrastructure error"); !strings.Contains(r.out, want) {
		t.Errorf("summary does not show %q:\n%s", want, r.out)
	}

	// Resume until no infrastructure error is left: twice with the faults
	// on, then without.
	for pass := 2; pass <= 4; pass++ {
		if pass == 4 {
			srv.SetFaults(nil)
		}
		if _, err := runInProcess(t, t.Context(), "--out", dir, "--quiet"); err != nil {
			t.Fatalf("resume: %v", err)
		}
		run = loadRun(t, dir)
		left := 0
		for _, rec := range run.Records {
			if rec.Infrastructure() {
				left++
			}
		}
		t.Logf("after pass %d: %d infrastructure errors left", pass, left)
		if left == 0 {
			break
		}
		if pass == 4 {
			t.Fatalf("%d infrastructure errors left after a resume without faults", left)
		}
	}
	recs, _, err := results.ReadJSONLFile(filepath.Join(dir, results.SimulationsFile))
	if err != nil {
		t.Fatal(err)
	}
	perUnit := map[results.UnitKey][]results.Record{}
	for _, rec := range recs {
		perUnit[rec.Key()] = append(perUnit[rec.Key()], rec)
	}
	if len(perUnit) != 114 {
		t.Errorf("%d units recorded; want 114", len(perUnit))
	}
	for k, rs := range perUnit {
		for i, rec := range rs {
			last := i == len(rs)-1
			if rec.Infrastructure() == last {
				t.Errorf("unit %v record %d of %d: infrastructure %v (only earlier records may be errors, the last must not)", k, i+1, len(rs), rec.Infrastructure())
			}
		}
	}
}
