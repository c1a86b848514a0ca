package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

type exportOptions struct {
	DataDir string
	// Format is the harness format written: tau2.
	Format string
	Run    string
	Out    string
}

func newCmdExport(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *exportOptions) error) *cobra.Command {
	if runF == nil {
		runF = runExport
	}
	opts := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "export --format tau2 RUN OUT.json",
		Short: "Write a run in another harness's results format",
		Long: `Write the run directory RUN as τ²-bench's results JSON (the format of tau2 run's
results.json: timestamp, info, tasks, simulations), readable by τ²-bench's tools and
by ledgerbench's own importers. The domain's policy and tasks come from the data
directory; without it they are left empty. Records are written task by task, trial
by trial, the latest record of each unit.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Format != "tau2" {
				return errext.Usagef("--format %q: the only format is tau2", opts.Format)
			}
			opts.Run, opts.Out = args[0], args[1]
			if dir, err := g.dataDir(s); err == nil {
				opts.DataDir = dir // without one the file has no policy or tasks
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "tau2", "output format: tau2")
	return cmd
}

func runExport(_ context.Context, s *Streams, opts *exportOptions) error {
	run, err := results.LoadRun(opts.Run)
	if err != nil {
		return err
	}
	env := results.Tau2Env{}
	if opts.DataDir != "" {
		load := manifestLoader(run.Manifest)
		if run.Manifest.Solo {
			load = domains.LoadSolo
		}
		if dom, err := load(run.Manifest.Domain, opts.DataDir); err == nil {
			env.Policy = dom.Policy()
			env.Tasks = tasksByID(dom.Tasks(), run.Manifest.Split, run.Manifest.TaskIDs)
		} else {
			fmt.Fprintf(s.ErrOut, "export: no policy or tasks in the file: %v\n", err)
		}
	}
	recs := sortedRecords(run.Records, run.Manifest.TaskIDs)
	if err := results.WriteTau2(opts.Out, run.Manifest, recs, env); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "wrote %d simulations of %d tasks to %s\n", len(recs), len(env.Tasks), opts.Out)
	return nil
}

// tasksByID returns the tasks of a split with the given ids, in that order.
func tasksByID(set *tasks.Set, split string, ids []string) []tasks.Task {
	var out []tasks.Task
	for _, id := range ids {
		if t, err := replayTask(set, split, id); err == nil {
			out = append(out, *t)
		}
	}
	return out
}

// sortedRecords orders records by the run's task order, then trial.
func sortedRecords(recs []results.Record, ids []string) []results.Record {
	pos := make(map[string]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	out := slices.Clone(recs)
	slices.SortStableFunc(out, func(a, b results.Record) int {
		pa, oka := pos[a.TaskID]
		pb, okb := pos[b.TaskID]
		switch {
		case oka && okb && pa != pb:
			return pa - pb
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		case !oka && a.TaskID != b.TaskID:
			return strings.Compare(a.TaskID, b.TaskID)
		}
		return a.Trial - b.Trial
	})
	return out
}
