package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/runplan"
	"github.com/ledgerbench/ledgerbench/internal/output/experiment"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
)

type experimentOptions struct {
	Streams        *Streams
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
	// EmbeddingsCache is the cells' embeddings cache folder ("": the
	// data directory's).
	EmbeddingsCache string
	// Set names the flags given on the command line: they override the
	// experiment file.
	Set map[string]bool
	// run replaces the run function (tests).
	run experiment.RunFunc
}

func newCmdExperiment(s *Streams, g *globalOptions, runF func(context.Context, *experimentOptions) error) *cobra.Command {
	opts := &experimentOptions{Streams: s}
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
				return errext.Usage(errors.New("experiment needs one FILE.yaml"))
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
			opts.Set = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { opts.Set[f.Name] = true })
			if _, err := report.ParseFormat(opts.Format); err != nil {
				return errext.Usage(err)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runExperiment(cmd.Context(), opts)
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
	f.StringVar(&opts.EmbeddingsCache, "embeddings-cache", "", embeddingsCacheUsage)
	return cmd
}

func runExperiment(ctx context.Context, opts *experimentOptions) error {
	s := opts.Streams
	cfg, err := experiment.Load(opts.File) // a usage error when the file is wrong, not when it is missing
	if err != nil {
		return err
	}
	changed := func(name string) bool { return opts.Set[name] }
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
		return errext.Usage(err)
	}
	// Cells run in parallel and all write progress to the diagnostic
	// stream, as does the experiment's own log: serialise the writes.
	locked := *s
	locked.ErrOut = &lockedWriter{w: s.ErrOut}
	s = &locked
	var planned func(*experiment.Result)
	if cfg.MaxCost > 0 && !opts.DryRun { // the dry run says it in checkCells
		planned = func(res *experiment.Result) {
			if file, bbs, err := loadExperimentBackbones(cfg); err == nil {
				writeUnbounded(s, cfg, res, file, bbs)
			}
		}
	}
	doms := experiment.NewDomains(opts.DataDir)
	run := opts.run
	if run == nil {
		run = cellRunner(s, opts, cfg)
	}
	res, runErr := experiment.Execute(ctx, cfg, experiment.Options{Run: run, Plan: doms.Plan, Log: s.ErrOut, DryRun: opts.DryRun, Planned: planned})
	if res == nil {
		return runErr
	}
	if opts.DryRun { // experimentcheck.go: what planning cannot see; no report, nothing written
		// runErr repeats the cells Execute has listed as unplanned;
		// checkCells' error counts them.
		return checkCells(ctx, s, cfg, res, opts.DataDir, doms.NeedsJudge)
	}
	if res.Stopped != "" {
		fmt.Fprintf(s.ErrOut, "budget: %s; rerun the same command to continue (with a higher cap)\n", res.Stopped)
	}
	if !opts.NoReport {
		rep, files, err := experiment.WriteReport(cfg, res, doms.Catalog(), func(src []*report.Source) { report.AddShadowVerdicts(src, doms.List()) })
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

// cellRunner runs one cell as `ledgerbench run --out DIR …` would, through
// the same planner, continuing the run directory when it exists. The
// cell's settings are authoritative: a run directory whose manifest differs
// is refused (more trials extend it). Without backbones_file the default
// file may be absent (offline backbones), and a continued cell keeps the
// file its manifest names. Every cell's clients share one llm.Shared: a
// backbone's rpm and tpm hold for the whole experiment, whatever runs in
// parallel (cells, user simulators, judges, rerankers).
func cellRunner(s *Streams, opts *experimentOptions, cfg *experiment.Config) experiment.RunFunc {
	shared := llm.NewShared()
	return func(ctx context.Context, c experiment.Cell, concurrency int, track func(experiment.Meter)) error {
		cellStreams := *s
		cellStreams.Out = s.ErrOut // the cell's summary is progress; stdout carries the report
		if cfg.ParallelCells > 1 { // term.go: labelled lines, no bar redrawn over another cell's
			cellStreams.ErrOut = &prefixWriter{w: s.ErrOut, prefix: "[" + c.ID() + "] "}
			cellStreams.Out, cellStreams.ErrTTY = cellStreams.ErrOut, false
		}
		ro := &runOptions{Streams: &cellStreams, Options: runplan.Options{DataDir: opts.DataDir, EmbeddingsCache: opts.EmbeddingsCache}}
		po := ro.planOptions()
		po.Domain, po.Agent, po.Backbone, po.UserBackbone, po.Traits = c.Domain, c.Agent, c.Backbone, c.UserBackbone, c.RunTraits()
		po.Split, po.TaskIDs, po.Limit, po.Trials, po.Seed = c.Split, c.TaskIDs, c.Limit, c.Trials, c.Seed
		po.Concurrency, po.MaxSteps, po.MaxErrors, po.Out = concurrency, c.MaxSteps, c.MaxErrors, c.Dir
		po.RetrievalConfig, po.RetrievalConfigKwargs = c.RetrievalConfig, string(c.RetrievalConfigKwargs)
		po.BackbonesFile, po.BackbonesOptional = cfg.BackbonesFile, cfg.BackbonesFile == ""
		if po.BackbonesFile == "" {
			po.BackbonesFile = defaultBackbonesFile
		}
		po.Inherit = func(setting string) bool { return setting == "backbones" && cfg.BackbonesFile == "" }
		switch c.Judge {
		case "none":
			po.NoJudge = true
		default:
			po.JudgeBackbone = c.Judge
		}
		errOut := &lockedWriter{w: cellStreams.ErrOut}
		po.LLM.Logf = stderrLogf(errOut, cellStreams.ErrTTY) // term.go
		po.LLM.Shared = shared
		p, err := runplan.New(ctx, po)
		if err != nil {
			return err
		}
		defer p.Close()
		ui := progressOptions{Streams: &cellStreams, Quiet: opts.Quiet}
		_, err = executePlan(ctx, ui, errOut, p, nil, func(prog *runner.Progress) {
			track(func() float64 { return prog.Snapshot().Cost })
		})
		return err
	}
}
