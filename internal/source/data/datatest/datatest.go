// Package datatest finds the upstream data and recorded runs for tests.
// Tests that need them skip, with a message naming what is missing, when
// they are absent: the suite passes on a checkout without ../shared/upstream.
package datatest

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// shared returns ../shared/upstream beside the repository.
func shared() string {
	_, file, _, _ := runtime.Caller(0)
	// file = <repo>/internal/source/data/datatest/datatest.go
	repo := filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
	return filepath.Join(filepath.Dir(repo), "shared", "upstream")
}

// Root returns the data directory tests use: $LEDGERBENCH_DATA if set,
// else the shared upstream copy beside the repository (../shared/upstream),
// which has the same layout and the same hashes as a pulled directory. It
// skips the test when neither holds the data.
func Root(tb testing.TB) string {
	tb.Helper()
	d := os.Getenv("LEDGERBENCH_DATA")
	if d == "" {
		d = shared()
	}
	if _, err := os.Stat(filepath.Join(d, data.Tau2)); err != nil {
		tb.Skipf("upstream data not found at %s (set LEDGERBENCH_DATA to a pulled data directory, or place the shared copy at ../shared/upstream)", d)
	}
	return d
}

// Trajectories returns the folder of recorded upstream runs used by
// conformance tests: $LEDGERBENCH_DATA/trajectories when LEDGERBENCH_DATA
// is set and holds one, else ../shared/upstream/trajectories. It skips the
// test when neither exists.
func Trajectories(tb testing.TB) string {
	tb.Helper()
	d := filepath.Join(shared(), "trajectories")
	if env := os.Getenv("LEDGERBENCH_DATA"); env != "" {
		if _, err := os.Stat(filepath.Join(env, "trajectories")); err == nil {
			d = filepath.Join(env, "trajectories")
		}
	}
	if _, err := os.Stat(d); err != nil {
		tb.Skipf("recorded trajectories not found at %s", d)
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

// Cache holds a value built from the test data directory (a loaded domain)
// once per test binary; the tests share it and must not modify it.
type Cache[T any] struct {
	once sync.Once
	v    T
	err  error
}

// Get returns the cached value, built by load(Root(tb)) on the first call.
// It skips as Root does when the data is absent, and fails the test when
// loading failed.
func (c *Cache[T]) Get(tb testing.TB, load func(root string) (T, error)) T {
	tb.Helper()
	root := Root(tb)
	c.once.Do(func() { c.v, c.err = load(root) })
	if c.err != nil {
		tb.Fatalf("load the test data: %v", c.err)
	}
	return c.v
}

// TauTraitRecordings lists τ-Trait's recorded GPT-5 telehealth runs
// (TauTraitRecordingsOf "telehealth").
func TauTraitRecordings(tb testing.TB) []string {
	tb.Helper()
	return TauTraitRecordingsOf(tb, "telehealth")
}

// TauTraitRecordingsOf lists τ-Trait's recorded GPT-5 runs of one of its
// environments (collinear-ai/tau-trait
// trajectories/gpt5_trajectories/*<env>*.json, τ-bench v1 result lists),
// looked up in $LEDGERBENCH_TAUTRAIT_TRAJECTORIES, else in
// Trajectories()/collinear-ai+tau-trait. It skips the test when there are
// none.
func TauTraitRecordingsOf(tb testing.TB, env string) []string {
	tb.Helper()
	dir := os.Getenv("LEDGERBENCH_TAUTRAIT_TRAJECTORIES")
	if dir == "" {
		dir = filepath.Join(Trajectories(tb), "collinear-ai+tau-trait")
	}
	var files []string
	all, _ := filepath.Glob(filepath.Join(dir, "*"+env+"*.json"))
	for _, f := range all {
		if fi, err := os.Stat(f); err == nil && fi.Size() > 0 { // a snapshot may hold empty stand-ins for large files
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		tb.Skipf("no τ-Trait %s recordings in %s", env, dir)
	}
	return files
}

// Repo returns the test data directory (Root) after checking that it holds
// the given repository folders (data.TauBench, data.TauTrait, …), skipping
// the test, naming the folder, when one is absent: a shared copy pulled
// before those repositories were pinned has only some of them.
func Repo(tb testing.TB, folders ...string) string {
	tb.Helper()
	root := Root(tb)
	for _, f := range folders {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			tb.Skipf("no %s in the test data at %s (pull it with `ledgerbench data pull`)", f, root)
		}
	}
	return root
}
