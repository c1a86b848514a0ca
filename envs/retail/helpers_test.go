package retail

import (
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
)

// loaded caches the real domain across the package's tests; it is read-only
// once loaded, and every test works on its own Env.
var loaded struct {
	once sync.Once
	d    *Domain
	err  error
}

// domainForTest loads the retail domain from the test data directory.
func domainForTest(tb testing.TB) *Domain {
	tb.Helper()
	root := datatest.Root(tb)
	loaded.once.Do(func() { loaded.d, loaded.err = Load(root) })
	if loaded.err != nil {
		tb.Fatalf("Load: %v", loaded.err)
	}
	return loaded.d
}
