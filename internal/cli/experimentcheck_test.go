package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/output/experiment"
)

// The dry run prints each cell's estimated cost — the
// simulations it would run × the prices of its agent and (τ²-bench's
// default) user backbones applied to the domain's typical usage — with the
// basis of the figures, and writes nothing.
func TestExperimentDryRunEstimate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bb := filepath.Join(dir, "backbones.yaml")
	if err := os.WriteFile(bb, []byte(`
backbones:
  fake:
    base_url: http://127.0.0.1:9/v1
    model: fake-model
    price: {input: 2, output: 8}
  gpt-4.1:
    base_url: http://127.0.0.1:9/v1
    model: gpt-4.1-2025-04-14
    temperature: 0
    price: {input: 1, output: 4}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "grid.yaml")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(`name: est
out: %s
backbones_file: %s
trials: 2
limit: 3
judge: none
grid:
  - domains: [retail]
    agents: [baseline]
    backbones: [fake, sim]
`, filepath.Join(dir, "exp"), bb)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, "experiment", "--dry-run", path)
	typ := experiment.TypicalUsage("retail")
	agent := llm.Price{Input: 2, Output: 8}.Cost(typ.Agent)
	user := llm.Price{Input: 1, Output: 4}.Cost(typ.User)
	for _, want := range []string{
		fmt.Sprintf("estimate: %-50s 6 simulations to run × ($%.4f agent + $%.4f user) ≈ $%.2f", "retail/baseline/fake", agent, user, 6*(agent+user)),
		"retail/baseline/sim",
		"6 simulations to run × ($0.0000 agent + $0.0000 user) ≈ $0.00",
		fmt.Sprintf("estimate: ≈ $%.2f in all (an estimate", 6*(agent+user)),
		fmt.Sprintf("%.0f%% of prompt tokens assumed served from the provider's cache", 100*experiment.AssumedCacheShare),
		"estimate basis retail: no recorded usage for retail: airline's figures",
		"nothing was written",
	} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("dry run does not say %q:\n%s", want, r.errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "exp")); !os.IsNotExist(err) {
		t.Errorf("the dry run wrote %s (%v)", filepath.Join(dir, "exp"), err)
	}
}

// A backbone without price: has an unknown cost, not $0:
// the dry run says so per cell, and that a cost cap cannot bound those
// cells; a real run with max_cost says it before starting.
func TestExperimentUnknownPriceUnbounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bb := filepath.Join(dir, "backbones.yaml")
	if err := os.WriteFile(bb, []byte(`
backbones:
  free:
    base_url: http://127.0.0.1:9/v1
    model: free-model
    max_retries: 0
  gpt-4.1:
    base_url: http://127.0.0.1:9/v1
    model: gpt-4.1-2025-04-14
    temperature: 0
    price: {input: 1, output: 4}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "grid.yaml")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(`name: unpriced
out: %s
backbones_file: %s
trials: 1
limit: 1
judge: none
max_cost: 5
grid:
  - domains: [retail]
    agents: [baseline]
    backbones: [free, sim]
  - domains: [airline]
    agents: [baseline]
    backbones: [free]
    split: nosuch
`, filepath.Join(dir, "exp"), bb)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := execCLI(t, t.Context(), "experiment", "--dry-run", path)
	for _, want := range []string{
		"retail/baseline/free", "cost unknown (no price for free in " + bb + ")",
		"budget: max_cost $5.00 cannot bound 1 cell(s) with unknown prices",
		"  retail/baseline/free: free\n",
		"cannot run: ", // the airline cell: its split does not exist
	} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("dry run does not say %q:\n%s", want, r.errOut)
		}
	}
	if strings.Contains(r.errOut, "retail/baseline/sim: ") {
		t.Errorf("the offline cell is called unbounded:\n%s", r.errOut)
	}
	// A cell that cannot be planned runs nothing and spends nothing.
	if strings.Contains(r.errOut, "  airline/baseline/free") {
		t.Errorf("the cell that cannot run is called unbounded:\n%s", r.errOut)
	}
	// A real run says it before the cells start (the cells then fail: no
	// server behind the backbone; what matters is the notice).
	real := execCLI(t, t.Context(), "experiment", "--no-report", "--quiet", path)
	notice, _, _ := strings.Cut(real.errOut, "running ")
	if !strings.Contains(notice, "budget: max_cost $5.00 cannot bound 1 cell(s) with unknown prices") {
		t.Errorf("run with max_cost does not say what it cannot bound before it starts:\n%s", real.errOut)
	}
}

