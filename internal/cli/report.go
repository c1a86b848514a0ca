package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

type reportOptions struct {
	Inputs        []string
	Format        string
	Tables        []string
	Figures       string
	FigureFormats []string
	Baseline      string
	Treatment     string
	K             int
	Labels        report.Labels
	NoDomains     bool
	DataDir       string
}

func newCmdReport(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *reportOptions) error) *cobra.Command {
	if runF == nil {
		runF = runReport
	}
	opts := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report RUN…",
		Short: "Tables and figures of the paper from runs and recorded results",
		Long: `Each RUN is a run directory (manifest.json + simulations.jsonl), a τ²-bench results
JSON, or a τ-bench v1 / τ-Trait results list ([{task_id, reward, info, traj, trial}]).
Records are grouped by domain, agent, backbone, user backbone and the user's
τ-Trait traits; every table is computed per group:

  overview      pass^k for k = 1…K, average reward, infrastructure errors
  table2        pass^1 / pass^K per domain, baseline vs treatment, per backbone, deltas
  comparison    every agent against the baseline, with token and call overhead
  write_subset  pass^k on tasks whose gold actions include a write
  actions       share of gold actions matched (action-level reliability)
  gate          policy adherence and gate verdict counts (agent_info.gate)
  errors        failed simulations by category
  costs         tokens and USD per simulation and per run, judge included
  traits        τ-Trait's table: pass^1 without traits and under each trait, and
                the relative change (only when some group carries traits, or asked for)

Infrastructure errors are excluded from pass^k and counted; a task with fewer
trials than the others is named and its pass^k values starred. Domains found
in the data directory give gold actions and tool kinds for every task; without
them only what the records carry is used. Labels of v1 lists come from the file
name unless --domain/--agent/--backbone/--user-backbone say; their domain is the one
their recorded tasks point to (as rescore detects it), with rescore's notes. Traits come
from a run's user reports and manifest, a τ²-bench file's user_info, or a τ-Trait
recording's name (confusion_airline.json, telecom_none.json), unless --traits says.`,
		Example: `  ledgerbench report runs/airline-baseline runs/airline-ledger
  ledgerbench report --format markdown --figures figs runs/*
  ledgerbench report --format json gpt-4o-airline.json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errext.Usagef("report needs at least one RUN (a run directory or a results file)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if _, err := report.ParseFormat(opts.Format); err != nil {
				return errext.Usage(err)
			}
			for _, id := range opts.Tables {
				if !slices.Contains(report.TableIDs(), id) {
					return errext.Usagef("unknown table %q (have: %s)", id, strings.Join(report.TableIDs(), ", "))
				}
			}
			for _, ff := range opts.FigureFormats {
				if _, err := report.ParseFigureFormat(ff); err != nil {
					return errext.Usage(err)
				}
			}
			if !opts.NoDomains {
				if err := g.setDataDir(s, &opts.DataDir); err != nil {
					return err
				}
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Format, "format", "text", "output format: text, markdown, csv or json")
	f.StringSliceVar(&opts.Tables, "table", nil, "only these tables (default all): "+strings.Join(report.TableIDs(), ", "))
	f.StringVar(&opts.Figures, "figures", "", "write figures into this directory")
	f.StringSliceVar(&opts.FigureFormats, "figure-format", []string{"svg"}, "figure file formats: svg, png, pdf (repeatable)")
	f.StringVar(&opts.Baseline, "baseline", "baseline", "agent label of the baseline")
	f.StringVar(&opts.Treatment, "treatment", "ledger", "agent label compared with the baseline in table2")
	f.IntVar(&opts.K, "k", 0, "the larger k of the comparison tables (default: fewest trials of the groups compared)")
	f.StringVar(&opts.Labels.Domain, "domain", "", "label every record with this domain")
	f.StringVar(&opts.Labels.Agent, "agent", "", "label every record with this agent")
	f.StringVar(&opts.Labels.Backbone, "backbone", "", "label every record with this backbone")
	f.StringVar(&opts.Labels.UserBackbone, "user-backbone", "", "label every record with this user backbone")
	f.StringVar(&opts.Labels.Trait, "traits", "", `label every record with this τ-Trait user trait ("none", a trait name, or name=level pairs)`)
	f.BoolVar(&opts.NoDomains, "no-domains", false, "do not load domains from the data directory (use only what records carry)")
	return cmd
}

func runReport(_ context.Context, s *Streams, opts *reportOptions) error {
	var sources []*report.Source
	for _, in := range opts.Inputs {
		src, err := report.Load(in, opts.Labels)
		if err != nil {
			return err
		}
		if len(src.Records) == 0 {
			fmt.Fprintf(s.ErrOut, "note: %s holds no records\n", in)
		}
		sources = append(sources, src)
	}
	var cat metrics.Catalog
	if !opts.NoDomains {
		var doms []envs.Domain
		cat, doms = report.LoadDomains(opts.DataDir, sources, noteTo(s.ErrOut))
		report.AddShadowVerdicts(sources, doms)
	}
	for _, d := range report.Dropped(sources) {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", d)
	}
	groups := report.Summarize(sources, cat)
	if err := checkK(opts.K, groups); err != nil {
		return err
	}
	rep := report.Build(groups, report.Options{Baseline: opts.Baseline, Treatment: opts.Treatment, K: opts.K, Reviews: report.Reviews(sources)})
	format, _ := report.ParseFormat(opts.Format)
	if err := rep.Write(s.Out, format, opts.Tables...); err != nil {
		return err
	}
	if opts.Figures != "" {
		var formats []report.FigureFormat
		for _, ff := range opts.FigureFormats {
			f, _ := report.ParseFigureFormat(ff)
			formats = append(formats, f)
		}
		paths, err := rep.WriteFigures(opts.Figures, formats...)
		if err != nil {
			return err
		}
		fmt.Fprintf(s.ErrOut, "wrote %d figure(s) to %s\n", len(paths), opts.Figures)
	}
	return nil
}

// checkK refuses a --k above the trials per task of every group: each of
// its columns would be empty. Groups with fewer trials than --k (while
// others have enough) get empty cells marked "—" and a note.
func checkK(k int, groups []metrics.Summary) error {
	if k == 0 || len(groups) == 0 {
		return nil
	}
	most := 0
	for _, g := range groups {
		most = max(most, g.K)
	}
	if k > most {
		return errext.Usagef("--k %d is above the trials per task of every run (at most %d)", k, most)
	}
	return nil
}

// noteTo prints a note line on w.
func noteTo(w io.Writer) func(string) {
	return func(msg string) { fmt.Fprintf(w, "note: %s\n", msg) }
}
