package retail

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/pyschema/schematest"
)

// TestSchemas compares the loaded tools, generated from upstream's source,
// with the schemas upstream's own code sends.
func TestSchemas(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	root := datatest.Root(t)
	schematest.Check(t, root, Name, "assistant", d.AgentTools())
	schematest.Check(t, root, Name, "user", d.UserTools())
}

func TestToolKinds(t *testing.T) {
	t.Parallel()
	d := New(&DB{}, "", nil)
	writes := map[string]bool{
		"cancel_pending_order": true, "exchange_delivered_order_items": true, "modify_pending_order_address": true,
		"modify_pending_order_items": true, "modify_pending_order_payment": true, "modify_user_address": true,
		"return_delivered_order_items": true,
	}
	for _, info := range d.AgentTools() {
		if info.Mutates() != writes[info.Name] {
			t.Errorf("%s: Mutates() = %v", info.Name, info.Mutates())
		}
		if info.Kind == tool.Think {
			t.Errorf("%s: no retail tool is a think tool", info.Name)
		}
	}
}
