package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/output/leaderboard"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/output/submit"
)

type leaderboardOptions struct {
	DataDir string
	Runs    []string
	Domain  string
	Metric  string
	Limit   int
	Type    string
	Legacy  bool
	// Format is text, json, csv or markdown.
	Format string
}

func newCmdLeaderboard(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *leaderboardOptions) error) *cobra.Command {
	if runF == nil {
		runF = runLeaderboard
	}
	opts := &leaderboardOptions{}
	cmd := &cobra.Command{
		Use:   "leaderboard [RUN…] [--domain D] [--metric M]",
		Args:  cobra.ArbitraryArgs, // runs to place
		Short: "τ²-bench's published leaderboard, with your runs placed among its entries",
		Long: `Ranks the published submissions pinned by data pull (τ²-bench's
web/leaderboard/public/submissions) as "tau2 leaderboard" does: by --domain (all domains
averaged without it), by --metric pass_1…pass_4 (pass^1…pass^4) or cost, highest first,
ties in the manifest's order; the text and voice submissions, the legacy ones with
--legacy. Standard and custom submissions are ranked apart (--type standard, custom, or
all for one ranking as upstream's).

Each RUN (a run directory, a τ²-bench results file or a folder of them, as submit prepare
takes them) is placed among the entries with its pass^k, unranked, in the table its
submission would go to (standard only with upstream's prompts, a model's backbones and
judged NL assertions); a footnote says what differs from a standard entry (user simulator,
trials, tasks, prompts, retrieval config…). A run on an offline backbone (gold, sim,
replay) is marked SIMULATED: it is not a model's result.`,
		Example: `  ledgerbench leaderboard --domain retail
  ledgerbench leaderboard --domain airline --metric pass_4 runs/airline-baseline runs/airline-ledger`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				opts.Runs = args
			}
			if opts.Domain != "" && !slices.Contains(submit.Domains(), opts.Domain) {
				return errext.Usagef("--domain %q: the leaderboard's domains are %s", opts.Domain, strings.Join(submit.Domains(), ", "))
			}
			if _, err := leaderboard.ParseMetric(opts.Metric); err != nil {
				return errext.Usagef("--metric: %v", err)
			}
			if opts.Limit < 0 {
				return errext.Usagef("--limit must not be negative (got %d)", opts.Limit)
			}
			if opts.Type == "both" {
				opts.Type = leaderboard.TypeApart
			}
			if !slices.Contains([]string{leaderboard.TypeApart, leaderboard.TypeStandard, leaderboard.TypeCustom, leaderboard.TypeAll}, opts.Type) {
				return errext.Usagef("--type %q: want standard, custom or all (both tables without it)", opts.Type)
			}
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Domain, "domain", "d", "", "rank one domain: "+strings.Join(submit.Domains(), ", ")+" (default: all, averaged)")
	f.StringVarP(&opts.Metric, "metric", "m", "pass_1", "rank by "+strings.Join(leaderboard.Metrics(), ", ")+" (pass^k also accepted)")
	f.IntVarP(&opts.Limit, "limit", "n", 0, "show the first N published entries of each table (0: all)")
	f.StringVar(&opts.Type, "type", "", "standard, custom or all (default: standard and custom apart)")
	f.BoolVar(&opts.Legacy, "legacy", false, "include the legacy submissions (previous benchmark versions)")
	addFormatFlags(cmd, &opts.Format, tableFormats...)
	return cmd
}

func runLeaderboard(_ context.Context, s *Streams, opts *leaderboardOptions) error {
	m, err := leaderboard.ParseMetric(opts.Metric)
	if err != nil {
		return errext.Usagef("--metric: %v", err)
	}
	res, err := leaderboard.Show(leaderboard.Request{DataDir: opts.DataDir, Runs: opts.Runs,
		Options: leaderboard.Options{Domain: opts.Domain, Metric: m, Limit: opts.Limit, Type: opts.Type, Legacy: opts.Legacy}})
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", w)
	}
	return report.WriteTables(s.Out, report.Format(opts.Format), res.Tables...)
}
