package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/sync/errgroup"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/atomicfile"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// RunFunc runs or continues one cell into cell.Dir: it creates the run
// directory when missing, runs every (task, trial) without a record (or with
// an infrastructure error), and appends records to Dir/simulations.jsonl as
// they finish. concurrency is the number of simulations at once. Before its
// first simulation starts it hands track the meter of what the cell spends
// (the experiment's cost cap reads it in memory). When ctx is canceled it
// starts no new simulation and returns.
type RunFunc func(ctx context.Context, cell Cell, concurrency int, track func(Meter)) error

// Meter returns what a running cell has spent so far in this invocation
// (USD, agent + user + judge, infrastructure errors included: they were
// paid for). It is called concurrently with the run.
type Meter func() float64

// Planner returns the task ids a cell covers (its split, limit and ids).
type Planner func(ctx context.Context, domain string, sel tasks.Selection) ([]string, error)

// ErrBudget is the cause of a stop by a budget cap.
var ErrBudget = errors.New("experiment budget reached")

// Options are what Execute needs besides the config.
type Options struct {
	Run  RunFunc
	Plan Planner
	// Log receives one line per cell decision and outcome (nil: none).
	Log io.Writer
	// Poll is how often the cost cap is checked against the running cells'
	// meters (default 250ms).
	Poll time.Duration
	// DryRun plans and reports without running anything.
	DryRun bool
	// Planned, if set, is called once every cell is planned, before any
	// runs (not in a dry run), with the plan (each cell's state and
	// expected simulations).
	Planned func(*Result)
}

// State is what became of a cell.
type State string

const (
	Complete   State = "complete"    // every unit has a scored record
	Ran        State = "ran"         // run in this invocation
	Incomplete State = "incomplete"  // run, but some units still lack a scored record
	Pending    State = "pending"     // not started (dry run)
	OverBudget State = "over_budget" // not started: a budget cap
	Stopped    State = "stopped"     // stopped by the cost cap or an interrupt
	Failed     State = "failed"      // the run function returned an error
)

// Status is a cell's bookkeeping.
type Status struct {
	Cell     Cell   `json:"cell"`
	ID       string `json:"id"`
	State    State  `json:"state"`
	Expected int    `json:"expected"`
	// Scored counts units with a non-infrastructure record; Records every
	// record in the run directory (infrastructure errors included).
	Scored  int     `json:"scored"`
	Records int     `json:"records"`
	Cost    float64 `json:"cost"`
	Error   string  `json:"error,omitempty"`
}

// Result is the experiment's bookkeeping after Execute.
type Result struct {
	Name     string   `json:"name"`
	Cells    []Status `json:"cells"`
	Records  int      `json:"records"`
	Cost     float64  `json:"cost"`
	Stopped  string   `json:"stopped,omitempty"`
	Finished string   `json:"finished"`
}

// Dirs lists the run directories that exist.
func (r *Result) Dirs() []string {
	var out []string
	for _, s := range r.Cells {
		if ok, _ := results.Exists(s.Cell.Dir); ok {
			out = append(out, s.Cell.Dir)
		}
	}
	return out
}

// StatusFile is the experiment's bookkeeping file in Out.
const StatusFile = "experiment.json"

// ConfigFile is the effective config saved in Out.
const ConfigFile = "experiment.yaml"

