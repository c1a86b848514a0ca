package telehealth

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

var update = flag.Bool("update", false, "update golden files")

// loaded caches the domain across the package's tests.
var loaded datatest.Cache[*Domain]

// loadDomain loads the domain once per test binary.
func loadDomain(tb testing.TB) *Domain {
	tb.Helper()
	return loaded.Get(tb, func(root string) (*Domain, error) { return Load(root) })
}

type toolCase struct {
	Name  string      `json:"name"`
	Calls [][2]string `json:"calls"`
}

func readToolCases(t testing.TB) []toolCase {
	t.Helper()
	raw, err := os.ReadFile("testdata/tool_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []toolCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestToolsGolden runs testdata/tool_cases.json (every tool, with its error
// paths and arguments of unexpected types) and compares outputs and data
// hashes with testdata/tools.golden. That file was checked against
// upstream's own tool code: testdata/upstream_tools.py prints the same text
// (see its doc).
func TestToolsGolden(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	var b strings.Builder
	for _, c := range readToolCases(t) {
		env := d.Env()
		b.WriteString("=== " + c.Name + "\n")
		for _, call := range c.Calls {
			res, err := env.Call(context.Background(), message.ByAssistant, call[0], json.RawMessage(call[1]))
			kind, content := "result", ""
			if err != nil {
				kind, content = "exception", "Error: "+err.Error()
			} else {
				content = tool.Content(res)
			}
			b.WriteString("> " + call[0] + " " + call[1] + "\n< " + kind + "\n")
			for _, line := range strings.Split(content, "\n") {
				b.WriteString("| " + line + "\n")
			}
			b.WriteString("# " + env.DataHash() + "\n")
		}
	}
	goldentest.Check(t, *update, "tools.golden", b.String())
}
