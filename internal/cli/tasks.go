package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

type tasksOptions struct {
	DataDir string
	Domain  string
	Split   string
	TaskIDs []string
	Limit   int
	// Format is text, json, csv or markdown.
	Format string
}

func newCmdTasks(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *tasksOptions) error) *cobra.Command {
	if runF == nil {
		runF = runTasks
	}
	opts := &tasksOptions{}
	cmd := &cobra.Command{
		Use:   "tasks --domain D [--split S]",
		Short: "List a domain's tasks, splits and gold action counts",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Domain == "" {
				return errext.Usagef("tasks needs --domain (one of %v)", domains.Names())
			}
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Domain, "domain", "", "domain")
	cmd.Flags().StringVar(&opts.Split, "split", "", "split")
	cmd.Flags().StringSliceVar(&opts.TaskIDs, "task-ids", nil, "task ids")
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "first N tasks")
	addFormatFlags(cmd, &opts.Format, tableFormats...)
	return cmd
}

func runTasks(_ context.Context, s *Streams, opts *tasksOptions) error {
	dom, err := domains.Load(opts.Domain, opts.DataDir)
	if err != nil {
		return err
	}
	set := dom.Tasks()
	sel, err := set.Select(tasks.Selection{Split: opts.Split, TaskIDs: opts.TaskIDs, Limit: opts.Limit})
	if err != nil {
		return err
	}
	t := report.Table{ID: "tasks",
		Title:  fmt.Sprintf("%s: %d tasks selected; splits: %v (default %q)", opts.Domain, len(sel), set.SplitNames(), set.DefaultSplit),
		Header: []string{"ID", "Gold actions", "Reward basis"}}
	for _, task := range sel {
		var basis []string
		if task.EvaluationCriteria != nil {
			for _, b := range task.EvaluationCriteria.Basis() {
				basis = append(basis, string(b))
			}
		}
		t.Rows = append(t.Rows, []string{task.ID, strconv.Itoa(len(task.GoldActions())), strings.Join(basis, " ")})
	}
	return report.WriteTables(s.Out, report.Format(opts.Format), t)
}