// A run stopped by an experiment's budget says so, not that it was
// interrupted by Ctrl-C.
func TestStopNotice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		cause     error
		want, not string
	}{
		{"Ctrl-C", nil, "interrupted: starting no new simulations; 0 running, waiting for them to finish (Ctrl-C again to quit now)", "budget"},
		{"budget", fmt.Errorf("%w: $1.0000 spent of max_cost $1.0000", experiment.ErrBudget), "budget reached (experiment budget reached: $1.0000 spent of max_cost $1.0000): starting no new simulations", "Ctrl-C"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			wrote := make(chan struct{}, 1)
			w := &lockedWriter{w: writeFunc(func(p []byte) (int, error) {
				n, err := b.Write(p)
				select {
				case wrote <- struct{}{}:
				default:
				}
				return n, err
			})}
			ctx, cancel := context.WithCancelCause(t.Context())
			stop := startProgress(ctx, progressOptions{Streams: &Streams{}, Quiet: true}, w, runner.NewProgress(1))
			cancel(tc.cause)
			select { // the notice is written from context.AfterFunc's goroutine
			case <-wrote:
			case <-time.After(10 * time.Second):
			}
			stop()
			w.mu.Lock()
			got := b.String()
			w.mu.Unlock()
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.not) {
				t.Errorf("notice %q; want %q, without %q", got, tc.want, tc.not)
			}
		})
	}
}

// writeFunc is an io.Writer made of a function.
type writeFunc func([]byte) (int, error)

func (f writeFunc) Write(p []byte) (int, error) { return f(p) }

// TestExperimentDryRunChecks: an offline grid whose tasks have no NL
// assertions needs no judge, so no key (main said it "cannot run" for want
// of OPENAI_API_KEY); a missing key variable is one line whatever the
// number of cells needing it; the estimate is compared with max_cost and
// --max-cost.
func TestExperimentDryRunChecks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bb := filepath.Join(dir, "backbones.yaml")
	if err := os.WriteFile(bb, []byte(`
judge: judge
backbones:
  judge:
    base_url: http://127.0.0.1:9/v1
    model: judge-model
    api_key_env: JUDGE_KEY
  fake:
    base_url: http://127.0.0.1:9/v1
    model: fake-model
    api_key_env: FAKE_KEY
    price: {input: 2, output: 8}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	grid := func(name, body string) string {
		path := filepath.Join(dir, name+".yaml")
		text := fmt.Sprintf("name: %s\nout: %s\nbackbones_file: %s\ntrials: 1\nlimit: 3\n%s", name, filepath.Join(dir, name), bb, body)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	offline := grid("offline", "grid:\n  - domains: [airline]\n    agents: [baseline, ledger]\n    backbones: [sim, gold]\n")
	r := execCLI(t, t.Context(), "experiment", "--dry-run", offline)
	if r.code != ExitOK || strings.Contains(r.errOut, "cannot run") {
		t.Errorf("offline grid without NL tasks: exit %d; want 0 and nothing that cannot run:\n%s", r.code, r.errOut)
	}
	// Cells that cannot be planned (here: no data) are listed once each,
	// and the dry run's one-line error counts them (and the judge key
	// that tasks it cannot read may need).
	r = execCLI(t, t.Context(), "experiment", "--dry-run", "--data", t.TempDir(), offline)
	if r.code != ExitFailed || strings.Count(r.errOut, "data not found") != 4 ||
		!strings.HasSuffix(strings.TrimSpace(r.errOut), "ledgerbench: failed: dry run: 4 cell(s) cannot be planned and 1 problem(s) in the grid's cells (listed above)") {
		t.Errorf("four cells without data: exit %d; want %d, each cell once and a count:\n%s", r.code, ExitFailed, r.errOut)
	}
	model := grid("model", "judge: none\nmax_cost: 0.01\ngrid:\n  - domains: [airline]\n    agents: [baseline, ledger, irma]\n    backbones: [fake]\n    user_backbones: [fake]\n")
	r = execCLI(t, t.Context(), "experiment", "--dry-run", model)
	if r.code != ExitFailed || strings.Count(r.errOut, "cannot run:") != 1 ||
		!strings.Contains(r.errOut, "cannot run: environment variable FAKE_KEY is empty or unset (hint: set FAKE_KEY): backbone fake, user backbone fake of 3 cells") {
		t.Errorf("three cells without FAKE_KEY: exit %d; want %d and one line for the variable:\n%s", r.code, ExitFailed, r.errOut)
	}
	if !strings.Contains(r.errOut, "exceeds max_cost $0.01") {
		t.Errorf("dry run does not compare its estimate with max_cost:\n%s", r.errOut)
	}
	r = execCLI(t, t.Context(), "experiment", "--dry-run", "--max-cost", "1000", model)
	if !strings.Contains(r.errOut, "is within max_cost $1000.00") {
		t.Errorf("dry run does not compare its estimate with --max-cost:\n%s", r.errOut)
	}
}
