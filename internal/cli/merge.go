package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/results"
)

func newCmdMerge(s *Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "merge OUT DIR…",
		Short: "Join shard run directories into one run",
		Long: `Join the run directories of shards (ledgerbench run --shard i/n) into the run
directory OUT. The manifests must agree on everything but the shard; a unit recorded
in two directories is refused unless one of the records is an infrastructure error
(the other is kept). Units missing from every directory are listed; continue with
ledgerbench run --resume --out OUT.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(s, args[0], args[1:], time.Now())
		},
	}
}

func runMerge(s *Streams, out string, dirs []string, now time.Time) error {
	if ok, err := results.Exists(out); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("merge: %s already holds a run; choose a new directory", out)
	}
	var (
		first  *results.Manifest
		order  []results.UnitKey
		chosen = map[results.UnitKey]results.Record{}
		from   = map[results.UnitKey]string{}
	)
	for _, dir := range dirs {
		run, err := results.LoadRun(dir)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if first == nil {
			first = run.Manifest
		} else if d := first.Diff(run.Manifest, "shard"); len(d) > 0 {
			return fmt.Errorf("merge: %s and %s are not shards of the same run:\n  %s", dirs[0], dir, strings.Join(d, "\n  "))
		}
		for _, r := range run.Records {
			k := r.Key()
			prev, seen := chosen[k]
			switch {
			case !seen:
				order = append(order, k)
			case prev.Infrastructure():
				// a real outcome (or a later error) replaces an infrastructure error
			case r.Infrastructure():
				continue
			default:
				return fmt.Errorf("merge: task %s trial %d is recorded in both %s and %s; shards must not overlap", k.TaskID, k.Trial, from[k], dir)
			}
			chosen[k] = r
			from[k] = dir
		}
	}
	m := *first
	m.Shard = ""
	m.CreatedAt = now.UTC().Format(time.RFC3339)
	m.MergedFrom = nil
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			abs = d
		}
		m.MergedFrom = append(m.MergedFrom, abs)
	}
	if err := results.Create(out, &m); err != nil {
		return err
	}
	w, err := results.OpenWriter(filepath.Join(out, results.SimulationsFile))
	if err != nil {
		return err
	}
	infra := 0
	for _, k := range order {
		r := chosen[k]
		if r.Infrastructure() {
			infra++
		}
		if err := w.Write(r); err != nil {
			w.Close()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	total := len(m.TaskIDs) * m.Trials
	fmt.Fprintf(s.Out, "merged %d runs into %s: %d of %d simulations (%d infrastructure errors)\n", len(dirs), out, len(order), total, infra)
	var missing []string
	for _, id := range m.TaskIDs {
		for t := range m.Trials {
			if _, ok := chosen[results.UnitKey{TaskID: id, Trial: t}]; !ok {
				missing = append(missing, fmt.Sprintf("%s/%d", id, t))
			}
		}
	}
	if len(missing) > 0 || infra > 0 {
		if len(missing) > 0 {
			fmt.Fprintf(s.Out, "missing (task/trial): %s\n", list20(missing))
		}
		fmt.Fprintf(s.Out, "complete it with: ledgerbench run --resume --out %s\n", out)
	}
	return nil
}

func list20(items []string) string {
	if len(items) > 20 {
		return strings.Join(items[:20], ", ") + fmt.Sprintf(", … %d more", len(items)-20)
	}
	return strings.Join(items, ", ")
}
