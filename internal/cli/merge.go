package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
)

type mergeOptions struct {
	Streams *Streams
	Out     string
	Dirs    []string
	// Now stamps the merged manifest (tests).
	Now func() time.Time
}

func newCmdMerge(s *Streams, runF func(context.Context, *mergeOptions) error) *cobra.Command {
	opts := &mergeOptions{Streams: s, Now: time.Now}
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
			opts.Out, opts.Dirs = args[0], args[1:]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMerge(cmd.Context(), opts)
		},
	}
}

func runMerge(_ context.Context, opts *mergeOptions) error {
	res, err := results.Merge(opts.Out, opts.Dirs, opts.Now())
	if err != nil {
		return err
	}
	w := opts.Streams.Out
	fmt.Fprintf(w, "merged %d runs into %s: %d of %d simulations (%d infrastructure errors)\n", res.Runs, res.Out, res.Recorded, res.Total, res.Infra)
	if len(res.Missing) > 0 || res.Infra > 0 {
		if len(res.Missing) > 0 {
			fmt.Fprintf(w, "missing (task/trial): %s\n", list20(res.Missing))
		}
		fmt.Fprintf(w, "complete it with: ledgerbench run --resume --out %s\n", res.Out)
	}
	return nil
}

func list20(items []string) string {
	if len(items) > 20 {
		return strings.Join(items[:20], ", ") + fmt.Sprintf(", … %d more", len(items)-20)
	}
	return strings.Join(items, ", ")
}
