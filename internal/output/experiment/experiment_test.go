package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

const gridYAML = `
name: t
out: %s
trials: 2
limit: 2
concurrency: 3
grid:
  - domains: [airline, retail]
    agents: [baseline, ledger]
    backbones: [sim]
    user_backbones: [sim]
`

func TestParse(t *testing.T) {
	t.Parallel()
	c, err := Parse([]byte(`
name: x
out: runs/x
trials: 4
splits: {telecom: small}
grid:
  - domains: [airline, telecom]
    agents: [baseline, ledger]
    backbones: [gpt-4.1, kimi-k2.5]
    user_backbones: [gpt-4.1]
  - domains: [airline]
    agents: [baseline]
    backbones: [gpt-5.2]
    trials: 2
    limit: 10
    split: test
  - domains: [airline]
    agents: [baseline]
    backbones: [gpt-4.1]
    user_backbones: [gpt-4.1]
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Seed != DefaultSeed || c.MaxSteps != DefaultMaxSteps || c.Baseline != "baseline" || c.Treatment != "ledger" || c.ParallelCells != 1 {
		t.Errorf("defaults not filled: %+v", c)
	}
	cells := c.Cells()
	var ids []string
	for _, cell := range cells {
		ids = append(ids, cell.ID())
	}
	want := []string{
		"airline/baseline/gpt-4.1", "airline/ledger/gpt-4.1", "airline/baseline/kimi-k2.5/user=gpt-4.1", "airline/ledger/kimi-k2.5/user=gpt-4.1",
		"telecom/baseline/gpt-4.1", "telecom/ledger/gpt-4.1", "telecom/baseline/kimi-k2.5/user=gpt-4.1", "telecom/ledger/kimi-k2.5/user=gpt-4.1",
		"airline/baseline/gpt-5.2",
	}
	if !slices.Equal(ids, want) {
		t.Errorf("cells =\n%s\nwant\n%s", strings.Join(ids, "\n"), strings.Join(want, "\n"))
	}
	last := cells[len(cells)-1]
	if last.Trials != 2 || last.Limit != 10 || last.Split != "test" {
		t.Errorf("block overrides: %+v", last)
	}
	if cells[4].Split != "small" || cells[0].Trials != 4 {
		t.Errorf("per-domain split or default trials: %+v", cells[4])
	}
	if got, want := cells[2].Dir, filepath.Join("runs", "x", "runs", "airline_baseline_kimi-k2.5_user-gpt-4.1"); got != want {
		t.Errorf("dir = %q; want %q", got, want)
	}
}

// TestTraitCells: a block's traits are a dimension of its cells, each in
// its own run directory, canonically named; "none" runs without traits.
func TestTraitCells(t *testing.T) {
	t.Parallel()
	c, err := Parse([]byte("out: x\ngrid: [{domains: [telehealth], agents: [baseline], backbones: [m], user_backbones: [steer], traits: [none, '{\"confusion\": \"high\"}']}]"))
	if err != nil {
		t.Fatal(err)
	}
	cells := c.Cells()
	if len(cells) != 2 {
		t.Fatalf("%d cells", len(cells))
	}
	if cells[0].ID() != "telehealth/baseline/m/user=steer/traits=none" || cells[0].RunTraits() != "" {
		t.Errorf("cell 0: %s, run traits %q", cells[0].ID(), cells[0].RunTraits())
	}
	if cells[1].Traits != "confusion=high" || cells[1].RunTraits() != "confusion=high" || cells[0].Dir == cells[1].Dir {
		t.Errorf("cell 1: %s (%s)", cells[1].ID(), cells[1].Dir)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, yaml, want string }{
		{"unknown key", "out: x\ntrails: 4\ngrid: [{domains: [a], agents: [b], backbones: [c]}]", "trails"},
		{"no out", "grid: [{domains: [a], agents: [b], backbones: [c]}]", "out:"},
		{"no grid", "out: x", "grid"},
		{"missing dimension", "out: x\ngrid: [{domains: [a], backbones: [c]}]", "agents"},
		{"negative budget", "out: x\nmax_cost: -1\ngrid: [{domains: [a], agents: [b], backbones: [c]}]", "max_cost"},
		{"shared directory", "out: x\ngrid: [{domains: [a], agents: [b/c, b_c], backbones: [m]}]", "share the run directory"},
		{"bad trait", "out: x\ngrid: [{domains: [a], agents: [b], backbones: [c], traits: [patience=high]}]", `traits "patience=high"`},
		{"bad level", "out: x\ngrid: [{domains: [a], agents: [b], backbones: [c], traits: [confusion=extreme]}]", "level"},
		{"empty traits", "out: x\ngrid: [{domains: [a], agents: [b], backbones: [c], traits: ['{}']}]", `write "none"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse error = %v; want it to mention %q", err, c.want)
			}
		})
	}
}

