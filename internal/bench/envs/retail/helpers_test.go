package retail

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// loaded caches the real domain across the package's tests; it is read-only
// once loaded, and every test works on its own Env.
var loaded datatest.Cache[*Domain]

// domainForTest loads the retail domain from the test data directory.
func domainForTest(tb testing.TB) *Domain {
	tb.Helper()
	return loaded.Get(tb, Load)
}
