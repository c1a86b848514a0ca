package pyschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// oracleTool is one tool as testdata/oracle/schema_oracle.py reports it:
// upstream's Tool.openai_schema over a toolkit module.
type oracleTool struct {
	Name   string          `json:"name"`
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

// checkKit compares every tool of a toolkit with the oracle's schemas:
// names and order, kinds, and the function object JSON-equal with
// pydantic's key order.
func checkKit(t *testing.T, path, class string, want []oracleTool, models ...string) {
	t.Helper()
	k, err := Load(path, class, models...)
	if err != nil {
		t.Fatal(err)
	}
	names := k.Names()
	if len(names) != len(want) {
		t.Fatalf("Names() = %v; want %d tools", names, len(want))
	}
	for i, w := range want {
		t.Run(w.Name, func(t *testing.T) {
			if names[i] != w.Name {
				t.Fatalf("tool %d = %s; want %s", i, names[i], w.Name)
			}
			spec, err := k.Spec(w.Name)
			if err != nil {
				t.Fatal(err)
			}
			if string(spec.Kind) != w.Type {
				t.Errorf("kind %s; want %s", spec.Kind, w.Type)
			}
			fn := &pyjson.Dict{}
			fn.Set("name", w.Name)
			fn.Set("description", spec.Description)
			fn.Set("parameters", spec.Parameters)
			got := &pyjson.Dict{}
			got.Set("type", "function")
			got.Set("function", fn)
			gb, _ := json.Marshal(got)
			gv, err := pyjson.Decode(gb)
			if err != nil {
				t.Fatal(err)
			}
			wv, err := pyjson.Decode(w.Schema)
			if err != nil {
				t.Fatal(err)
			}
			if gs, ws := pyjson.String(gv), pyjson.String(wv); !pyjson.Equal(gv, wv) || gs != ws {
				t.Errorf("schema\n got %s\nwant %s", gs, ws)
			}
		})
	}
}

// TestKit checks the generator on a toolkit written for this test
// (testdata/kit.py: unions, Optional, enums and enum defaults, Literal and
// Annotated aliases, nested and inherited models, BaseModelNoExtra,
// Field(...) forms, docstring variants) against testdata/kit_schemas.json,
// which is the output of testdata/oracle/schema_oracle.py — upstream's Tool
// and pydantic run over the same file (TestKitOracle re-runs it).
func TestKit(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "kit_schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []oracleTool
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	checkKit(t, filepath.Join("testdata", "kit.py"), "Kit", want)
}

// The oracle tests run upstream's own Tool (and pydantic, docstring_parser)
// over a toolkit module and compare:
//
//	TAU2_SRC=/path/to/tau2-bench/src PYTHONPATH=/path/to/docstring_parser \
//	LEDGERBENCH_PYSCHEMA_ORACLE="python3 testdata/oracle/schema_oracle.py" \
//	go test ./internal/source/pyschema -run Oracle
func oracle(t *testing.T, path, class string) []oracleTool {
	t.Helper()
	cmdline := os.Getenv("LEDGERBENCH_PYSCHEMA_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_PYSCHEMA_ORACLE not set")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(cmdline)
	cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
	cmd.Stdin = strings.NewReader(`{"path": ` + pyjson.String(abs) + `, "class": ` + pyjson.String(class) + `}`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v\n%s", err, stderr.String())
	}
	var want []oracleTool
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("oracle output: %v", err)
	}
	return want
}

func TestKitOracle(t *testing.T) {
	t.Parallel()
	checkKit(t, filepath.Join("testdata", "kit.py"), "Kit", oracle(t, filepath.Join("testdata", "kit.py"), "Kit"))
}

// TestUpstreamOracle compares the four τ² toolkits read from the pulled
// source with what upstream's code generates from the same files.
func TestUpstreamOracle(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	for _, tk := range []struct{ file, class, model string }{
		{"domains/airline/tools.py", "AirlineTools", "domains/airline/data_model.py"},
		{"domains/retail/tools.py", "RetailTools", "domains/retail/data_model.py"},
		{"domains/telecom/tools.py", "TelecomTools", "domains/telecom/data_model.py"},
		{"domains/telecom/user_tools.py", "TelecomUserTools", "domains/telecom/user_data_model.py"},
	} {
		t.Run(tk.class, func(t *testing.T) {
			path := data.Tau2Source(root, tk.file)
			checkKit(t, path, tk.class, oracle(t, path, tk.class), data.Tau2Source(root, tk.model))
		})
	}
}