// Every problem of a file in one pass, each at its line, in the file's
// terms, with a suggestion for a likely typo; an empty file is named as
// empty.
func TestParseProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"empty", "", []string{"empty document"}},
		{"comments only", "# nothing yet\n", []string{"empty document"}},
		{"not a mapping", "- a\n", []string{"line 1: want a mapping of settings (name, out, …), found a list"}},
		{"one pass", "out: x\ntrails: 4\nmax_cost: -1\nconcurrency: many\ngrid:\n  - domains: [a]\n    backbones: [c]\n    limit: 1.5\n  - sim\n", []string{
			`line 2: unknown key "trails" (did you mean "trials"?)`,
			"line 3: max_cost must not be negative (got -1)",
			"line 4: concurrency: `many` is not a whole number",
			"line 6: grid[0]: agents required",
			"line 8: grid[0]: limit: `1.5` is not a whole number",
			"line 9: grid[1]: want a mapping of its settings (domains, agents, …), found `sim`",
		}},
		{"twice", "out: x\nout: y\ngrid: [{domains: [a], agents: [b], backbones: [c]}]\n", []string{`line 2: key "out" given twice (first on line 1)`}},
		{"syntax", "out: x\ngrid:\n  - domains: [a\n", []string{"line 3: not valid YAML: did not find expected ',' or ']'"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if err == nil || err.Error() != strings.Join(tc.want, "\n") {
				t.Errorf("Parse error:\n%v\nwant:\n%s", err, strings.Join(tc.want, "\n"))
			}
			if !errext.IsUsage(err) {
				t.Errorf("Parse error %v is not a usage error", err)
			}
		})
	}
}

// TestDefaultName: an experiment without a name is named after its file;
// a document without a file is "experiment".
func TestDefaultName(t *testing.T) {
	t.Parallel()
	doc := "out: runs/x\ngrid:\n  - domains: [airline]\n    agents: [baseline]\n    backbones: [gold]\n"
	path := filepath.Join(t.TempDir(), "ablation-v2.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		load func() (*Config, error)
		want string
	}{
		{func() (*Config, error) { return Load(path) }, "ablation-v2"},
		{func() (*Config, error) { return Parse([]byte(doc)) }, "experiment"},
		{func() (*Config, error) { return Parse([]byte("name: mine\n" + doc)) }, "mine"},
	} {
		c, err := tc.load()
		if err != nil {
			t.Fatal(err)
		}
		if c.Name != tc.want {
			t.Errorf("name %q; want %q", c.Name, tc.want)
		}
	}
}

