package domaindoc

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

var update = flag.Bool("update", false, "update golden files")

type counter struct{ n int }

type addArgs struct {
	// By is the step.
	By int `json:"by"`
}

func add(_ context.Context, c *counter, a addArgs) (any, error) { c.n += a.By; return c.n, nil }

type peekArgs struct{}

func peek(_ context.Context, c *counter, _ peekArgs) (any, error) { return c.n, nil }

// toy is a domain of our own: a policy, two tools, two splits and an
// extra list.
type toy struct {
	envs.Single[*counter]
}

func newToy() *toy {
	set := &tasks.Set{Domain: "toy", DefaultSplit: "base",
		Tasks:       []tasks.Task{{ID: "a"}, {ID: "b"}, {ID: "c"}},
		Splits:      tasks.Splits{"base": {"a", "b", "c"}, "test": {"b"}},
		Extra:       map[string][]tasks.Task{"small": {{ID: "z"}}},
		Unavailable: map[string]string{"dev": "upstream's dev list names no task"}}
	ts := tool.NewSet("ToyTools", tool.New("add", tool.Write, "Add to the counter.", add), tool.New("peek", tool.Read, "Read the counter.", peek))
	return &toy{envs.NewSingle("toy", "# Toy policy\n\nCount carefully.\n", set, ts)}
}

func (*toy) NewEnv() envs.Env { return nil }

// TestToyGolden: the Markdown and JSON renderings of a domain of our own
// (golden files; -update rewrites them).
func TestToyGolden(t *testing.T) {
	t.Parallel()
	d, err := Build(newToy())
	if err != nil {
		t.Fatal(err)
	}
	if d.Tasks != 3 || !reflect.DeepEqual(d.Splits, []Split{{"base", 3}, {"small", 1}, {"test", 1}}) {
		t.Errorf("tasks %d, splits %v; want 3 and base 3, small 1, test 1", d.Tasks, d.Splits)
	}
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"toy.md", func(b *bytes.Buffer) error { return d.WriteMarkdown(b) }},
		{"toy.json", func(b *bytes.Buffer) error { return d.WriteJSON(b) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from %s:\n%s", tc.name, golden, b.String())
			}
		})
	}
}

// TestEveryDomain: every domain ledgerbench has is documented, its tools
// and policy those the model is shown and its split counts those Select
// gives.
func TestEveryDomain(t *testing.T) {
	root := datatest.Root(t)
	for _, name := range domains.Names() {
		t.Run(name, func(t *testing.T) {
			d, err := Load(Options{DataDir: root, Domain: name})
			if err != nil {
				t.Fatal(err)
			}
			dom, err := domains.Load(name, root)
			if err != nil {
				t.Fatal(err)
			}
			if err := envs.Describe(dom); err != nil {
				t.Fatal(err)
			}
			if d.Policy != dom.Policy() || d.Policy == "" || len(d.AgentTools) != len(dom.AgentTools()) || len(d.UserTools) != len(dom.UserTools()) {
				t.Errorf("policy %d bytes, %d agent and %d user tools; want %d, %d, %d", len(d.Policy), len(d.AgentTools), len(d.UserTools),
					len(dom.Policy()), len(dom.AgentTools()), len(dom.UserTools()))
			}
			if d.Benchmark == "" || d.Tasks == 0 || len(d.Splits) == 0 {
				t.Errorf("benchmark %q, %d tasks, splits %v", d.Benchmark, d.Tasks, d.Splits)
			}
			for _, s := range d.Splits {
				sel, err := dom.Tasks().Select(tasks.Selection{Split: s.Name})
				if err != nil {
					t.Fatal(err)
				}
				if len(sel) != s.Tasks {
					t.Errorf("split %s: %d tasks; Select gives %d", s.Name, s.Tasks, len(sel))
				}
			}
			var md bytes.Buffer
			if err := d.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			for _, tl := range append(d.AgentTools, d.UserTools...) {
				if !strings.Contains(md.String(), "### "+tl.Name+" ("+string(tl.Kind)+")") {
					t.Errorf("markdown lacks tool %s", tl.Name)
				}
			}
		})
	}
}

// TestTau2Conformance: for τ²-bench's airline, retail and telecom the
// documented tools are upstream's (derived/tool_schemas.json, produced by
// upstream's Tool.openai_schema: name, description, parameters, agent and
// user side) and airline's and retail's policy is upstream's policy.md.
func TestTau2Conformance(t *testing.T) {
	root := datatest.Root(t)
	raw, err := os.ReadFile(filepath.Join(root, data.Tau2, "derived", "tool_schemas.json"))
	if err != nil {
		t.Skipf("upstream tool schemas: %v", err)
	}
	type entry struct {
		Name   string `json:"name"`
		Schema struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"schema"`
	}
	var want map[string]map[string][]entry
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"airline", "retail", "telecom"} {
		t.Run(name, func(t *testing.T) {
			d, err := Load(Options{DataDir: root, Domain: name})
			if err != nil {
				t.Fatal(err)
			}
			for side, got := range map[string][]Tool{"assistant": d.AgentTools, "user": d.UserTools} {
				w := want[name][side]
				if len(got) != len(w) {
					t.Fatalf("%s: %d tools; upstream %d", side, len(got), len(w))
				}
				for i, e := range w {
					g := got[i]
					if g.Name != e.Schema.Function.Name || g.Description != e.Schema.Function.Description || !sameJSON(t, g.Parameters, e.Schema.Function.Parameters) {
						t.Errorf("%s tool %d: %s differs from upstream's %s", side, i, g.Name, e.Name)
					}
				}
			}
			if name == "telecom" {
				return
			}
			policy, err := os.ReadFile(filepath.Join(root, data.Tau2, "data", "tau2", "domains", name, "policy.md"))
			if err != nil {
				t.Fatal(err)
			}
			if d.Policy != string(policy) {
				t.Errorf("policy differs from upstream's policy.md (%d vs %d bytes)", len(d.Policy), len(policy))
			}
		})
	}
}

func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// TestSolo: telecom's solo documentation is the solo policy with the
// phone tools on the agent's side and none for the user.
func TestSolo(t *testing.T) {
	root := datatest.Root(t)
	normal, err := Load(Options{DataDir: root, Domain: "telecom"})
	if err != nil {
		t.Fatal(err)
	}
	solo, err := Load(Options{DataDir: root, Domain: "telecom", Solo: true})
	if err != nil {
		t.Fatal(err)
	}
	if !solo.Solo || solo.Policy == normal.Policy || len(solo.UserTools) != 0 || len(solo.AgentTools) <= len(normal.AgentTools) {
		t.Errorf("solo: policy same %v, %d agent tools (normal %d), %d user tools", solo.Policy == normal.Policy,
			len(solo.AgentTools), len(normal.AgentTools), len(solo.UserTools))
	}
}
