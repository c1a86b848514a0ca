package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestRunDirectoryLock: two processes never write one run directory. While
// a run is in flight (its agent call held by the fake API), a second
// process — `run --resume --out D`, or the same command again as a requeued
// array task would — exits 1 naming the first one's pid and writes nothing;
// once the first has ended, the second continues the run.
func TestRunDirectoryLock(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		select {
		case <-release:
			return fakeRetail(r)
		default:
		}
		if isAgent(r) {
			once.Do(func() { close(started) })
			return openaitest.Hang()
		}
		return fakeRetail(r)
	})
	bb := writeBackbones(t, t.TempDir(), srv.BaseURL(), time.Hour)
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"--data", datatest.Root(t), "run", "--domain", "retail", "--backbone", "fake", "--backbones", bb,
		"--task-ids", "2", "--trials", "1", "--no-judge", "--quiet", "--out", dir}
	first := exec.Command(bin, append(args, "--grace", "50ms")...)
	var firstErr syncBuffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("first run ended before its agent call: %v\n%s", err, firstErr.String())
	case <-time.After(60 * time.Second):
		t.Fatal("first run made no agent call in 60s")
	}
	pid := strconv.Itoa(first.Process.Pid)
	for _, second := range [][]string{
		{"--data", datatest.Root(t), "run", "--resume", "--out", dir, "--quiet"},
		args,
	} {
		// Bounded: a second process that were let in would hang on the
		// held agent call.
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		out, err := exec.CommandContext(ctx, bin, second...).CombinedOutput()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitError {
			t.Errorf("second process %v: %v; want exit %d\n%s", second[2:], err, ExitError, out)
		}
		if !strings.Contains(string(out), "is being written by process "+pid) {
			t.Errorf("second process: output lacks the holder's pid %s:\n%s", pid, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "simulations.jsonl")); err == nil && len(b) > 0 {
		t.Errorf("records written while the first run held the directory:\n%s", b)
	}
	if err := first.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("first run did not stop after SIGINT and --grace")
	}
	close(release)
	if out, err := exec.Command(bin, "--data", datatest.Root(t), "run", "--resume", "--out", dir, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("resume after the first process ended: %v\n%s", err, out)
	}
	if run := loadRun(t, dir); len(run.Records) != 1 || run.Records[0].Infrastructure() {
		t.Errorf("after the resume: %+v; want the unit scored", run.Records)
	}
}
