package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/banking"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/score/rescore"
)

type rescoreOptions struct {
	Streams *Streams
	Files   []string
	// Criteria says where the evaluation criteria come from: "file"
	// (the tasks embedded in the results file), "domain" (the data
	// directory's tasks) or "record" (rebuilt from each recorded
	// reward_info).
	Criteria string
	Verbose  bool
	// JSON writes one object per simulation instead of the table.
	JSON bool
	// Relabel scores a simulation whose recorded evaluation checked another
	// task's gold actions against that task (a repair for mislabelled files;
	// never the default, reported per simulation).
	Relabel   bool
	Retrieval retrievalOptions
	// AllowModifiedData lets data files that differ from their pins through.
	AllowModifiedData bool
	DataDir           string
}

func newCmdRescore(s *Streams, g *globalOptions, runF func(context.Context, *rescoreOptions) error) *cobra.Command {
	opts := &rescoreOptions{Streams: s}
	cmd := &cobra.Command{
		Use:   "rescore FILE…",
		Short: "Re-evaluate recorded τ²-bench runs with ledgerbench's environments",
		Long: `Re-score every simulation of τ²-bench results files with ledgerbench's domains and
evaluator, as upstream's "tau2 evaluate-trajs" does: each simulation against the task its
task_id names, with lenient replay (a recorded tool output that our environment reproduces
differently becomes a note, not an error). Reports agreement with the recorded rewards:
per file the simulations, how many agree, and for each disagreement the task, the recorded
and recomputed rewards and the reward components that differ. --json writes one object per
simulation instead.

NL assertions are not judged: where a task's basis has NL_ASSERTION, the recorded
NL verdict stands in for it (counted as "NL from record"); a record without one (a run
with --no-judge) leaves it out of the reward (counted as "NL not judged"). Tasks are those embedded
in the file (the versions the run was scored with); --criteria domain uses the data
directory's tasks instead (upstream's --fresh-tasks).

--relabel is a repair for mislabelled files: a simulation whose recorded evaluation
checked the gold actions of another task than its task_id names is scored against that
task, with a note. It never applies by default.

τ-bench v1 / τ-Trait result lists (a JSON array of {task_id, reward, info, traj,
trial}) are scored with τ-bench v1's reward, one --json object per entry. The policy
heading names the environment (airline, retail, telehealth); the recorded tasks pick
the domain and split (tautrait-airline or taubench-airline, …; their task ids index
it), the recorded gold-replay hashes break a tie. A file recorded on other task texts,
other data or modified reward code (rewards other than 0 and 1) gets a note saying so;
a file whose tasks match no ported domain is an error naming the entry.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains([]string{"file", "domain", "record"}, opts.Criteria) {
				return errext.Usagef("--criteria %q: want file, domain or record", opts.Criteria)
			}
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			if err := opts.Retrieval.check(banking.Name); err != nil {
				return err
			}
			opts.DataDir = dir
			opts.Files = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRescore(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Criteria, "criteria", "file", "evaluation criteria from: file (tasks embedded in the file), domain (the data directory's tasks), record (rebuilt from each recorded reward_info)")
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "print the replay notes of each disagreement")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "write one JSON object per simulation (file, simulation_index, simulation_id, task_id, trial, recorded_reward, reward, reward_breakdown, db_match, notes)")
	cmd.Flags().BoolVar(&opts.AllowModifiedData, "allow-modified-data", false, allowModifiedUsage)
	addRetrievalFlags(cmd.Flags(), &opts.Retrieval)
	cmd.Flags().BoolVar(&opts.Relabel, "relabel", false, "score a simulation whose recorded evaluation checked another task's gold actions against that task (noted per simulation)")
	return cmd
}

func runRescore(ctx context.Context, opts *rescoreOptions) error {
	s := opts.Streams
	files, err := rescore.Files(ctx, opts.Files, rescore.Options{
		Criteria: opts.Criteria, Relabel: opts.Relabel, Warn: s.ErrOut,
		Load: func(name string, solo bool) (envs.Domain, error) {
			load := opts.Retrieval.loader()
			if solo {
				load = domains.LoadSolo
			}
			dom, _, err := loadDomain(load, name, opts.DataDir, opts.AllowModifiedData, s.ErrOut) // datacheck.go
			return dom, err
		},
	})
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(s.Out)
		for _, f := range files {
			for _, r := range f.Results {
				if err := enc.Encode(r); err != nil {
					return fmt.Errorf("write rescore results: %w", err)
				}
			}
		}
		return nil
	}
	writeRescore(s.Out, files, opts.Verbose)
	return nil
}

func writeRescore(w io.Writer, files []rescore.File, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tDOMAIN\tSIMS\tAGREE\tDISAGREE\tNL FROM RECORD\tNL NOT JUDGED\tRELABELLED\tNO TASK\tNOT EVALUATED")
	var tot rescore.File
	for _, f := range files {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", f.File, f.Domain, f.Sims, f.Agree, len(f.Disagree), f.NLRecorded, f.NLUnjudged, f.Relabelled, len(f.Missing), len(f.Failed))
		tot.Relabelled += f.Relabelled
		tot.Sims += f.Sims
		tot.Agree += f.Agree
		tot.NLRecorded += f.NLRecorded
		tot.NLUnjudged += f.NLUnjudged
		tot.Disagree = append(tot.Disagree, f.Disagree...)
		tot.Missing = append(tot.Missing, f.Missing...)
		tot.Failed = append(tot.Failed, f.Failed...)
	}
	if len(files) > 1 {
		fmt.Fprintf(tw, "total\t\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", tot.Sims, tot.Agree, len(tot.Disagree), tot.NLRecorded, tot.NLUnjudged, tot.Relabelled, len(tot.Missing), len(tot.Failed))
	}
	tw.Flush()
	if tot.NLUnjudged > 0 {
		fmt.Fprintln(w, "NL NOT JUDGED: simulations whose NL assertions neither the record nor this rescoring judged (a run with --no-judge): their rewards omit NL_ASSERTION.")
	}
	if tot.Relabelled > 0 {
		fmt.Fprintln(w, "RELABELLED (--relabel): simulations whose recorded evaluation checked another task's gold actions than their task_id names, scored against that task.")
	}
	for _, f := range files {
		if len(f.Disagree) == 0 && len(f.Missing) == 0 && len(f.Failed) == 0 && len(f.Notes) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", f.File)
		for _, n := range f.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		for _, d := range f.Disagree {
			fmt.Fprintf(w, "  task %s trial %d: recorded %g, ours %g: %s\n", d.TaskID, d.Trial, d.Recorded, d.Ours, strings.Join(d.Components, "; "))
			if verbose {
				for _, n := range d.Notes {
					fmt.Fprintf(w, "    note: %s\n", truncate(n, 400))
				}
			}
		}
		for _, d := range f.Failed {
			fmt.Fprintf(w, "  task %s trial %d: %s\n", d.TaskID, d.Trial, strings.Join(d.Notes, "; "))
		}
		if len(f.Missing) > 0 {
			fmt.Fprintf(w, "  tasks not found: %s\n", list20(f.Missing))
		}
	}
}
