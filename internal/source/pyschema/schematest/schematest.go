// Package schematest checks a domain's tools against the schemas upstream's
// own code sends (tau2-bench/derived/tool_schemas.json in the data
// directory).
package schematest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// Upstream is one entry of derived/tool_schemas.json.
type Upstream struct {
	Name    string          `json:"name"`
	Type    string          `json:"type"`
	Mutates bool            `json:"mutates_state"`
	Schema  json.RawMessage `json:"schema"`
}

// Derived reads derived/tool_schemas.json (domain → "assistant"/"user" →
// tools), skipping the test when the data directory lacks it.
func Derived(tb testing.TB, root string) map[string]map[string][]Upstream {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(root, data.Tau2, "derived", "tool_schemas.json"))
	if err != nil {
		tb.Skipf("upstream tool schemas not available: %v", err)
	}
	var all map[string]map[string][]Upstream
	if err := json.Unmarshal(raw, &all); err != nil {
		tb.Fatalf("decode tool_schemas.json: %v", err)
	}
	return all
}

// Check compares tools with upstream's tools of one side ("assistant" or
// "user") of a domain: the same tools in the same order, each of the same
// kind and mutation flag, and Info.OpenAISchema() JSON-equal to upstream's
// schema with upstream's key order. It returns how many schemas are equal.
func Check(t *testing.T, root, domain, side string, tools []tool.Info) int {
	t.Helper()
	want := Derived(t, root)[domain][side]
	if len(tools) != len(want) {
		t.Errorf("%s %s: %d tools; upstream has %d", domain, side, len(tools), len(want))
		return 0
	}
	equal := 0
	for i, w := range want {
		g := tools[i]
		if g.Name != w.Name {
			t.Errorf("%s %s tool %d is %s; upstream %s", domain, side, i, g.Name, w.Name)
			continue
		}
		if string(g.Kind) != w.Type || g.Mutates() != w.Mutates {
			t.Errorf("%s: kind %s (mutates %v); upstream %s (%v)", g.Name, g.Kind, g.Mutates(), w.Type, w.Mutates)
		}
		got, err := pyjson.Decode(g.OpenAISchema())
		if err != nil {
			t.Fatalf("%s: OpenAISchema: %v", g.Name, err)
		}
		up, err := pyjson.Decode(w.Schema)
		if err != nil {
			t.Fatalf("%s: upstream schema: %v", g.Name, err)
		}
		if !pyjson.Equal(got, up) {
			t.Errorf("%s: OpenAISchema()\n got %s\nwant %s", g.Name, pyjson.String(got), pyjson.String(up))
			continue
		}
		if gs, us := pyjson.String(got), pyjson.String(up); gs != us {
			t.Errorf("%s: key order differs from upstream's\n got %s\nwant %s", g.Name, gs, us)
			continue
		}
		equal++
	}
	t.Logf("%s %s: %d/%d tool schemas equal to upstream's", domain, side, equal, len(want))
	return equal
}
