package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/banking"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/parallel"
	"github.com/ledgerbench/ledgerbench/internal/engine/gold"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

type verifyOptions struct {
	DataDir string
	Domains []string
	Split   string
	TaskIDs []string
	Limit   int
	// Format is text, json (one line per task), csv or markdown.
	Format string
	// AllowModifiedData lets data files that differ from their pins through.
	AllowModifiedData bool
	Retrieval         retrievalOptions
}

func newCmdVerify(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *verifyOptions) error) *cobra.Command {
	if runF == nil {
		runF = runVerify
	}
	opts := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [--domain D…] [--split S]",
		Short: "Play every task's gold actions and check they earn full reward",
		Long: `For every selected task: a fresh environment with the task's initial state, a gold
trajectory (the gold actions as tool calls by their requestors, plus agent messages
stating each communicate_info item), and τ²-bench's evaluation. NL assertions need a
judge and are reported as not evaluated. Exits with status 3 if any task fails.
--format json prints one JSON line per task; text, csv and markdown a table per domain.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			if len(opts.Domains) == 0 {
				opts.Domains = domains.Names()
				if opts.Retrieval != (retrievalOptions{}) {
					opts.Domains = []string{banking.Name}
				}
			}
			if err := opts.Retrieval.check(opts.Domains...); err != nil {
				return err
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Domains, "domain", nil, "domains to verify (default: all)")
	cmd.Flags().StringVar(&opts.Split, "split", "", "task split (default: each domain's default)")
	cmd.Flags().StringSliceVar(&opts.TaskIDs, "task-ids", nil, "only these task ids")
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "only the first N tasks")
	addFormatFlags(cmd, &opts.Format, tableFormats...)
	cmd.Flags().BoolVar(&opts.AllowModifiedData, "allow-modified-data", false, allowModifiedUsage)
	addRetrievalFlags(cmd.Flags(), &opts.Retrieval)
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

// verifyRow is one domain's outcome.
type verifyRow struct {
	domain                 string
	tasks, passed, notEval int
	elapsed                time.Duration
	failed                 []string
}

func runVerify(ctx context.Context, s *Streams, opts *verifyOptions) error {
	var rows []verifyRow
	anyFailed := false
	for _, name := range opts.Domains {
		start := time.Now()
		// The gold trajectories run while the pinned hashes are checked;
		// their results are used only once the check has passed.
		dom, verified, err := startDomain(opts.Retrieval.loader(), name, opts.DataDir, opts.AllowModifiedData, s.ErrOut)
		if err != nil {
			return err
		}
		sel, err := dom.Tasks().Select(tasks.Selection{Split: opts.Split, TaskIDs: opts.TaskIDs, Limit: opts.Limit})
		var res []gold.Result
		if err == nil {
			res, err = verifyTasks(ctx, dom, sel)
		}
		if _, cerr := verified(); cerr != nil {
			return cerr
		}
		if err != nil {
			return err
		}
		r := verifyRow{domain: name, tasks: len(sel)}
		for _, v := range res {
			if v.Passed {
				r.passed++
			} else {
				r.failed = append(r.failed, v.TaskID)
			}
			if len(v.Info.NotEvaluated) > 0 {
				r.notEval++
			}
			if opts.Format == string(report.JSON) {
				if err := writeJSONLine(s.Out, verifyLine{Domain: v.Domain, TaskID: v.TaskID, Reward: v.Reward, RewardBreakdown: v.Info.RewardBreakdown,
					NotEvaluated: v.Info.NotEvaluated, EnvAssertions: v.Info.EnvAssertions, Calls: v.Calls}); err != nil {
					return err
				}
			}
		}
		r.elapsed = time.Since(start)
		anyFailed = anyFailed || len(r.failed) > 0
		rows = append(rows, r)
	}
	if opts.Format != string(report.JSON) {
		if err := report.WriteTables(s.Out, report.Format(opts.Format), verifyTable(rows)); err != nil {
			return err
		}
	}
	if anyFailed {
		return fmt.Errorf("verify: %w: some gold trajectories did not earn full reward", ErrFailed)
	}
	return nil
}

// verifyTable is the per-domain table; the notes name the failed tasks.
func verifyTable(rows []verifyRow) report.Table {
	t := report.Table{ID: "verify", Title: "Gold trajectories earning full reward",
		Header: []string{"Domain", "Tasks", "Passed", "Failed", "NL not evaluated", "Time (s)"}}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.domain, strconv.Itoa(r.tasks), strconv.Itoa(r.passed), strconv.Itoa(len(r.failed)),
			strconv.Itoa(r.notEval), strconv.FormatFloat(r.elapsed.Seconds(), 'f', 3, 64)})
		if len(r.failed) > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s failed: %s", r.domain, strings.Join(r.failed, ", ")))
		}
	}
	return t
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
