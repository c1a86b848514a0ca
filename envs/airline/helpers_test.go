package airline

import (
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
)

var loaded struct {
	once sync.Once
	d    *Domain
	err  error
}

// testDomain loads the real airline data once per test binary.
func testDomain(tb testing.TB) *Domain {
	tb.Helper()
	root := datatest.Root(tb)
	loaded.once.Do(func() { loaded.d, loaded.err = Load(root) })
	if loaded.err != nil {
		tb.Fatalf("Load: %v", loaded.err)
	}
	return loaded.d
}
