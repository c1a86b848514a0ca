package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/score/gateaudit"
)

type gateAuditOptions struct {
	DataDir string
	// Domains for the gold and mutation reports (empty: every base domain).
	Domains []string
	Split   string
	// Recorded are τ²-bench results files (globs expanded) to audit in
	// shadow mode.
	Recorded []string
	// Format is text, json (one object per line), csv or markdown.
	Format  string
	Verbose bool
	Strict  bool
}

func newCmdGateAudit(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *gateAuditOptions) error) *cobra.Command {
	if runF == nil {
		runF = runGateAudit
	}
	opts := &gateAuditOptions{}
	cmd := &cobra.Command{
		Use:   "gate-audit [--domain D…] [--recorded] [FILE|GLOB…] [--format F] [-v]",
		Short: "Measure the policy gate: false positives on gold, recall on mutations, verdicts on recorded runs",
		Long: `Three offline reports per domain:
  gold       every task played live by the gold backbone through LedgerAgent, exactly as
             run --agent ledger --backbone gold --no-judge plays it (the same agent, ledger,
             gate, scripted user and loop; a domain's solo mode too): every gold write
             should be allowed (false positives are listed) and every task passed
  mutations  gold writes turned into named policy violations; recall per kind
  recorded   (FILE…) every write of recorded τ²-bench runs judged in shadow mode against
             the ledger built from that run's own reads (a message's writes are judged
             before its own reads return, as live), split by run outcome as recorded and
             as rescored against the pinned tasks; stopped writes split into those the
             environment rejected anyway and those it let through. Solo runs
             (llm_agent_solo / dummy_user) are audited as solo runs.

Recorded files are the arguments and the values of --recorded; quoted globs are
expanded. --format json (--json) prints one object per line, with one "verdict"
object per write the gate would not have allowed; text, csv and markdown print one
table per report, and -v adds the same per-verdict lines (a verdicts table in csv
and markdown).`,
		Example: `  ledgerbench gate-audit --domain airline
  ledgerbench gate-audit --recorded ../shared/upstream/trajectories/sierra-research+tau2-bench/*.json
  ledgerbench gate-audit -v --json 'runs/*.json'`,
		Args: cobra.ArbitraryArgs, // recorded files and globs
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			files, err := expandRecorded(append(slices.Clone(opts.Recorded), args...))
			if err != nil {
				return errext.Usage(err)
			}
			opts.Recorded = files
			return runF(cmd.Context(), s, opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Domains, "domain", nil, "domains (default: all with gate predicates)")
	cmd.Flags().StringVar(&opts.Split, "split", "", "task split for the gold and mutation reports (default: each domain's default)")
	cmd.Flags().StringSliceVar(&opts.Recorded, "recorded", nil, "τ²-bench results files or globs to audit in shadow mode (more may follow as arguments)")
	addFormatFlags(cmd, &opts.Format, tableFormats...)
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "print every write the gate would not have allowed")
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "exit 3 if any gold write is not allowed or any task is lost live")
	return cmd
}

// expandRecorded expands globs; a pattern matching nothing is an error, a
// plain path is kept (reading it reports a missing file).
func expandRecorded(in []string) ([]string, error) {
	var out []string
	for _, p := range in {
		if !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("--recorded %q: %w", p, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("--recorded %q: no file matches", p)
		}
		out = append(out, m...)
	}
	return out, nil
}

func runGateAudit(ctx context.Context, s *Streams, opts *gateAuditOptions) error {
	a, err := gateaudit.Run(ctx, gateaudit.Options{DataDir: opts.DataDir, Domains: opts.Domains, Split: opts.Split, Recorded: opts.Recorded,
		Skipped: func(d string) { fmt.Fprintf(s.ErrOut, "%s: no gate predicates; skipped\n", d) }})
	if err != nil {
		return err
	}
	if err := writeGateAudit(s.Out, report.Format(opts.Format), opts.Verbose, a); err != nil {
		return err
	}
	if n := a.HarnessErrors(); n > 0 {
		return fmt.Errorf("gate-audit: %d harness errors (a gate predicate panicked: a defect of ledgerbench, not of the gate's rules); see harness_errors in --json and -v", n)
	}
	if fp, lost := a.FalsePositives(), a.Lost(); opts.Strict && fp+lost > 0 {
		return fmt.Errorf("gate-audit: %w: %d gold writes were not allowed, %d tasks lost in the live gold runs", ErrFailed, fp, lost)
	}
	return nil
}

// writeGateAudit prints the audit: JSON objects one per line (a verdict
// object per stopped write), or tables.
func writeGateAudit(w io.Writer, f report.Format, verbose bool, a *gateaudit.Result) error {
	if f == report.JSON {
		return writeGateAuditJSON(w, a)
	}
	verdicts := a.Verdicts()
	tables := gateAuditTables(a)
	if verbose && f != report.Text {
		tables = append(tables, verdictTable(verdicts))
	}
	if err := report.WriteTables(w, f, tables...); err != nil {
		return err
	}
	if verbose && f == report.Text {
		return writeVerdictLines(w, verdicts)
	}
	return nil
}