// Execute runs what is missing of the grid: cells are planned (their units
// counted against their run directories), complete cells skipped, the
// simulation cap checked before each cell, the cost cap watched while cells
// run. It writes Out/experiment.yaml (the effective config) and
// Out/experiment.json (each cell's state) and returns the bookkeeping. Its
// error reports what stopped the experiment other than a budget (an
// interrupt, a failing cell); the result is valid either way.
func Execute(ctx context.Context, cfg *Config, opts Options) (*Result, error) {
	if opts.Poll <= 0 {
		opts.Poll = 250 * time.Millisecond
	}
	var logMu sync.Mutex // cells run in parallel and share the log
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			logMu.Lock()
			fmt.Fprintf(opts.Log, format+"\n", args...)
			logMu.Unlock()
		}
	}
	if !opts.DryRun { // a dry run writes nothing
		if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
			return nil, fmt.Errorf("experiment directory: %w", err)
		}
		if err := saveConfig(cfg); err != nil {
			return nil, err
		}
	}
	cells := cfg.Cells()
	res := &Result{Name: cfg.Name, Cells: make([]Status, len(cells))}
	for i, c := range cells {
		st := Status{Cell: c, ID: c.ID()}
		ids, err := opts.Plan(ctx, c.Domain, tasks.Selection{Split: c.Split, TaskIDs: c.TaskIDs, Limit: c.Limit})
		if err != nil {
			// A cell that cannot be planned (a domain not ported, a bad
			// split) fails alone; the others go on.
			st.State, st.Error = Failed, err.Error()
			res.Cells[i] = st
			continue
		}
		st.Expected = len(ids) * c.Trials
		if err := count(&st, ids); err != nil {
			return nil, err
		}
		st.State = Pending
		if st.Scored >= st.Expected {
			st.State = Complete
		}
		res.Cells[i] = st
	}
	total := func() (n int, cost float64) {
		for _, s := range res.Cells {
			n += s.Records
			cost += s.Cost
		}
		return n, cost
	}
	n, cost := total()
	logf("experiment %s: %d cells, %d simulations planned, %d recorded ($%.4f)", cfg.Name, len(cells), sumExpected(res.Cells), n, cost)
	if opts.DryRun {
		for _, st := range res.Cells {
			switch st.State {
			case Failed:
				logf("%-50s cannot run: %s", st.ID, st.Error)
			default:
				logf("%-50s %s: %d/%d scored", st.ID, st.State, st.Scored, st.Expected)
			}
		}
		res.Records, res.Cost = total()
		return res, failures(res) // a dry run writes nothing
	}
	if opts.Planned != nil {
		opts.Planned(res)
	}

	bctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var mu sync.Mutex // guards res.Cells and the simulation budget
	reserved := n
	var g errgroup.Group
	g.SetLimit(cfg.ParallelCells)
	m := &meters{before: cost}
	if cfg.MaxCost > 0 {
		if cost >= cfg.MaxCost {
			cancel(fmt.Errorf("%w: $%.4f spent of max_cost $%.4f", ErrBudget, cost, cfg.MaxCost))
		} else {
			wctx, wcancel := context.WithCancel(bctx)
			defer wcancel()
			var stop sync.Once
			go m.watch(wctx, opts.Poll, func(spent float64) {
				if spent >= cfg.MaxCost {
					stop.Do(func() {
						logf("max_cost $%.4f reached ($%.4f spent): stopping", cfg.MaxCost, spent)
						cancel(fmt.Errorf("%w: $%.4f spent of max_cost $%.4f", ErrBudget, spent, cfg.MaxCost))
					})
				}
			})
		}
	}
	for i := range res.Cells {
		mu.Lock()
		st := res.Cells[i]
		mu.Unlock()
		if st.State == Complete {
			logf("%-50s complete (%d/%d)", st.ID, st.Scored, st.Expected)
			continue
		}
		if st.State == Failed {
			logf("%-50s failed: %s", st.ID, st.Error)
			continue
		}
		if bctx.Err() != nil {
			mu.Lock()
			res.Cells[i].State = Stopped
			if errors.Is(context.Cause(bctx), ErrBudget) {
				res.Cells[i].State = OverBudget
			}
			mu.Unlock()
			continue
		}
		need := st.Expected - st.Scored
		mu.Lock()
		if cfg.MaxSimulations > 0 && reserved+need > cfg.MaxSimulations {
			res.Cells[i].State = OverBudget
			mu.Unlock()
			logf("%-50s not started: %d more simulations would pass max_simulations %d (%d recorded or reserved)", st.ID, need, cfg.MaxSimulations, reserved)
			continue
		}
		reserved += need
		mu.Unlock()
		g.Go(func() error {
			logf("%-50s running %d of %d simulations", st.ID, need, st.Expected)
			err := opts.Run(bctx, st.Cell, cfg.Concurrency, m.add)
			ids, perr := opts.Plan(ctx, st.Cell.Domain, tasks.Selection{Split: st.Cell.Split, TaskIDs: st.Cell.TaskIDs, Limit: st.Cell.Limit})
			mu.Lock()
			defer mu.Unlock()
			s := &res.Cells[i]
			if perr == nil {
				if cerr := count(s, ids); cerr != nil && err == nil {
					err = cerr
				}
			}
			switch {
			case err != nil && bctx.Err() != nil:
				s.State = Stopped
				s.Error = context.Cause(bctx).Error()
				logf("%-50s stopped: %d/%d scored", s.ID, s.Scored, s.Expected)
				return nil
			case err != nil:
				s.State = Failed
				s.Error = err.Error()
				logf("%-50s failed: %v", s.ID, err)
				return nil
			case s.Scored >= s.Expected:
				s.State = Ran
			default:
				s.State = Incomplete
			}
			logf("%-50s %s: %d/%d scored, $%.4f", s.ID, s.State, s.Scored, s.Expected, s.Cost)
			return nil
		})
	}
	err := errors.Join(g.Wait(), failures(res))
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	res.Records, res.Cost = total()
	if cause := context.Cause(bctx); errors.Is(cause, ErrBudget) {
		// What the run directories hold now: simulations that finished
		// after the stop (running ones drain) are paid for too.
		res.Stopped = fmt.Sprintf("max_cost $%.4f reached: $%.4f spent, simulations that finished after the stop included", cfg.MaxCost, res.Cost)
	}
	return finish(cfg, res, total, err)
}

