package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/internal/domains"
	"github.com/ledgerbench/ledgerbench/ledgeragent"
	"github.com/ledgerbench/ledgerbench/results"
	"github.com/ledgerbench/ledgerbench/tasks"
)

func newCmdGateAudit(s *Streams, g *globalOptions) *cobra.Command {
	var doms []string
	var split string
	var recorded []string
	var asJSON, strict bool
	cmd := &cobra.Command{
		Use:   "gate-audit [--domain D…] [--recorded FILE…] [--json]",
		Short: "Measure the policy gate: false positives on gold, recall on mutations, verdicts on recorded runs",
		Long: `Three offline reports per domain:
  gold       every task's gold writes, preceded by the reads they need, through the gate;
             every gold write should be allowed (false positives are listed)
  mutations  gold writes turned into named policy violations; recall per kind
  recorded   (--recorded FILE…) every write of recorded τ²-bench runs judged in shadow mode
             against the ledger built from that run's own reads, split by run outcome`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
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
			if !asJSON {
				fmt.Fprintln(tw, "REPORT\tDOMAIN\tKIND\tWRITES/TOTAL\tFLAGGED\tRATE")
			}
			loaded := map[string]envs.Domain{}
			for _, name := range doms {
				dom, err := domains.Load(name, dir)
				if err != nil {
					return err
				}
				loaded[name] = dom
				if _, ok := ledgeragent.PolicyOf(dom); !ok {
					fmt.Fprintf(s.ErrOut, "%s: no gate predicates; skipped\n", name)
					continue
				}
				sel, err := dom.Tasks().Select(tasks.Selection{Split: split})
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
				if asJSON {
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
				fmt.Fprintf(tw, "gold\t%s\t-\t%d\t%d false positives (%d gold writes rejected by the environment, not judged)\t%s\n", name, gold.Writes, gold.FalsePositives, gold.RejectedByEnv, rate(gold.FalsePositives, gold.Writes))
				for _, m := range muts {
					fmt.Fprintf(tw, "mutations\t%s\t%s\t%d\t%d caught\t%s\n", name, m.Kind, m.Total, m.Caught, rate(m.Caught, m.Total))
				}
			}
			for _, file := range recorded {
				f, err := results.ReadTau2(file)
				if err != nil {
					return err
				}
				dname, err := tau2Domain(f)
				if err != nil {
					return fmt.Errorf("%s: %w", file, err)
				}
				dom := loaded[dname]
				if dom == nil {
					if dom, err = domains.Load(dname, dir); err != nil {
						return err
					}
				}
				runs := make([]ledgeragent.RecordedRun, 0, len(f.Simulations))
				for i, sim := range f.Simulations {
					r := ledgeragent.RecordedRun{Index: i, TaskID: sim.TaskID, Trial: sim.Trial, Messages: sim.Trajectory()}
					if sim.RewardInfo != nil {
						r.Reward = sim.RewardInfo.Reward
					}
					runs = append(runs, r)
				}
				reps, _, err := ledgeragent.AuditRecorded(dom, filepath.Base(file), runs, ledgeragent.ShadowOptions{})
				if err != nil {
					return err
				}
				for _, r := range reps {
					if asJSON {
						if err := emit(r); err != nil {
							return err
						}
						continue
					}
					fmt.Fprintf(tw, "recorded\t%s\t%s runs=%d (%s)\t%d\t%d revise, %d block; %d runs flagged\t%s\n",
						dname, r.Outcome, r.Runs, r.File, r.Writes, r.Revise, r.Block, r.Flagged, rate(r.Revise+r.Block, r.Writes))
				}
			}
			if !asJSON {
				tw.Flush()
			}
			if strict && totalFP > 0 {
				return fmt.Errorf("gate-audit: %w: %d gold writes were not allowed", ErrFailed, totalFP)
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&doms, "domain", nil, "domains (default: all with gate predicates)")
	cmd.Flags().StringVar(&split, "split", "", "task split for the gold and mutation reports (default: each domain's default)")
	cmd.Flags().StringSliceVar(&recorded, "recorded", nil, "τ²-bench results files to audit in shadow mode")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per line")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 3 if any gold write is not allowed")
	return cmd
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
