package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/domains"
	"github.com/ledgerbench/ledgerbench/internal/gold"
	"github.com/ledgerbench/ledgerbench/internal/parallel"
	"github.com/ledgerbench/ledgerbench/tasks"
)

type verifyOptions struct {
	Domains []string
	Split   string
	TaskIDs []string
	Limit   int
	JSON    bool
	// AllowModifiedData lets data files that differ from their pins through.
	AllowModifiedData bool
	DataDir           string
}

func newCmdVerify(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [--domain D…] [--split S]",
		Short: "Play every task's gold actions and check they earn full reward",
		Long: `For every selected task: a fresh environment with the task's initial state, a gold
trajectory (the gold actions as tool calls by their requestors, plus agent messages
stating each communicate_info item), and τ²-bench's evaluation. NL assertions need a
judge and are reported as not evaluated. Exits with status 3 if any task fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			opts.DataDir = dir
			if len(opts.Domains) == 0 {
				opts.Domains = domains.Names()
			}
			if runF != nil {
				return runF(cmd.Context(), s, opts)
			}
			return runVerify(cmd.Context(), s, opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Domains, "domain", nil, "domains to verify (default: all)")
	cmd.Flags().StringVar(&opts.Split, "split", "", "task split (default: each domain's default)")
	cmd.Flags().StringSliceVar(&opts.TaskIDs, "task-ids", nil, "only these task ids")
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "only the first N tasks")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON line per task")
	cmd.Flags().BoolVar(&opts.AllowModifiedData, "allow-modified-data", false, allowModifiedUsage)
	return cmd
}

type verifyLine struct {
	Domain          string                        `json:"domain"`
	TaskID          string                        `json:"task_id"`
	Reward          float64                       `json:"reward"`
	RewardBreakdown map[tasks.RewardType]float64  `json:"reward_breakdown"`
	NotEvaluated    []tasks.RewardType            `json:"not_evaluated,omitempty"`
	EnvAssertions   []evaluator.EnvAssertionCheck `json:"env_assertions,omitempty"`
	Calls           []gold.Call                   `json:"calls"`
}

func runVerify(ctx context.Context, s *Streams, opts *verifyOptions) error {
	type row struct {
		domain                 string
		tasks, passed, notEval int
		elapsed                time.Duration
		failed                 []string
	}
	var rows []row
	anyFailed := false
	for _, name := range opts.Domains {
		start := time.Now()
		dom, _, err := loadDomain(domains.Load, name, opts.DataDir, opts.AllowModifiedData, s.ErrOut)
		if err != nil {
			return err
		}
		sel, err := dom.Tasks().Select(tasks.Selection{Split: opts.Split, TaskIDs: opts.TaskIDs, Limit: opts.Limit})
		if err != nil {
			return err
		}
		res, err := verifyTasks(ctx, dom, sel)
		if err != nil {
			return err
		}
		r := row{domain: name, tasks: len(sel)}
		for _, v := range res {
			if v.Passed {
				r.passed++
			} else {
				r.failed = append(r.failed, v.TaskID)
			}
			if len(v.Info.NotEvaluated) > 0 {
				r.notEval++
			}
			if opts.JSON {
				line := verifyLine{Domain: v.Domain, TaskID: v.TaskID, Reward: v.Reward, RewardBreakdown: v.Info.RewardBreakdown,
					NotEvaluated: v.Info.NotEvaluated, EnvAssertions: v.Info.EnvAssertions, Calls: v.Calls}
				b, err := json.Marshal(line)
				if err != nil {
					return err
				}
				fmt.Fprintln(s.Out, string(b))
			}
		}
		r.elapsed = time.Since(start)
		if len(r.failed) > 0 {
			anyFailed = true
		}
		rows = append(rows, r)
	}
	if !opts.JSON {
		tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "DOMAIN\tTASKS\tPASSED\tFAILED\tNL NOT EVALUATED\tTIME")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", r.domain, r.tasks, r.passed, len(r.failed), r.notEval, r.elapsed.Round(time.Millisecond))
		}
		tw.Flush()
		for _, r := range rows {
			if len(r.failed) > 0 {
				fmt.Fprintf(s.Out, "%s failed: %s\n", r.domain, strings.Join(r.failed, ", "))
			}
		}
	}
	if anyFailed {
		return fmt.Errorf("verify: %w: some gold trajectories did not earn full reward", ErrFailed)
	}
	return nil
}

// verifyTasks verifies tasks on every core, keeping their order.
func verifyTasks(ctx context.Context, dom envs.Domain, sel []tasks.Task) ([]gold.Result, error) {
	return parallel.Map(ctx, len(sel), func(ctx context.Context, i int) (gold.Result, error) {
		r, err := gold.Verify(ctx, dom, &sel[i], evaluator.Options{})
		if err != nil {
			return r, fmt.Errorf("verify %s task %s: %w", dom.Name(), sel[i].ID, err)
		}
		return r, nil
	})
}