func TestLoadMissing(t *testing.T) {
	t.Parallel()
	_, err := Load(filepath.Join(t.TempDir(), "missing.yaml"))
	if err == nil || errext.IsUsage(err) {
		t.Errorf("Load(missing) = %v; want an error that is not a usage error", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(empty); err == nil || err.Error() != empty+": empty document" {
		t.Errorf("Load(empty) = %v; want %q", err, empty+": empty document")
	}
}

func TestShippedConfigs(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"paper.yaml", "sim.yaml", "tautrait.yaml"} {
		c, err := Load(filepath.Join("..", "..", "..", "experiments", name))
		if err != nil {
			t.Fatal(err)
		}
		cells := c.Cells()
		switch name {
		case "paper.yaml":
			// 4 domains × 5 agents × 5 backbones + 2 × 5 × GPT-5.2.
			if len(cells) != 110 || c.Trials != 4 {
				t.Errorf("paper: %d cells, %d trials; want 110, 4", len(cells), c.Trials)
			}
			for _, cell := range cells {
				if cell.Backbone == "gpt-5.2" && cell.Domain != "airline" && cell.Domain != "retail" {
					t.Errorf("paper: GPT-5.2 on %s", cell.Domain)
				}
			}
		case "sim.yaml":
			// 2 domains × baseline, ledger, irma.
			if len(cells) != 6 || c.Trials != 2 || c.Limit == 0 {
				t.Errorf("sim: %d cells, %d trials, limit %d; want 6, 2, a limit", len(cells), c.Trials, c.Limit)
			}
		case "tautrait.yaml":
			// τ-Trait's four domains × no traits and four traits × 2 agents × 2 backbones.
			if len(cells) != 80 || c.Trials != 3 {
				t.Errorf("tautrait: %d cells, %d trials; want 80, 3", len(cells), c.Trials)
			}
			traits := map[string]bool{}
			for _, cell := range cells {
				traits[cell.Traits] = true
				if cell.UserBackbone != "steer" {
					t.Errorf("tautrait: %s: user backbone %q; want τ-Trait's steering endpoint", cell.ID(), cell.UserBackbone)
				}
			}
			want := []string{"none", "impatience=low,confusion=low,skeptical=medium,incoherence=low", "impatience=low,confusion=medium,skeptical=low,incoherence=low",
				"impatience=medium,confusion=low,skeptical=low,incoherence=low", "impatience=low,confusion=low,skeptical=low,incoherence=medium"}
			for _, w := range want {
				if !traits[w] {
					t.Errorf("tautrait: no cell with traits %s (have %v)", w, traits)
				}
			}
		}
	}
}

// fakeRuns records simulations into run directories like the runner does.
type fakeRuns struct {
	mu    sync.Mutex
	calls []string
	cost  float64 // per simulation
	max   int     // simulations per call before returning (0: all)
	// stopAt: once a call has spent this much, it waits for its context to
	// end (the cost cap stops it) instead of going on.
	stopAt float64
	failOn string // cell id that fails
	ids    []string
}

func (f *fakeRuns) run(ctx context.Context, c Cell, concurrency int, track func(Meter)) error {
	var spentNano atomic.Int64 // what this call spent, read by the cost cap
	track(func() float64 { return float64(spentNano.Load()) / 1e9 })
	f.mu.Lock()
	f.calls = append(f.calls, c.ID())
	f.mu.Unlock()
	if c.ID() == f.failOn {
		return errors.New("agent not available")
	}
	if concurrency != 3 {
		return fmt.Errorf("concurrency %d; want 3", concurrency)
	}
	if ok, _ := results.Exists(c.Dir); !ok {
		if err := results.Create(c.Dir, &results.Manifest{Domain: c.Domain, Agent: c.Agent, Backbone: c.Backbone,
			UserBackbone: c.User(), Trials: c.Trials, TaskIDs: f.ids[:c.Limit]}); err != nil {
			return err
		}
	}
	done, _, err := results.ReadJSONLFile(filepath.Join(c.Dir, results.SimulationsFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	have := map[results.UnitKey]bool{}
	for _, r := range done {
		have[r.Key()] = true
	}
	w, err := results.OpenWriter(filepath.Join(c.Dir, results.SimulationsFile))
	if err != nil {
		return err
	}
	defer w.Close()
	n := 0
	for _, id := range f.ids[:c.Limit] {
		for trial := range c.Trials {
			if have[results.UnitKey{TaskID: id, Trial: trial}] {
				continue
			}
			if ctx.Err() != nil || (f.max > 0 && n == f.max) {
				return ctx.Err()
			}
			reward := 0.0
			if trial == 0 || c.Agent == "ledger" {
				reward = 1
			}
			rec := results.Record{ID: fmt.Sprint(c.ID(), id, trial), TaskID: id, Trial: trial, Domain: c.Domain, Agent: c.Agent,
				Backbone: c.Backbone, UserBackbone: c.User(), TerminationReason: evaluator.UserStop,
				RewardInfo: &evaluator.RewardInfo{Reward: reward}, AgentCost: f.cost}
			if err := w.Write(rec); err != nil {
				return err
			}
			spent := float64(spentNano.Add(int64(f.cost*1e9))) / 1e9
			n++
			if f.stopAt > 0 && spent >= f.stopAt-1e-9 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(10 * time.Second):
					return errors.New("the cost cap did not stop the cell")
				}
			}
		}
	}
	return nil
}

func plan(ids []string) Planner {
	return func(_ context.Context, domain string, sel tasks.Selection) ([]string, error) {
		if domain == "nowhere" {
			return nil, errors.New(`unknown domain "nowhere"`)
		}
		if sel.Limit > 0 && sel.Limit < len(ids) {
			return ids[:sel.Limit], nil
		}
		return ids, nil
	}
}

func load(t *testing.T, yaml string) *Config {
	t.Helper()
	c, err := Parse([]byte(fmt.Sprintf(yaml, t.TempDir())))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func states(res *Result) map[string]State {
	out := map[string]State{}
	for _, s := range res.Cells {
		out[s.ID] = s.State
	}
	return out
}

func TestExecuteResumes(t *testing.T) {
	t.Parallel()
	cfg := load(t, gridYAML)
	ids := []string{"0", "1", "2"}
	f := &fakeRuns{ids: ids, max: 3}
	opts := Options{Run: f.run, Plan: plan(ids)}
	// First pass: each cell stops after 3 of its 4 simulations.
	res, err := Execute(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	for id, st := range states(res) {
		if st != Incomplete {
			t.Errorf("%s: %s; want incomplete", id, st)
		}
	}
	if res.Records != 12 || len(f.calls) != 4 {
		t.Errorf("records %d, calls %d; want 12, 4", res.Records, len(f.calls))
	}
	// Second pass finishes them; a third runs nothing.
	f.max = 0
	if res, err = Execute(context.Background(), cfg, opts); err != nil {
		t.Fatal(err)
	}
	for id, st := range states(res) {
		if st != Ran {
			t.Errorf("%s: %s; want ran", id, st)
		}
	}
	f.calls = nil
	if res, err = Execute(context.Background(), cfg, opts); err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 0 || res.Records != 16 {
		t.Errorf("third pass ran %v, records %d; want nothing, 16", f.calls, res.Records)
	}
	for id, st := range states(res) {
		if st != Complete {
			t.Errorf("%s: %s; want complete", id, st)
		}
	}
	// The bookkeeping file says the same.
	b, err := os.ReadFile(filepath.Join(cfg.Out, StatusFile))
	if err != nil {
		t.Fatal(err)
	}
	var saved Result
	if err := json.Unmarshal(b, &saved); err != nil || len(saved.Cells) != 4 || saved.Cells[0].State != Complete {
		t.Errorf("experiment.json = %s (%v)", b, err)
	}
	if _, err := Load(filepath.Join(cfg.Out, ConfigFile)); err != nil {
		t.Errorf("saved config does not load: %v", err)
	}

	// The report covers every cell.
	rep, files, err := WriteReport(cfg, res, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 4 {
		t.Errorf("report groups = %d; want 4", len(rep.Groups))
	}
	var svgs, csvs int
	for _, p := range files {
		switch filepath.Ext(p) {
		case ".svg":
			svgs++
		case ".csv":
			csvs++
		}
	}
	if svgs == 0 || csvs != 8 {
		t.Errorf("report files: %d svg, %d csv; want some svg, 8 csv: %v", svgs, csvs, files)
	}
	txt, _ := os.ReadFile(filepath.Join(cfg.Out, ReportDir, "report.txt"))
	if !strings.Contains(string(txt), "Table 2") || !strings.Contains(string(txt), "| sim ") {
		t.Errorf("report.txt lacks table 2 rows:\n%s", txt)
	}
}

func TestExecuteSimulationBudget(t *testing.T) {
	t.Parallel()
	cfg := load(t, gridYAML)
	cfg.MaxSimulations = 9 // two cells of 4 fit, the third would make 12
	ids := []string{"0", "1", "2"}
	f := &fakeRuns{ids: ids}
	res, err := Execute(context.Background(), cfg, Options{Run: f.run, Plan: plan(ids)})
	if err != nil {
		t.Fatal(err)
	}
	st := states(res)
	if st["airline/baseline/sim"] != Ran || st["airline/ledger/sim"] != Ran || st["retail/baseline/sim"] != OverBudget || st["retail/ledger/sim"] != OverBudget {
		t.Errorf("states = %v", st)
	}
	if res.Records != 8 || res.Stopped == "" {
		t.Errorf("records %d, stopped %q; want 8 and a reason", res.Records, res.Stopped)
	}
}

func TestExecuteCostBudget(t *testing.T) {
	t.Parallel()
	cfg := load(t, gridYAML)
	cfg.MaxCost = 0.25 // each simulation costs 0.1
	ids := []string{"0", "1", "2"}
	f := &fakeRuns{ids: ids, cost: 0.1, stopAt: cfg.MaxCost}
	res, err := Execute(context.Background(), cfg, Options{Run: f.run, Plan: plan(ids), Poll: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Stopped, "max_cost") {
		t.Errorf("stopped = %q; want max_cost", res.Stopped)
	}
	// The stop message's cost is what the directories hold after the
	// running cell drained, not what was spent when the cap was seen.
	if want := fmt.Sprintf("$%.4f spent", 0.1*float64(res.Records)); !strings.Contains(res.Stopped, want) || math.Abs(res.Cost-0.1*float64(res.Records)) > 1e-9 {
		t.Errorf("stopped = %q, cost $%v over %d records; want %q", res.Stopped, res.Cost, res.Records, want)
	}
	if res.Records >= 16 || res.Records < 3 {
		t.Errorf("records = %d; want the run cut short after the cap", res.Records)
	}
	st := states(res)
	if st["airline/baseline/sim"] != Stopped && st["airline/baseline/sim"] != Ran {
		t.Errorf("first cell: %s", st["airline/baseline/sim"])
	}
	if st["retail/ledger/sim"] != OverBudget {
		t.Errorf("last cell: %s; want over_budget", st["retail/ledger/sim"])
	}
	// With the cap already spent, nothing starts.
	f.calls = nil
	_, err = Execute(context.Background(), cfg, Options{Run: f.run, Plan: plan(ids), Poll: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 0 {
		t.Errorf("ran %v with the budget spent", f.calls)
	}
	if !strings.Contains(res.Stopped, "max_cost") {
		t.Errorf("stopped = %q with the budget spent; want max_cost", res.Stopped)
	}
}

func TestExecuteFailures(t *testing.T) {
	t.Parallel()
	cfg := load(t, gridYAML)
	cfg.Grid = append(cfg.Grid, Block{Domains: []string{"nowhere"}, Agents: []string{"baseline"}, Backbones: []string{"sim"}})
	ids := []string{"0", "1", "2"}
	f := &fakeRuns{ids: ids, failOn: "retail/ledger/sim"}
	res, err := Execute(context.Background(), cfg, Options{Run: f.run, Plan: plan(ids)})
	if err == nil || !strings.Contains(err.Error(), "agent not available") || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("err = %v; want the failing cell and the unplannable one", err)
	}
	st := states(res)
	if st["retail/ledger/sim"] != Failed || st["nowhere/baseline/sim"] != Failed || st["retail/baseline/sim"] != Ran {
		t.Errorf("states = %v", st)
	}
}

func TestExecuteDryRun(t *testing.T) {
	t.Parallel()
	cfg := load(t, gridYAML)
	ids := []string{"0", "1", "2"}
	f := &fakeRuns{ids: ids}
	res, err := Execute(context.Background(), cfg, Options{Run: f.run, Plan: plan(ids), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 0 || sumExpected(res.Cells) != 16 {
		t.Errorf("dry run: calls %v, expected %d; want none, 16", f.calls, sumExpected(res.Cells))
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(fmt.Sprintf(gridYAML, "out")))
	f.Add([]byte("out: x\ngrid: [{domains: [a], agents: [b], backbones: [c], user_backbones: [d], split: s, limit: 3}]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if err != nil {
			return
		}
		for _, cell := range c.Cells() {
			if cell.Dir == "" || cell.Trials < 1 {
				t.Errorf("bad cell %+v", cell)
			}
		}
	})
}

// TestCountRejudgedOnce: a unit whose judge failed and that a resume judged
// again (the judged record keeps the pending one's id and carries its cost)
// is one simulation of the budget, its conversation paid once; an attempt a
// re-run replaced is a simulation of its own, paid for.
func TestCountRejudgedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := results.OpenWriter(filepath.Join(dir, results.SimulationsFile))
	if err != nil {
		t.Fatal(err)
	}
	pending := results.Record{ID: "a", TaskID: "0", TerminationReason: evaluator.InfrastructureError, JudgePending: evaluator.UserStop, AgentCost: 1, JudgeCost: 0.25}
	judged := pending
	judged.TerminationReason, judged.JudgePending, judged.JudgeCost = evaluator.UserStop, "", 0.5
	judged.RewardInfo = &evaluator.RewardInfo{Reward: 1}
	crashed := results.Record{ID: "b", TaskID: "1", TerminationReason: evaluator.InfrastructureError, AgentCost: 2}
	rerun := results.Record{ID: "c", TaskID: "1", TerminationReason: evaluator.UserStop, AgentCost: 4, RewardInfo: &evaluator.RewardInfo{}}
	for _, r := range []results.Record{pending, crashed, judged, rerun} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st := Status{Cell: Cell{Dir: dir, Trials: 1}}
	if err := count(&st, []string{"0", "1"}); err != nil {
		t.Fatal(err)
	}
	if st.Records != 3 || st.Scored != 2 || st.Cost != 1.5+2+4 {
		t.Errorf("records %d scored %d cost %v; want 3 simulations (the re-judged one once), 2 scored, $7.5", st.Records, st.Scored, st.Cost)
	}
}
