package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/domains"
	"github.com/ledgerbench/ledgerbench/tasks"
)

func newCmdTasks(s *Streams, g *globalOptions) *cobra.Command {
	var domain, split string
	var ids []string
	var limit int
	cmd := &cobra.Command{
		Use:   "tasks --domain D [--split S]",
		Short: "List a domain's tasks, splits and gold action counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if domain == "" {
				return usageError{fmt.Errorf("tasks needs --domain (one of %v)", domains.Names())}
			}
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			dom, err := domains.Load(domain, dir)
			if err != nil {
				return err
			}
			set := dom.Tasks()
			sel, err := set.Select(tasks.Selection{Split: split, TaskIDs: ids, Limit: limit})
			if err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "%s: %d tasks selected; splits: %v (default %q)\n", domain, len(sel), set.SplitNames(), set.DefaultSplit)
			tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tGOLD ACTIONS\tREWARD BASIS")
			for _, t := range sel {
				basis := []tasks.RewardType{}
				if t.EvaluationCriteria != nil {
					basis = t.EvaluationCriteria.Basis()
				}
				fmt.Fprintf(tw, "%s\t%d\t%v\n", t.ID, len(t.GoldActions()), basis)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&domain, "domain", "", "domain")
	cmd.Flags().StringVar(&split, "split", "", "split")
	cmd.Flags().StringSliceVar(&ids, "task-ids", nil, "task ids")
	cmd.Flags().IntVar(&limit, "limit", 0, "first N tasks")
	return cmd
}
