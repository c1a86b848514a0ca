// Package datatest finds the upstream data and recorded runs for tests.
package datatest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/data"
)

// Root returns the data directory tests use: $LEDGERBENCH_DATA if set,
// else the shared upstream copy beside the repository (../shared/upstream),
// which has the same layout and the same hashes as a pulled directory.
func Root(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("LEDGERBENCH_DATA"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	// file = <repo>/internal/data/datatest/datatest.go
	repo := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(file))))
	d := filepath.Join(filepath.Dir(repo), "shared", "upstream")
	if _, err := os.Stat(filepath.Join(d, data.Tau2)); err != nil {
		tb.Fatalf("test data not found at %s: set LEDGERBENCH_DATA to a pulled data directory", d)
	}
	return d
}

// Trajectories returns the folder of recorded upstream runs used by
// conformance tests (../shared/upstream/trajectories).
func Trajectories(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(file))))
	d := filepath.Join(filepath.Dir(repo), "shared", "upstream", "trajectories")
	if _, err := os.Stat(d); err != nil {
		tb.Fatalf("recorded trajectories not found at %s", d)
	}
	return d
}

// Tau2File reads one file of a τ²-bench domain from the test data, skipping
// the test when it is absent.
func Tau2File(tb testing.TB, domain, name string) []byte {
	tb.Helper()
	path := filepath.Join(data.Tau2Domain(Root(tb), domain), name)
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Skipf("no upstream %s: %v", path, err)
	}
	return b
}
