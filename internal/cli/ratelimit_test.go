package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
)

// TestExperimentSharesRateLimits: two cells in parallel, each running 16
// simulations at once, with the agent, the user simulator and the judge all
// on one backbone told 1,200 rpm, against a provider that enforces 1,200
// rpm per second (20 requests in each calendar second) and answers 429 with
// Retry-After. The process keeps one limiter per backbone: 429s stay under
// 1% of the requests, every simulation is scored, and the requests take at
// most 1.3× the time the limit allows for them.
func TestExperimentSharesRateLimits(t *testing.T) {
	// Under -race, llm's shared-limiter tests and the parallel-cell
	// experiment tests race the same code; this one times the limit.
	racetest.PlainOnly(t)
	if testing.Short() {
		t.Skip("about 15 seconds at the limit")
	}
	const rpm = 1200
	srv := openaitest.NewHandlerServer(t, fakeRetail)
	srv.SetLimits(&openaitest.Limits{RPM: rpm})
	tmp := t.TempDir()
	bb := filepath.Join(tmp, "backbones.yaml")
	writeFile(t, bb, fmt.Sprintf(`judge: fake
backbones:
  fake:
    base_url: %s
    model: fake-model
    temperature: 0
    price: {input: 2, output: 8}
    rpm: %d
`, srv.BaseURL(), rpm))
	exp := filepath.Join(tmp, "exp.yaml")
	writeFile(t, exp, fmt.Sprintf(`out: %s
backbones_file: %s
trials: 1
limit: 30
judge: fake
concurrency: 16
parallel_cells: 2
grid:
  - domains: [retail]
    agents: [baseline, ledger]
    backbones: [fake]
    user_backbones: [fake]
`, filepath.Join(tmp, "out"), bb))
	start := time.Now()
	r := execCLI(t, t.Context(), "experiment", "--quiet", "--no-report", exp)
	wall := time.Since(start)
	if r.code != ExitOK {
		t.Fatalf("experiment: exit %d\n%s", r.code, r.errOut)
	}
	reqs := srv.Requests()
	var over int
	first, last := reqs[0].Received, reqs[0].Received
	for _, q := range reqs {
		if q.OverLimit {
			over++
		}
		first, last = minTime(first, q.Received), maxTime(last, q.Received)
	}
	span := last.Sub(first)
	allowed := time.Duration(float64(len(reqs)-over-1) / (rpm / 60) * float64(time.Second))
	t.Logf("%d requests (%d answered 429, %.2f%%) over %s; the limit allows them in %s (×%.2f); whole experiment %s",
		len(reqs), over, 100*float64(over)/float64(len(reqs)), span.Round(time.Millisecond), allowed.Round(time.Millisecond),
		span.Seconds()/allowed.Seconds(), wall.Round(time.Millisecond))
	if float64(over) > 0.01*float64(len(reqs)) {
		t.Errorf("%d of %d requests answered 429; want ≤ 1%%", over, len(reqs))
	}
	if span > allowed*13/10 {
		t.Errorf("requests took %s; want ≤ 1.3 × %s", span, allowed)
	}
	dirs, err := filepath.Glob(filepath.Join(tmp, "out", "runs", "*"))
	if err != nil || len(dirs) != 2 {
		t.Fatalf("cell runs %v, %v; want 2", dirs, err)
	}
	for _, d := range dirs {
		run := loadRun(t, d)
		if len(run.Records) != 30 {
			t.Errorf("%s: %d records; want 30", d, len(run.Records))
		}
		for _, rec := range run.Records {
			if rec.Infrastructure() {
				t.Errorf("%s: task %s ended as an infrastructure error: %s", d, rec.TaskID, rec.Error)
			}
		}
	}
}

// A provider that answers 429 forever: the run stops after a call's 429
// retries with one line naming the backbone, records what ran as
// infrastructure errors and starts nothing more; once the provider heals,
// --resume finishes it with nothing lost.
func TestRateLimitedForeverStopsRun(t *testing.T) {
	refuse := make(chan struct{})
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		select {
		case <-refuse:
			return fakeRetail(r)
		default:
			return openaitest.Reply{Status: 429, RetryAfter: "0.001", Message: "quota exceeded"}
		}
	})
	tmp := t.TempDir()
	bb := writeBackbones(t, tmp, srv.BaseURL(), time.Minute)
	dir := filepath.Join(tmp, "run")
	args := []string{"--domain", "retail", "--backbone", "fake", "--backbones", bb, "--no-judge", "--trials", "1", "--limit", "20",
		"--concurrency", "2", "--quiet", "--out", dir}
	_, err := runWithEnv(t, t.Context(), nil, args...)
	if !errors.Is(err, runner.ErrRateLimited) || !strings.Contains(err.Error(), "backbone fake answered 429") || !strings.Contains(err.Error(), "--resume --out "+dir) {
		t.Fatalf("run against a provider answering 429 forever: %v; want ErrRateLimited naming the backbone and how to resume", err)
	}
	run := loadRun(t, dir)
	if len(run.Records) == 0 || len(run.Records) > 2 {
		t.Errorf("%d records; want the units in flight (1–2), none started after the stop", len(run.Records))
	}
	for _, rec := range run.Records {
		if !rec.Infrastructure() || !strings.Contains(rec.Error, "status 429") {
			t.Errorf("record %s: %s %q; want an infrastructure error with the 429", rec.TaskID, rec.TerminationReason, rec.Error)
		}
	}
	close(refuse)
	if r, err := runWithEnv(t, t.Context(), nil, "--resume", "--out", dir, "--quiet"); err != nil {
		t.Fatalf("resume: %v\n%s", err, r.errOut)
	}
	run = loadRun(t, dir)
	var scored int
	for _, rec := range run.Records {
		if !rec.Infrastructure() {
			scored++
		}
	}
	if scored != 20 {
		t.Errorf("after resume: %d of 20 simulations scored", scored)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
