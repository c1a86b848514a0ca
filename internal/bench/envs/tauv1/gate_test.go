package tauv1_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/score/gateaudit"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestGateAudit: on every split of the four v1 domains, no gold write the
// environment accepts is stopped by the gate, and every named mutation kind
// is caught at least 95% of the time.
func TestGateAudit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := datatest.Repo(t, data.TauBench, data.TauTrait)
	for _, vd := range v1Domains {
		t.Run(vd.name, func(t *testing.T) {
			t.Parallel()
			dom := domainOf(t, vd.name)
			for _, split := range dom.Tasks().SplitNames() {
				list := racetest.Sample(dom.Tasks().Extra[split], 48)
				// The live gold audit: every task played by the gold
				// backbone through LedgerAgent on τ-Trait's loop, as `run
				// --agent ledger --backbone gold` plays it.
				gold, err := gateaudit.AuditGold(ctx, root, dom, list)
				if err != nil {
					t.Fatal(err)
				}
				if gold.Passed != gold.Tasks || gold.HarnessErrors != 0 {
					t.Errorf("%s: %d of %d tasks passed live, %d harness errors", split, gold.Passed, gold.Tasks, gold.HarnessErrors)
				}
				for _, l := range gold.Lost {
					t.Errorf("%s task %s lost live: %s, reward %v after %d steps %s", split, l.TaskID, l.Termination, l.Reward, l.Steps, l.Error)
				}
				for _, c := range gold.Cases {
					t.Errorf("%s task %s: gold %s stopped by %s: %s", split, c.TaskID, c.Verdict.Tool, c.Verdict.Predicate, c.Verdict.Reason)
				}
				muts, err := ledgeragent.AuditMutations(ctx, dom, list)
				if err != nil {
					t.Fatal(err)
				}
				var kinds []string
				for _, m := range muts {
					kinds = append(kinds, m.Kind)
					if float64(m.Caught) < 0.95*float64(m.Total) {
						t.Errorf("%s %s: %d of %d mutations caught (missed in tasks %v)", split, m.Kind, m.Caught, m.Total, m.Missed)
					}
				}
				t.Logf("%s: gold writes %d, false positives %d (rejected by the environment %d); mutation kinds %d: %s",
					split, gold.Writes, gold.FalsePositives, gold.RejectedByEnv, len(muts), strings.Join(kinds, ", "))
			}
		})
	}
}

var (
	cliMu      sync.Mutex
	cliDomains = map[string]envs.Domain{}
)

// domainOf loads a v1 domain as the CLI does (with its ledger policy), once
// per test binary.
func domainOf(t *testing.T, name string) envs.Domain {
	t.Helper()
	root := datatest.Repo(t, data.TauBench, data.TauTrait)
	cliMu.Lock()
	defer cliMu.Unlock()
	if d, ok := cliDomains[name]; ok {
		return d
	}
	d, err := domains.Load(name, root)
	if err != nil {
		t.Fatal(err)
	}
	cliDomains[name] = d
	return d
}
