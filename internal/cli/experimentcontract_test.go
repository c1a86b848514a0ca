package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An experiment stopped by a budget exits non-zero (4) and
// says which cap stopped it, and its tables equal `report`'s on the same
// runs, the gate table with the baseline's shadow verdicts included.
func TestExperimentBudgetAndTables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, _ := simConfig(t, dir, false)
	r := execCLI(t, t.Context(), "experiment", "--quiet", "--max-simulations", "5", path)
	if r.code != ExitBudget || !strings.Contains(r.errOut, "max_simulations") || strings.Contains(r.errOut, "interrupt") {
		t.Errorf("budget stop: exit %d; want %d naming max_simulations (not an interrupt):\n%s", r.code, ExitBudget, r.errOut)
	}
	mustRun(t, "experiment", "--quiet", "--no-report", path)
	mustRun(t, "experiment", "--quiet", path)
	runs, err := filepath.Glob(filepath.Join(dir, "exp", "runs", "*", "manifest.json"))
	if err != nil || len(runs) == 0 {
		t.Fatalf("no cell runs: %v", err)
	}
	var dirs []string
	for _, m := range runs {
		dirs = append(dirs, filepath.Dir(m))
	}
	for _, id := range []string{"gate", "table2", "comparison"} {
		want, err := os.ReadFile(filepath.Join(dir, "exp", "report", "tables", id+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		got := mustRun(t, append([]string{"report", "--format", "csv", "--table", id}, dirs...)...)
		if got.out != string(want) {
			t.Errorf("experiment's %s table differs from report's:\nexperiment:\n%s\nreport:\n%s", id, want, got.out)
		}
	}
}

// --dry-run validates every cell (agents, backbones, API-key
// variables) and writes nothing.
func TestExperimentDryRun(t *testing.T) {
	dir := t.TempDir()
	path, _ := simConfig(t, dir, false)
	r := mustRun(t, "experiment", "--dry-run", path)
	if !strings.Contains(r.errOut, "nothing was written") {
		t.Errorf("dry run of the sim grid:\n%s", r.errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "exp")); !os.IsNotExist(err) {
		t.Errorf("the dry run wrote %s (%v)", filepath.Join(dir, "exp"), err)
	}
	// The paper's grid without API keys: one line per variable, naming
	// its cells.
	t.Chdir("../..") // the paper's file names backbones.yaml relative to the checkout
	out := filepath.Join(t.TempDir(), "paper")
	r = execCLI(t, t.Context(), "experiment", "--dry-run", "--out", out, "experiments/paper.yaml")
	if r.code != ExitFailed || strings.Count(r.errOut, "cannot run: environment variable OPENAI_API_KEY is empty or unset") != 1 || !strings.Contains(r.errOut, "retail/baseline/gpt-4.1") {
		t.Errorf("dry run of the paper grid without keys: exit %d; want %d naming the cells and OPENAI_API_KEY:\n%s", r.code, ExitFailed, r.errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the dry run wrote %s (%v)", out, err)
	}
}
