package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/evaluator"
	"github.com/ledgerbench/ledgerbench/evaluator/rescore"
	"github.com/ledgerbench/ledgerbench/internal/domains"
	"github.com/ledgerbench/ledgerbench/internal/parallel"
	"github.com/ledgerbench/ledgerbench/ledgeragent"
	"github.com/ledgerbench/ledgerbench/results"
	"github.com/ledgerbench/ledgerbench/tasks"
)

type gateAuditOptions struct {
	DataDir string
	// Domains for the gold and mutation reports (empty: every base domain).
	Domains []string
	Split   string
	// Recorded are τ²-bench results files (globs expanded) to audit in
	// shadow mode.
	Recorded []string
	JSON     bool
	Verbose  bool
	Strict   bool
}

func newCmdGateAudit(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *gateAuditOptions) error) *cobra.Command {
	opts := &gateAuditOptions{}
	cmd := &cobra.Command{
		Use:   "gate-audit [--domain D…] [--recorded] [FILE|GLOB…] [--json] [-v]",
		Short: "Measure the policy gate: false positives on gold, recall on mutations, verdicts on recorded runs",
		Long: `Three offline reports per domain:
  gold       every task's gold writes, preceded by the reads they need, through the gate;
             every gold write should be allowed (false positives are listed)
  mutations  gold writes turned into named policy violations; recall per kind
  recorded   (FILE…) every write of recorded τ²-bench runs judged in shadow mode against
             the ledger built from that run's own reads (a message's writes are judged
             before its own reads return, as live), split by run outcome as recorded and
             as rescored against the pinned tasks; stopped writes split into those the
             environment rejected anyway and those it let through. Solo runs
             (llm_agent_solo / dummy_user) are audited as solo runs.

Recorded files are the arguments and the values of --recorded; quoted globs are
expanded. --json prints one object per line, with one "verdict" object per write the
gate would not have allowed; -v prints the same per-verdict lines in the text output.`,
		Example: `  ledgerbench gate-audit --domain airline
  ledgerbench gate-audit --recorded ../shared/upstream/trajectories/sierra-research+tau2-bench/*.json
  ledgerbench gate-audit -v --json 'runs/*.json'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			opts.DataDir = dir
			files, err := expandRecorded(append(slices.Clone(opts.Recorded), args...))
			if err != nil {
				return usageError{err}
			}
			opts.Recorded = files
			if runF != nil {
				return runF(cmd.Context(), s, opts)
			}
			return runGateAudit(cmd.Context(), s, opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Domains, "domain", nil, "domains (default: all with gate predicates)")
	cmd.Flags().StringVar(&opts.Split, "split", "", "task split for the gold and mutation reports (default: each domain's default)")
	cmd.Flags().StringSliceVar(&opts.Recorded, "recorded", nil, "τ²-bench results files or globs to audit in shadow mode (more may follow as arguments)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON object per line")
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "print every write the gate would not have allowed")
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "exit 3 if any gold write is not allowed")
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
	doms := opts.Domains
	if len(doms) == 0 {
		for _, n := range domains.Names() {
			if !strings.Contains(n, "-") { // variants share their base domain's gate
				doms = append(doms, n)
			}
		}
	}
	emit := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(s.Out, string(b))
		return err
	}
	tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
	totalFP := 0
	if !opts.JSON {
		fmt.Fprintln(tw, "REPORT\tDOMAIN\tKIND\tWRITES\tRESULT\tRATE")
	}
	loaded := map[string]envs.Domain{}
	for _, name := range doms {
		dom, err := domains.Load(name, opts.DataDir)
		if err != nil {
			return err
		}
		loaded[name] = dom
		if _, ok := ledgeragent.PolicyOf(dom); !ok {
			fmt.Fprintf(s.ErrOut, "%s: no gate predicates; skipped\n", name)
			continue
		}
		sel, err := dom.Tasks().Select(tasks.Selection{Split: opts.Split})
		if err != nil {
			return err
		}
		gold, err := ledgeragent.AuditGold(ctx, dom, sel)
		if err != nil {
			return err
		}
		totalFP += gold.FalsePositives
		muts, err := ledgeragent.AuditMutations(ctx, dom, sel)
		if err != nil {
			return err
		}
		if opts.JSON {
			if err := emit(gold); err != nil {
				return err
			}
			for _, m := range muts {
				if err := emit(m); err != nil {
					return err
				}
			}
			continue
		}
		fmt.Fprintf(tw, "gold\t%s\t-\t%d\t%d false positives (%d gold writes rejected by the environment, not judged)\t%s false positives\n", name, gold.Writes, gold.FalsePositives, gold.RejectedByEnv, rate(gold.FalsePositives, gold.Writes))
		for _, m := range muts {
			fmt.Fprintf(tw, "mutations\t%s\t%s\t%d\t%d caught\t%s recall\n", name, m.Kind, m.Total, m.Caught, rate(m.Caught, m.Total))
		}
	}
	var stops []ledgeragent.RecordedVerdict
	for _, file := range opts.Recorded {
		reps, vs, err := auditRecordedFile(ctx, file, opts.DataDir, loaded)
		if err != nil {
			return err
		}
		for _, r := range reps {
			if opts.JSON {
				if err := emit(r); err != nil {
					return err
				}
				continue
			}
			stopped := r.Revise + r.Block
			fmt.Fprintf(tw, "recorded\t%s\t%s (rescored: %s) runs=%d (%s)\t%d\t%d stopped: %d revise, %d block; %d rejected by the environment anyway, %d not rejected; %d runs flagged\t%s of writes stopped\n",
				r.Domain, r.Outcome, r.Rescored, r.Runs, r.File, r.Writes, stopped, r.Revise, r.Block, r.StoppedEnvRejected, r.StoppedNotRejected, r.Flagged, rate(stopped, r.Writes))
		}
		if opts.JSON {
			for _, v := range vs {
				if err := emit(v); err != nil {
					return err
				}
			}
		}
		stops = append(stops, vs...)
	}
	if !opts.JSON {
		tw.Flush()
		if opts.Verbose {
			writeVerdictLines(s.Out, stops)
		}
	}
	if opts.Strict && totalFP > 0 {
		return fmt.Errorf("gate-audit: %w: %d gold writes were not allowed", ErrFailed, totalFP)
	}
	return nil
}

// writeVerdictLines prints one line per stopped write and one indented line
// per failing predicate.
func writeVerdictLines(w io.Writer, vs []ledgeragent.RecordedVerdict) {
	for _, v := range vs {
		rej := "not rejected"
		if v.EnvRejected {
			rej = "rejected by the environment"
		}
		fmt.Fprintf(w, "verdict %s sim=%d msg=%d call=%s task=%s trial=%d %s %s %s %s (rescored: %s) %s\n",
			v.File, v.SimulationIndex, v.MessageIndex, v.CallID, v.TaskID, v.Trial, v.Verdict, v.Tool, compactArgs(v.Arguments), v.Outcome, v.Rescored, rej)
		for _, p := range v.Predicates {
			fmt.Fprintf(w, "  %s: %s\n", p.ID, p.Reason)
		}
	}
}

func compactArgs(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// auditRecordedFile audits one τ²-bench results file in shadow mode.
func auditRecordedFile(ctx context.Context, file, dataDir string, loaded map[string]envs.Domain) ([]ledgeragent.RecordedReport, []ledgeragent.RecordedVerdict, error) {
	f, err := results.ReadTau2(file)
	if err != nil {
		return nil, nil, err
	}
	name, err := tau2Domain(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	// A solo run (upstream's solo agent with its dummy user) is audited in
	// the domain's solo mode: no user, the agent holds the phone's tools.
	load, key := domains.Load, name
	if results.IsSolo(f.Info) {
		load, key = domains.LoadSolo, name+" (solo)"
	}
	dom := loaded[key]
	if dom == nil {
		if dom, err = load(name, dataDir); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		loaded[key] = dom
	}
	recs, err := results.FromTau2(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	runs, err := parallel.Map(ctx, len(recs), func(gctx context.Context, i int) (ledgeragent.RecordedRun, error) {
		r := &recs[i]
		run := ledgeragent.RecordedRun{Index: i, TaskID: r.TaskID, Trial: r.Trial, Messages: r.Messages}
		if r.RewardInfo != nil {
			run.Reward = r.RewardInfo.Reward
		}
		task, err := findTask(dom.Tasks(), r.TaskID)
		if scored, ok := rescore.ScoredTaskID(r); ok && scored != r.TaskID {
			if t, err2 := findTask(dom.Tasks(), scored); err2 == nil {
				task, err = t, nil // the recorded evaluation used this task's criteria
			}
		}
		if err != nil {
			return run, nil // not in the pinned tasks: not rescored
		}
		ours, err := evaluator.Evaluate(gctx, dom, task, r.Messages, r.TerminationReason, evaluator.Options{Lenient: true})
		if err != nil {
			return run, fmt.Errorf("%s: rescore task %s trial %d: %w", file, r.TaskID, r.Trial, err)
		}
		reward, _ := rescore.Reward(r.RewardInfo, &ours)
		run.Rescored = &reward
		return run, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return ledgeragent.AuditRecorded(dom, filepath.Base(file), runs)
}

func rate(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

// tau2Domain reads the domain name of a τ²-bench results file.
func tau2Domain(f *results.Tau2File) (string, error) {
	var info struct {
		EnvironmentInfo struct {
			DomainName string `json:"domain_name"`
		} `json:"environment_info"`
	}
	if err := json.Unmarshal(f.Info, &info); err != nil || info.EnvironmentInfo.DomainName == "" {
		return "", fmt.Errorf("no info.environment_info.domain_name")
	}
	return info.EnvironmentInfo.DomainName, nil
}
