package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// buildBinary returns ledgerbench compiled once per test binary into a
// temporary directory (removed by TestMain).
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("needs POSIX signals")
	}
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "ledgerbench-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		bin := filepath.Join(dir, "ledgerbench")
		cmd := exec.Command("go", "build", "-o", bin, "github.com/ledgerbench/ledgerbench/cmd/ledgerbench")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// built is the binary buildBinary compiled.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	if sharedRuns.dir != "" {
		os.RemoveAll(sharedRuns.dir)
	}
	os.Exit(code)
}

// waitLines waits until the run's JSONL file has at least n lines.
func waitLines(t *testing.T, path string, n int, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(path)
		if bytes.Count(b, []byte("\n")) >= n {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("the run ended before %d records: %v", n, err)
		case <-time.After(2 * time.Millisecond):
		}
	}
	t.Fatalf("no %d records after 60s", n)
}

// TestBinaryInterrupts runs the built binary against the fake API, whose
// replies take 20ms so that a run lasts long enough to be interrupted, and
// interrupts it.
func TestBinaryInterrupts(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	bin := buildBinary(t)
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Slow(20*time.Millisecond, fakeRetail(r))
	})
	bb := writeBackbones(t, t.TempDir(), srv.BaseURL(), 10*time.Second)
	base := []string{"--data", datatest.Root(t), "run", "--domain", "retail", "--backbone", "fake", "--backbones", bb,
		"--limit", "40", "--trials", "3"}
	t.Run("SIGKILL then resume", func(t *testing.T) { testKillResume(t, bin, base) })
	t.Run("SIGINT exits 130", func(t *testing.T) { testInterruptExits130(t, bin, base) })
	t.Run("second SIGINT exits at once", func(t *testing.T) { testSecondInterrupt(t, bin) })
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine;
// each write is an event on wrote.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{wrote: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitText waits for text to be written to b.
func waitText(t *testing.T, b *syncBuffer, text string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for !strings.Contains(b.String(), text) {
		select {
		case <-b.wrote:
		case <-timeout:
			t.Fatalf("no %q in stderr after 30s:\n%s", text, b.String())
		}
	}
}

// testSecondInterrupt interrupts a run whose simulations are all waiting on
// a slow API: the first SIGINT starts the drain, the second kills the
// process at once.
func testSecondInterrupt(t *testing.T, bin string) {
	asked := make(chan struct{}, 16) // one event per request the API holds
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		select {
		case asked <- struct{}{}:
		default:
		}
		return openaitest.Slow(time.Minute, fakeRetail(r))
	})
	bb := writeBackbones(t, t.TempDir(), srv.BaseURL(), 2*time.Minute)
	cmd := exec.Command(bin, "--data", datatest.Root(t), "run", "--domain", "retail", "--backbone", "fake", "--backbones", bb,
		"--limit", "5", "--trials", "1", "--out", filepath.Join(t.TempDir(), "run"))
	stderr := newSyncBuffer()
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for range 5 { // every simulation waits on the API
		select {
		case <-asked:
		case err := <-done:
			t.Fatalf("the run ended before its 5 requests: %v\n%s", err, stderr.String())
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	waitText(t, stderr, "interrupted: starting no new simulations; 5 running")
	// The root command restores the default SIGINT action just after the
	// context is canceled (a goroutine in Main); a SIGINT that comes before
	// that is swallowed, so the interrupt is repeated until one kills.
	start := time.Now()
	for attempt := 1; ; attempt++ {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
				t.Errorf("second SIGINT: %v; want death by SIGINT", err)
			}
			t.Logf("exited %s after the second SIGINT (%d sent)", time.Since(start).Round(time.Millisecond), attempt)
			return
		case <-time.After(2 * time.Second):
			if attempt == 3 {
				_ = cmd.Process.Kill() // the test fails either way
				t.Fatal("still running after three more SIGINTs")
			}
		}
	}
}

// testKillResume kills a run with SIGKILL while it is writing, resumes it,
// and checks the result is the uninterrupted run's: the same units with the
// same rewards, each recorded once.
func testKillResume(t *testing.T, bin string, base []string) {
	tmp := t.TempDir()
	args := func(out, concurrency string) []string {
		return append(slices.Clone(base), "--concurrency", concurrency, "--quiet", "--out", out)
	}
	full := filepath.Join(tmp, "full")
	if out, err := exec.Command(bin, args(full, "32")...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}

	killed := filepath.Join(tmp, "killed")
	cmd := exec.Command(bin, args(killed, "2")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitLines(t, filepath.Join(killed, results.SimulationsFile), 10, done)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-done
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("run was not killed: %v\n%s", err, stderr.String())
	}
	before := rawLines(t, killed)
	if before >= 120 {
		t.Fatalf("the run finished (%d records) before the kill", before)
	}

	out, err := exec.Command(bin, "--data", datatest.Root(t), "run", "--resume", "--out", killed, "--concurrency", "32").CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	want, got := rewards(loadRun(t, full)), rewards(loadRun(t, killed))
	if len(got) != 120 || len(want) != 120 {
		t.Fatalf("units: resumed %d, uninterrupted %d; want 120", len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("unit %v: resumed reward %v (present %v); uninterrupted %v", k, g, ok, w)
		}
	}
	if n := rawLines(t, killed); n != 120 {
		t.Errorf("%d lines after resume; want 120 (each unit once)", n)
	}
	t.Logf("killed after %d of 120 records; resume ran the rest", before)
}

// testInterruptExits130 sends SIGINT to a running binary: it stops starting
// simulations, records the running ones and exits with 130; a resume
// completes the run.
func testInterruptExits130(t *testing.T, bin string, base []string) {
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, append(slices.Clone(base), "--concurrency", "2", "--out", dir)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitLines(t, filepath.Join(dir, results.SimulationsFile), 5, done)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := <-done
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
		t.Fatalf("exit: %v; want status %d\n%s", err, ExitInterrupted, stderr.String())
	}
	for _, want := range []string{"interrupted: starting no new simulations", "ledgerbench run --resume --out"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if !strings.Contains(stdout.String(), "pass^1") {
		t.Errorf("no summary after the interrupt:\n%s", stdout.String())
	}
	if out, err := exec.Command(bin, "--data", datatest.Root(t), "run", "--resume", "--out", dir, "--concurrency", "32", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if run := loadRun(t, dir); len(run.Records) != 120 || rawLines(t, dir) != 120 {
		t.Errorf("after resume: %d units, %d lines; want 120", len(run.Records), rawLines(t, dir))
	}
}
