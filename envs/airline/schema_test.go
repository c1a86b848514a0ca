package airline

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/pyschema/schematest"
)

// TestSchemas compares the loaded tools, generated from upstream's source,
// with the schemas upstream's own code sends.
func TestSchemas(t *testing.T) {
	d := testDomain(t)
	root := datatest.Root(t)
	schematest.Check(t, root, Name, "assistant", d.AgentTools())
	schematest.Check(t, root, Name, "user", d.UserTools())
}
