package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/output/experiment"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// simConfig writes experiments/sim.yaml into dir with out pointing there,
// keeping only the domains and agents this build has when all is false.
func simConfig(t *testing.T, dir string, all bool) (path string, cells int) {
	t.Helper()
	cfg, err := experiment.Load(filepath.Join("..", "..", "experiments", "sim.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Out = filepath.Join(dir, "exp")
	if !all {
		var blocks []experiment.Block
		for _, b := range cfg.Grid {
			for _, d := range b.Domains {
				one := b
				one.Domains = []string{d}
				one.Agents = slices.DeleteFunc(slices.Clone(b.Agents), func(a string) bool { return !buildable(t, d, a) })
				if len(one.Agents) > 0 {
					blocks = append(blocks, one)
				}
			}
		}
		if len(blocks) == 0 {
			t.Skip("no domain or agent of sim.yaml is available yet")
		}
		cfg.Grid = blocks
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "sim.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, len(cfg.Cells())
}

// buildable reports whether this build can run agent on domain: the domain
// is registered, the agent too, and LedgerAgent's variants find the domain's
// ledger policy.
func buildable(t *testing.T, domain, agent string) bool {
	if !slices.Contains(domains.Names(), domain) || !slices.Contains(agents.AgentNames(), agent) {
		return false
	}
	if agent == "baseline" {
		return true
	}
	dom, err := domains.Load(domain, datatest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	_, ok := ledgeragent.PolicyOf(dom)
	return ok
}

func checkExperiment(t *testing.T, dir string, cells int) {
	t.Helper()
	out := filepath.Join(dir, "exp")
	for _, f := range []string{"report/report.txt", "report/report.md", "report/report.json", "report/tables/table2.csv", "report/tables/errors.csv", "experiment.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	svgs, _ := filepath.Glob(filepath.Join(out, "report", "figures", "*.svg"))
	if len(svgs) == 0 {
		t.Error("no SVG figures")
	}
	for _, p := range svgs {
		b, _ := os.ReadFile(p)
		if !strings.HasPrefix(string(b), "<?xml") || !strings.Contains(string(b), "</svg>") {
			t.Errorf("%s is not an SVG document", p)
		}
	}
	runs, _ := os.ReadDir(filepath.Join(out, "runs"))
	if len(runs) != cells {
		t.Errorf("run directories = %d; want %d", len(runs), cells)
	}
}

// TestExperimentSimAvailable runs sim.yaml restricted to the domains and
// agents this build has, through the real runner, then reruns it: the second
// pass runs nothing.
func TestExperimentSimAvailable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, cells := simConfig(t, dir, false)
	r := mustRun(t, "experiment", "--quiet", path)
	if !strings.Contains(r.out, "Run groups") || !strings.Contains(r.out, "sim") {
		t.Errorf("report not printed:\n%s", r.out)
	}
	checkExperiment(t, dir, cells)
	r = mustRun(t, "experiment", "--quiet", "--no-report", path)
	if strings.Contains(r.errOut, "running") || strings.Count(r.errOut, "complete (") != cells {
		t.Errorf("second pass ran something:\n%s", r.errOut)
	}
}

// TestExperimentSim runs the shipped sim.yaml as is once every domain and
// agent it names exists.
func TestExperimentSim(t *testing.T) {
	t.Parallel()
	for _, d := range []string{"airline", "retail"} {
		for _, a := range []string{"baseline", "ledger"} {
			if !buildable(t, d, a) {
				t.Fatalf("agent %s cannot run on %s", a, d)
			}
		}
	}
	dir := t.TempDir()
	path, cells := simConfig(t, dir, true)
	r := mustRun(t, "experiment", "--quiet", path)
	if !strings.Contains(r.out, "Table 2") || strings.Contains(r.out, "no domain has both") {
		t.Errorf("table 2 empty:\n%s", r.out)
	}
	checkExperiment(t, dir, cells)
}

func TestExperimentUsage(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("out: x\ntrails: 2\ngrid: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"experiment"}, {"experiment", bad}, {"experiment", "--format", "html", bad}} {
		if r := execCLI(t, t.Context(), args...); r.code != ExitUsage {
			t.Errorf("ledgerbench %s: exit %d; want %d (%s)", strings.Join(args, " "), r.code, ExitUsage, r.errOut)
		}
	}
}

// A file that is not there is an error (exit 1), not a usage error; one
// that is wrong names each problem at its line; an empty one says so.
func TestExperimentFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	for name, body := range map[string]string{empty: "", bad: "out: x\ntrails: 2\ngrid: []\n"} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		file string
		code int
		want string
	}{
		{filepath.Join(dir, "missing.yaml"), ExitError, "read experiment: open " + filepath.Join(dir, "missing.yaml")},
		{empty, ExitUsage, empty + ": empty document\n"},
		{bad, ExitUsage, bad + `:2: unknown key "trails" (did you mean "trials"?)` + "\n" + bad + ":3: grid: at least one block is required\n"},
	}
	for _, tc := range tests {
		r := execCLI(t, t.Context(), "experiment", tc.file)
		if r.code != tc.code || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("experiment %s: exit %d, stderr %q; want %d and %q", filepath.Base(tc.file), r.code, r.errOut, tc.code, tc.want)
		}
	}
}
