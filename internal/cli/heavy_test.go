package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/core/rusage"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestHeavyConcurrentMemory runs 1,000 retail simulations at once (the
// binary, against the fake API answering every request after 200ms) and
// reports the process's peak RSS; the target is under 2 GB. A small run
// gives the baseline (loaded domain, runtime), so the difference divided by
// the concurrency is the memory of one running simulation. Opt-in:
// LEDGERBENCH_HEAVY=1 go test -run TestHeavy -v ./internal/cli
func TestHeavyConcurrentMemory(t *testing.T) {
	t.Parallel()
	if os.Getenv("LEDGERBENCH_HEAVY") == "" {
		t.Skip("set LEDGERBENCH_HEAVY=1 to run 1,000 concurrent simulations")
	}
	heavyRun(t, 1000, 9, 0) // 114×9 = 1026 simulations
}

// TestHeavyScale is the scale benchmark: 10,000 retail simulations at once
// (114×88 = 10,032), each request answered after 200ms; peak RSS must stay
// under 2 GB. It also reports the harness's CPU time per simulation. Opt-in:
// LEDGERBENCH_HEAVY=10000 go test -run TestHeavyScale -v -timeout 30m ./internal/cli
func TestHeavyScale(t *testing.T) {
	t.Parallel()
	if os.Getenv("LEDGERBENCH_HEAVY") != "10000" {
		t.Skip("set LEDGERBENCH_HEAVY=10000 to run 10,000 concurrent simulations")
	}
	heavyRun(t, 10000, 88, 0)
}

// TestHeavyScaleSharedPool is TestHeavyScale with the backbone's rate limit
// in force: 10,032 simulations at once on one backbone (agent, user
// simulator and judge) told 300,000 rpm, against a provider enforcing that
// limit per second, so thousands of simulations wait in the process's one
// limiter at a time. Peak RSS must stay under 2 GB and no request may be
// answered 429. Opt-in:
// LEDGERBENCH_HEAVY=10000 go test -run TestHeavyScaleSharedPool -v -timeout 30m ./internal/cli
func TestHeavyScaleSharedPool(t *testing.T) {
	if os.Getenv("LEDGERBENCH_HEAVY") != "10000" {
		t.Skip("set LEDGERBENCH_HEAVY=10000 to run 10,000 concurrent simulations at a rate limit")
	}
	heavyRun(t, 10000, 88, 300_000)
}

// heavyRun runs 114×trials retail simulations at concurrency conc in the
// binary against the slow fake API, after a 10-simulation baseline, and
// logs peak RSS, memory per running simulation and CPU per simulation.
//
// rpm > 0 sets the backbone's rpm and has the fake API enforce it.
func heavyRun(t *testing.T, conc, trials, rpm int) {
	bin := buildBinary(t)
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Slow(200*time.Millisecond, fakeRetail(r))
	})
	tmp := t.TempDir()
	bb := writeBackbones(t, tmp, srv.BaseURL(), 10*time.Minute)
	if rpm > 0 {
		srv.SetLimits(&openaitest.Limits{RPM: rpm})
		f, err := os.OpenFile(bb, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = fmt.Fprintf(f, "    rpm: %d\n", rpm)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	type usage struct {
		peakKB  int64
		cpu     time.Duration
		elapsed time.Duration
	}
	run := func(name string, args ...string) usage {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--data", datatest.Root(t), "run", "--domain", "retail", "--backbone", "fake",
			"--backbones", bb, "--quiet", "--out", filepath.Join(tmp, name)}, args...)...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		ru, ok := rusage.Of(cmd.ProcessState)
		if !ok {
			t.Skipf("%s counts no process usage: the peak memory cannot be read", runtime.GOOS)
		}
		return usage{ru.Peak / 1024, ru.CPU, time.Since(start)}
	}
	base := run("base", "--limit", "10", "--trials", "1", "--concurrency", "10")
	heavy := run("heavy", "--trials", strconv.Itoa(trials), "--concurrency", strconv.Itoa(conc))
	st := srv.Stats()
	sims := 114 * trials
	t.Logf("baseline (10 simulations, concurrency 10): peak RSS %.1f MB in %s", float64(base.peakKB)/1024, base.elapsed.Round(time.Millisecond))
	t.Logf("%d simulations, concurrency %d, 200ms per reply: peak RSS %.1f MB in %s (%d requests)", sims, conc, float64(heavy.peakKB)/1024, heavy.elapsed.Round(time.Millisecond), st.Requests)
	t.Logf("memory per concurrent simulation: %.0f KB", float64(heavy.peakKB-base.peakKB)/float64(conc))
	t.Logf("harness CPU per simulation: %s (%s in all, %.1f requests each)", (heavy.cpu / time.Duration(sims)).Round(time.Microsecond), heavy.cpu.Round(time.Millisecond), float64(st.Requests)/float64(sims))
	if rpm > 0 {
		allowed := time.Duration(float64(st.Requests) / (float64(rpm) / 60) * float64(time.Second))
		t.Logf("rate limit %d rpm: %d requests answered 429; the limit allows the requests in %s (×%.2f of it)",
			rpm, st.OverLimit, allowed.Round(time.Millisecond), heavy.elapsed.Seconds()/allowed.Seconds())
		if st.OverLimit > 0 {
			t.Errorf("%d requests answered 429 under the shared limiter", st.OverLimit)
		}
	}
	if heavy.peakKB > 2<<20 {
		t.Errorf("peak RSS %.0f MB; target < 2048 MB", float64(heavy.peakKB)/1024)
	}
}
