package pyschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/data"
	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/pyjson"
)

// upstreamToolkits are τ²-bench's toolkits: domain, side in the derived
// file, source file and class, model files.
var upstreamToolkits = []struct {
	domain, side, file, class string
	models                    []string
}{
	{"airline", "assistant", "domains/airline/tools.py", "AirlineTools", []string{"domains/airline/data_model.py"}},
	{"retail", "assistant", "domains/retail/tools.py", "RetailTools", []string{"domains/retail/data_model.py"}},
	{"telecom", "assistant", "domains/telecom/tools.py", "TelecomTools", []string{"domains/telecom/data_model.py"}},
	{"telecom", "user", "domains/telecom/user_tools.py", "TelecomUserTools", []string{"domains/telecom/user_data_model.py"}},
}

type derivedTool struct {
	Name    string          `json:"name"`
	Type    string          `json:"type"`
	Mutates bool            `json:"mutates_state"`
	Schema  json.RawMessage `json:"schema"`
}

func readDerived(t *testing.T, root string) map[string]map[string][]derivedTool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, data.Tau2, "derived", "tool_schemas.json"))
	if err != nil {
		t.Skipf("upstream derived schemas not available: %v", err)
	}
	var all map[string]map[string][]derivedTool
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	return all
}

func loadToolkit(t *testing.T, root, file, class string, models []string) *Toolkit {
	t.Helper()
	f, err := ReadFile(data.Tau2Source(root, file))
	if err != nil {
		t.Fatal(err)
	}
	var ms []*File
	for _, m := range models {
		mf, err := ReadFile(data.Tau2Source(root, m))
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, mf)
	}
	k, err := NewToolkit(f, class, ms...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestUpstreamSchemas generates every τ² tool schema from the pulled source
// and compares it with what upstream's Tool.openai_schema produced
// (derived/tool_schemas.json): same tools in the same order, kinds, and the
// function object JSON-equal, key order included.
func TestUpstreamSchemas(t *testing.T) {
	root := datatest.Root(t)
	all := readDerived(t, root)
	total, equal, ordered := 0, 0, 0
	for _, tk := range upstreamToolkits {
		want := all[tk.domain][tk.side]
		k := loadToolkit(t, root, tk.file, tk.class, tk.models)
		names := k.Names()
		if len(names) != len(want) {
			t.Errorf("%s %s: %d tools %v; upstream %d", tk.domain, tk.side, len(names), names, len(want))
			continue
		}
		for i, w := range want {
			total++
			if names[i] != w.Name {
				t.Errorf("%s %s tool %d = %s; upstream %s", tk.domain, tk.side, i, names[i], w.Name)
				continue
			}
			spec, err := k.Spec(w.Name)
			if err != nil {
				t.Errorf("%s %s: %v", tk.domain, w.Name, err)
				continue
			}
			if string(spec.Kind) != w.Type {
				t.Errorf("%s %s: kind %s; upstream %s", tk.domain, w.Name, spec.Kind, w.Type)
			}
			fn := &pyjson.Dict{}
			fn.Set("name", w.Name)
			fn.Set("description", spec.Description)
			fn.Set("parameters", spec.Parameters)
			got := &pyjson.Dict{}
			got.Set("type", "function")
			got.Set("function", fn)
			gb, _ := json.Marshal(got)
			gv, _ := pyjson.Decode(gb)
			wv, err := pyjson.Decode(w.Schema)
			if err != nil {
				t.Fatal(err)
			}
			if !pyjson.Equal(gv, wv) {
				t.Errorf("%s %s:\n got %s\nwant %s", tk.domain, w.Name, gb, w.Schema)
				continue
			}
			equal++
			if pyjson.String(gv) == pyjson.String(wv) {
				ordered++
			} else {
				t.Errorf("%s %s: key order differs:\n got %s\nwant %s", tk.domain, w.Name, pyjson.String(gv), pyjson.String(wv))
			}
		}
	}
	t.Logf("%d/%d tool schemas JSON-equal to upstream's (%d with upstream's key order)", equal, total, ordered)
}
