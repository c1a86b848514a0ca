package airline

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

var loaded datatest.Cache[*Domain]

// testDomain loads the real airline data once per test binary.
func testDomain(tb testing.TB) *Domain {
	tb.Helper()
	return loaded.Get(tb, Load)
}