func writeGateAuditJSON(w io.Writer, a *gateaudit.Result) error {
	for _, d := range a.Domains {
		if err := writeJSONLine(w, d.Gold); err != nil {
			return err
		}
		for _, m := range d.Mutations {
			if err := writeJSONLine(w, m); err != nil {
				return err
			}
		}
	}
	for _, fa := range a.Files {
		for _, r := range fa.Reports {
			if err := writeJSONLine(w, r); err != nil {
				return err
			}
		}
		for _, v := range fa.Verdicts {
			if err := writeJSONLine(w, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// gateAuditTables are the gold, mutation and recorded tables (those with
// rows).
func gateAuditTables(a *gateaudit.Result) []report.Table {
	gold := report.Table{ID: "gold", Title: "Gold backbone through LedgerAgent, live: false positives and tasks lost",
		Header: []string{"Domain", "Loop", "Tasks", "Passed", "Writes", "False positives", "Rejected by env (not counted)", "False positive rate (%)", "Harness errors"}}
	muts := report.Table{ID: "mutations", Title: "Gold writes mutated into policy violations: recall",
		Header: []string{"Domain", "Kind", "Mutations", "Caught", "Recall (%)", "Harness errors"}}
	var lost []string
	for _, d := range a.Domains {
		g := d.Gold
		gold.Rows = append(gold.Rows, []string{g.Name(), g.Loop, strconv.Itoa(g.Tasks), strconv.Itoa(g.Passed), strconv.Itoa(g.Writes), strconv.Itoa(g.FalsePositives),
			strconv.Itoa(g.RejectedByEnv), rate(g.FalsePositives, g.Writes), strconv.Itoa(g.HarnessErrors)})
		for _, l := range g.Lost {
			lost = append(lost, fmt.Sprintf("%s task %s: %s, reward %g after %d steps", g.Name(), l.TaskID, l.Termination, l.Reward, l.Steps))
		}
		for _, m := range d.Mutations {
			muts.Rows = append(muts.Rows, []string{m.Domain, m.Kind, strconv.Itoa(m.Total), strconv.Itoa(m.Caught), rate(m.Caught, m.Total-m.HarnessErrors), strconv.Itoa(m.HarnessErrors)})
		}
	}
	if len(lost) > 0 {
		gold.Notes = append(gold.Notes, "Lost live: "+strings.Join(lost, "; "))
	}
	rec := report.Table{ID: "recorded", Title: "Recorded runs in shadow mode: writes the gate would have stopped",
		Header: []string{"File", "Domain", "Outcome", "Rescored", "Runs", "Writes", "Stopped", "Revise", "Block",
			"Stopped, env rejected anyway", "Stopped, not rejected", "Flagged runs", "% of writes stopped", "Harness errors"}}
	for _, fa := range a.Files {
		for _, r := range fa.Reports {
			stopped := r.Revise + r.Block
			rec.Rows = append(rec.Rows, []string{r.File, r.Domain, r.Outcome, r.Rescored, strconv.Itoa(r.Runs), strconv.Itoa(r.Writes), strconv.Itoa(stopped),
				strconv.Itoa(r.Revise), strconv.Itoa(r.Block), strconv.Itoa(r.StoppedEnvRejected), strconv.Itoa(r.StoppedNotRejected), strconv.Itoa(r.Flagged), rate(stopped, r.Writes),
				strconv.Itoa(r.HarnessErrors)})
		}
	}
	var out []report.Table
	for _, t := range []report.Table{gold, muts, rec} {
		if len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// verdictTable lists the stopped writes, one row per write.
func verdictTable(vs []ledgeragent.RecordedVerdict) report.Table {
	t := report.Table{ID: "verdicts", Title: "Writes the gate would have stopped",
		Header: []string{"File", "Simulation", "Message", "Call", "Task", "Trial", "Verdict", "Tool", "Arguments", "Outcome", "Rescored", "Rejected by the environment", "Predicates"}}
	for _, v := range vs {
		var preds []string
		for _, p := range v.Predicates {
			preds = append(preds, p.ID+": "+p.Reason)
		}
		t.Rows = append(t.Rows, []string{v.File, strconv.Itoa(v.SimulationIndex), strconv.Itoa(v.MessageIndex), v.CallID, v.TaskID, strconv.Itoa(v.Trial),
			string(v.Verdict), v.Tool, compactArgs(v.Arguments), v.Outcome, v.Rescored, strconv.FormatBool(v.EnvRejected), strings.Join(preds, "; ")})
	}
	return t
}

// writeVerdictLines prints one line per stopped write and one indented line
// per failing predicate.
func writeVerdictLines(w io.Writer, vs []ledgeragent.RecordedVerdict) error {
	bw := bufio.NewWriter(w)
	for _, v := range vs {
		rej := "not rejected"
		if v.EnvRejected {
			rej = "rejected by the environment"
		}
		fmt.Fprintf(bw, "verdict %s sim=%d msg=%d call=%s task=%s trial=%d %s %s %s %s (rescored: %s) %s\n",
			v.File, v.SimulationIndex, v.MessageIndex, v.CallID, v.TaskID, v.Trial, v.Verdict, v.Tool, compactArgs(v.Arguments), v.Outcome, v.Rescored, rej)
		for _, p := range v.Predicates {
			fmt.Fprintf(bw, "  %s: %s\n", p.ID, p.Reason)
		}
	}
	return bw.Flush()
}

func compactArgs(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// rate is n/d in percent, report.Missing when d is 0.
func rate(n, d int) string {
	if d == 0 {
		return report.Missing
	}
	return strconv.FormatFloat(100*float64(n)/float64(d), 'f', 1, 64)
}
