package telecom

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/pyschema/schematest"
)

// TestSchemas compares the loaded agent and user tools, generated from
// upstream's source, with the schemas upstream's own code sends.
func TestSchemas(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	root := datatest.Root(t)
	schematest.Check(t, root, Name, "assistant", d.AgentTools())
	schematest.Check(t, root, Name, "user", d.UserTools())
}