func TestTitle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"reservation_id", "Reservation Id"},
		{"gb_amount", "Gb Amount"},
		{"address1", "Address1"},
		{"mms_apn", "Mms Apn"},
		{"a1b", "A1B"},
		{"_private", "Private"},
		{"ALLCAPS", "Allcaps"},
		{"x", "X"},
	} {
		if got := title(tc.in); got != tc.want {
			t.Errorf("title(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestErrors checks that what the generator cannot reproduce is an error
// naming the file and the symbol.
func TestErrors(t *testing.T) {
	t.Parallel()
	const header = "from tau2.environment.toolkit import ToolKitBase, ToolType, is_tool\n\n"
	for _, tc := range []struct {
		name, src, tool string
		want            []string
	}{
		{"missing method", "class K(ToolKitBase):\n    pass\n", "gone", []string{"k.py", "K.gone", "not defined"}},
		{"not a tool", "class K(ToolKitBase):\n    def f(self):\n        \"\"\"Doc.\"\"\"\n", "f", []string{"k.py", "K.f", "is_tool"}},
		{"unknown type", "class K(ToolKitBase):\n    @is_tool()\n    def f(self, x: Widget):\n        \"\"\"Doc.\"\"\"\n", "f",
			[]string{"k.py", "K.f", "Widget"}},
		{"unsupported generic", "class K(ToolKitBase):\n    @is_tool()\n    def f(self, x: Tuple[int, str]):\n        \"\"\"Doc.\"\"\"\n", "f",
			[]string{"k.py", "K.f", "Tuple"}},
		{"variadic", "class K(ToolKitBase):\n    @is_tool()\n    def f(self, *args: int):\n        \"\"\"Doc.\"\"\"\n", "f",
			[]string{"k.py", "K.f", "variadic"}},
		{"unsupported Field option", "from pydantic import BaseModel, Field\n\nclass M(BaseModel):\n    n: int = Field(gt=0)\n\n" +
			"class K(ToolKitBase):\n    @is_tool()\n    def f(self, m: M):\n        \"\"\"Doc.\"\"\"\n", "f",
			[]string{"k.py", "K.f", "class M", "field n", "gt"}},
		{"non-literal default", "class K(ToolKitBase):\n    @is_tool()\n    def f(self, n: int = compute()):\n        \"\"\"Doc.\"\"\"\n", "f",
			[]string{"k.py", "K.f", "default"}},
		{"rest docstring", "class K(ToolKitBase):\n    @is_tool()\n    def f(self, n: int):\n        \"\"\"Doc.\n\n:param n: a number\n\"\"\"\n", "f",
			[]string{"k.py", "K.f", "ReST"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("k.py", []byte(header+tc.src))
			if err != nil {
				t.Fatal(err)
			}
			k, err := NewToolkit(f, "K")
			if err != nil {
				t.Fatal(err)
			}
			_, err = k.Spec(tc.tool)
			if err == nil {
				t.Fatal("Spec succeeded; want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.py")
	if err := os.WriteFile(tools, []byte("class Other:\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		path   string
		models []string
		is     error
		want   []string
	}{
		{"missing file", filepath.Join(dir, "absent.py"), nil, os.ErrNotExist, []string{"absent.py"}},
		{"missing model file", tools, []string{filepath.Join(dir, "models.py")}, os.ErrNotExist, []string{"models.py"}},
		{"missing class", tools, nil, pyliteral.ErrNoSymbol, []string{"tools.py", "class Kit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.path, "Kit", tc.models...)
			if !errors.Is(err, tc.is) {
				t.Fatalf("Load error %v; want %v", err, tc.is)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	src := `class K(ToolKitBase):
    @is_tool(ToolType.READ)
    def a(self):
        """A."""

    @is_tool(ToolType.READ)
    def gone(self):
        """Decorated, then redefined without the decorator."""

    @is_discoverable_tool(ToolType.READ)
    def hidden(self):
        """Discoverable tools are not sent."""

    def helper(self):
        pass

    @is_tool(ToolType.WRITE)
    def b(self):
        """B."""

    def gone(self):
        pass

    @is_tool(ToolType.GENERIC)
    def a(self, x: int):
        """A again: keeps its first place."""
`
	f, err := Parse("k.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewToolkit(f, "K")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := k.Names(), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v; want %v", got, want)
	}
	spec, err := k.Spec("a")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Kind != "generic" || !strings.Contains(string(spec.Parameters), `"x"`) {
		t.Errorf("Spec(a) = %+v; want the last definition", spec)
	}
	g, err := Parse("g.py", []byte("class G(OtherKit):\n    pass\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewToolkit(g, "G"); err == nil || !strings.Contains(err.Error(), "g.py") {
		t.Errorf("NewToolkit over a derived toolkit: %v; want an error naming the file", err)
	}
}

// BenchmarkKit measures reading a toolkit and building all its schemas (what
// a domain load does once).
func BenchmarkKit(b *testing.B) {
	for b.Loop() {
		k, err := Load(filepath.Join("testdata", "kit.py"), "Kit")
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range k.Names() {
			if _, err := k.Spec(n); err != nil {
				b.Fatal(err)
			}
		}
	}
}
