package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/internal/domains"
	"github.com/ledgerbench/ledgerbench/internal/experiment"
	"github.com/ledgerbench/ledgerbench/internal/report"
	"github.com/ledgerbench/ledgerbench/metrics"
	"github.com/ledgerbench/ledgerbench/tasks"
)

type experimentOptions struct {
	File           string
	DataDir        string
	Out            string
	Concurrency    int
	ParallelCells  int
	MaxCost        float64
	MaxSimulations int
	DryRun         bool
	NoReport       bool
	Quiet          bool
	Format         string
	changed        func(string) bool
	// run replaces the run function (tests).
	run experiment.RunFunc
}

func newCmdExperiment(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *experimentOptions) error) *cobra.Command {
	opts := &experimentOptions{}
	cmd := &cobra.Command{
		Use:   "experiment FILE.yaml",
		Short: "Run a grid of runs (domains × agents × backbones) and report on it",
		Long: `Expand the experiment file's grid into cells (domain, agent, backbone, user
backbone; each with its trials and task selection), run what is missing of each
cell into OUT/runs/<domain>_<agent>_<backbone>[_user-U] — a cell already complete
is skipped, a partial one continued, so rerunning the command resumes the
experiment — then write the report over every cell into OUT/report (report.txt,
report.md, report.json, tables/<id>.csv, figures/*.svg) and print it.

Budgets count what the experiment's run directories already hold: a cell that
would take the number of simulations over max_simulations is not started, and
running cells stop (keeping what finished) when max_cost is reached. OUT/
experiment.json records every cell's state; OUT/experiment.yaml the effective
config.`,
		Example: `  ledgerbench experiment experiments/sim.yaml
  ledgerbench experiment experiments/paper.yaml --dry-run
  ledgerbench experiment experiments/paper.yaml --max-cost 50`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("experiment needs one FILE.yaml")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			opts.DataDir = dir
			opts.changed = cmd.Flags().Changed
			if _, err := report.ParseFormat(opts.Format); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(cmd.Context(), s, opts)
			}
			return runExperiment(cmd.Context(), s, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Out, "out", "", "experiment directory (overrides out: of the file)")
	f.IntVar(&opts.Concurrency, "concurrency", 0, "simulations at once per cell (overrides the file)")
	f.IntVar(&opts.ParallelCells, "parallel-cells", 0, "cells at once (overrides the file)")
	f.Float64Var(&opts.MaxCost, "max-cost", 0, "USD cap over the whole experiment (overrides the file; 0 in the file = none)")
	f.IntVar(&opts.MaxSimulations, "max-simulations", 0, "simulation cap over the whole experiment (overrides the file)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "plan and report what exists without running anything")
	f.BoolVar(&opts.NoReport, "no-report", false, "do not write or print the report")
	f.BoolVar(&opts.Quiet, "quiet", false, "no per-simulation progress from the cells")
	f.StringVar(&opts.Format, "format", "text", "format of the report printed: text, markdown, csv or json")
	return cmd
}

func runExperiment(ctx context.Context, s *Streams, opts *experimentOptions) error {
	cfg, err := experiment.Load(opts.File)
	if err != nil {
		return usageError{err}
	}
	changed := opts.changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	if opts.Out != "" {
		cfg.Out = opts.Out
	}
	if changed("concurrency") {
		cfg.Concurrency = opts.Concurrency
	}
	if changed("parallel-cells") {
		cfg.ParallelCells = opts.ParallelCells
	}
	if changed("max-cost") {
		cfg.MaxCost = opts.MaxCost
	}
	if changed("max-simulations") {
		cfg.MaxSimulations = opts.MaxSimulations
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	// Cells run in parallel and all write progress to the diagnostic
	// stream, as does the experiment's own log: serialise the writes.
	locked := *s
	locked.ErrOut = &lockedWriter{w: s.ErrOut}
	s = &locked
	doms := &domainCache{dir: opts.DataDir, loaded: map[string]envs.Domain{}}
	run := opts.run
	if run == nil {
		run = cellRunner(s, opts, cfg)
	}
	res, runErr := experiment.Execute(ctx, cfg, experiment.Options{Run: run, Plan: doms.plan, Log: s.ErrOut, DryRun: opts.DryRun})
	if res == nil {
		return runErr
	}
	if opts.DryRun { // experimentcheck.go: what planning cannot see; no report, nothing written
		return errors.Join(runErr, checkCells(s, cfg))
	}
	if res.Stopped != "" {
		fmt.Fprintf(s.ErrOut, "budget: %s; rerun the same command to continue (with a higher cap)\n", res.Stopped)
	}
	if !opts.NoReport {
		rep, files, err := experiment.WriteReport(cfg, res, doms.catalog(), func(src []*report.Source) { report.AddShadowVerdicts(src, doms.list()) })
		if err != nil {
			return errors.Join(runErr, err)
		}
		format, _ := report.ParseFormat(opts.Format)
		if err := rep.Write(s.Out, format); err != nil {
			return errors.Join(runErr, err)
		}
		fmt.Fprintf(s.ErrOut, "report: %d files in %s\n", len(files), cfg.Out+"/"+experiment.ReportDir)
	}
	if runErr == nil && res.Stopped != "" {
		return budgetError{res.Stopped}
	}
	return runErr
}

// cellRunner runs one cell as `ledgerbench run --out DIR …` would, continuing
// the run directory when it exists.
//
// RUNNER CALL SITE: this is the single place the experiment starts runs. It
// goes through runRun (run.go), the configured-run path of `ledgerbench run`
// (planning, manifest, resume checks, runner.Run, summary). Should the runner
// package export a function that runs a configured run, call it here.
func cellRunner(s *Streams, opts *experimentOptions, cfg *experiment.Config) experiment.RunFunc {
	return func(ctx context.Context, c experiment.Cell, concurrency int) error {
		cellStreams := *s
		cellStreams.Out = s.ErrOut // the cell's summary is progress; stdout carries the report
		if cfg.ParallelCells > 1 { // term.go: labelled lines, no bar redrawn over another cell's
			cellStreams.ErrOut = &prefixWriter{w: s.ErrOut, prefix: "[" + c.ID() + "] "}
			cellStreams.Out, cellStreams.ErrTTY = cellStreams.ErrOut, false
		}
		ro := &runOptions{
			Streams: &cellStreams, DataDir: opts.DataDir,
			Domain: c.Domain, Agent: c.Agent, Backbone: c.Backbone, UserBackbone: c.UserBackbone,
			BackbonesFile: defaultBackbonesFile, Split: c.Split, TaskIDs: c.TaskIDs, Limit: c.Limit,
			Trials: c.Trials, Concurrency: concurrency, Seed: c.Seed, MaxSteps: c.MaxSteps, MaxErrors: c.MaxErrors,
			Out: c.Dir, Quiet: opts.Quiet,
			// The cell's settings are authoritative: a run directory whose
			// manifest differs is refused (more trials extend it). The
			// default backbones file may be absent (offline backbones).
			changed: func(name string) bool { return name != "backbones" || cfg.BackbonesFile != "" },
		}
		if cfg.BackbonesFile != "" {
			ro.BackbonesFile = cfg.BackbonesFile
		}
		switch c.Judge {
		case "none":
			ro.NoJudge = true
		default:
			ro.JudgeBackbone = c.Judge
		}
		return runRun(ctx, ro)
	}
}

// domainCache loads each domain once.
type domainCache struct {
	dir    string
	mu     sync.Mutex
	loaded map[string]envs.Domain
}

// list is the domains loaded so far.
func (d *domainCache) list() []envs.Domain {
	var out []envs.Domain
	for _, dom := range d.loaded {
		out = append(out, dom)
	}
	return out
}

func (d *domainCache) get(name string) (envs.Domain, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if dom, ok := d.loaded[name]; ok {
		return dom, nil
	}
	dom, err := domains.Load(name, d.dir)
	if err != nil {
		return nil, err
	}
	d.loaded[name] = dom
	return dom, nil
}

func (d *domainCache) plan(_ context.Context, domain string, sel tasks.Selection) ([]string, error) {
	dom, err := d.get(domain)
	if err != nil {
		return nil, err
	}
	ts, err := dom.Tasks().Select(sel)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ts))
	for i := range ts {
		ids[i] = ts[i].ID
	}
	return ids, nil
}

func (d *domainCache) catalog() metrics.Catalog {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.loaded) == 0 {
		return nil
	}
	var doms []envs.Domain
	for _, dom := range d.loaded {
		doms = append(doms, dom)
	}
	return metrics.NewDomainCatalog(doms...)
}