// meters sum what running cells spend, in memory, over what the run
// directories held before.
type meters struct {
	before float64
	mu     sync.Mutex
	all    []Meter
}

func (m *meters) add(f Meter) {
	m.mu.Lock()
	m.all = append(m.all, f)
	m.mu.Unlock()
}

func (m *meters) spent() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	sum := m.before
	for _, f := range m.all {
		sum += f()
	}
	return sum
}

// watch reports the spending every tick until ctx ends.
func (m *meters) watch(ctx context.Context, every time.Duration, report func(spent float64)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			report(m.spent())
		}
	}
}

// failures joins the errors of failed cells.
func failures(res *Result) error {
	var errs []error
	for _, s := range res.Cells {
		if s.State == Failed {
			errs = append(errs, fmt.Errorf("cell %s: %s", s.ID, s.Error))
		}
	}
	return errors.Join(errs...)
}

func sumExpected(sts []Status) int {
	n := 0
	for _, s := range sts {
		n += s.Expected
	}
	return n
}

func finish(cfg *Config, res *Result, total func() (int, float64), err error) (*Result, error) {
	res.Records, res.Cost = total()
	for _, s := range res.Cells {
		if s.State == OverBudget && res.Stopped == "" {
			res.Stopped = "max_simulations reached"
		}
	}
	res.Finished = time.Now().UTC().Format(time.RFC3339)
	b, merr := json.MarshalIndent(res, "", "  ")
	if merr != nil {
		return res, errors.Join(err, merr)
	}
	if werr := atomicfile.Write(filepath.Join(cfg.Out, StatusFile), append(b, '\n')); werr != nil {
		return res, errors.Join(err, werr)
	}
	return res, err
}

// count fills a status from the cell's run directory: units of ids with a
// scored record, all records, their cost.
func count(st *Status, ids []string) error {
	st.Scored, st.Records, st.Cost = 0, 0, 0
	recs, _, err := results.ReadJSONLFile(filepath.Join(st.Cell.Dir, results.SimulationsFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("cell %s: %w", st.ID, err)
	}
	want := map[results.UnitKey]bool{}
	for _, id := range ids {
		for t := 0; t < st.Cell.Trials; t++ {
			want[results.UnitKey{TaskID: id, Trial: t}] = true
		}
	}
	// Each simulation once: the attempts a re-run replaced were paid for, a
	// re-judged record carries its pending one's cost.
	latest, paid := results.Partition(recs)
	for _, r := range append(paid, latest...) {
		st.Records++
		st.Cost += recordCost(&r)
	}
	for _, r := range latest {
		if !r.Infrastructure() && want[r.Key()] {
			st.Scored++
		}
	}
	return nil
}

func recordCost(r *results.Record) float64 {
	c := r.AgentCost + r.UserCost + r.JudgeCost
	if r.JudgeCost == 0 && r.RewardInfo != nil {
		c += r.RewardInfo.JudgeCost
	}
	return c
}

func saveConfig(cfg *Config) error {
	b, err := yaml.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("encode experiment config: %w", err)
	}
	return atomicfile.Write(filepath.Join(cfg.Out, ConfigFile), b)
}
