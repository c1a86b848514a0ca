package tauv1_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestGateAudit: on every split of the four v1 domains, no gold write the
// environment accepts is stopped by the gate, and every named mutation kind
// is caught at least 95% of the time.
func TestGateAudit(t *testing.T) {
	ctx := context.Background()
	for _, vd := range v1Domains {
		t.Run(vd.name, func(t *testing.T) {
			t.Parallel()
			dom := domainOf(t, vd.name)
			for _, split := range dom.Tasks().SplitNames() {
				list := dom.Tasks().Extra[split]
				gold, err := ledgeragent.AuditGold(ctx, dom, list)
				if err != nil {
					t.Fatal(err)
				}
				if gold.FalsePositives != 0 {
					for _, c := range gold.Cases {
						t.Errorf("%s task %s: gold %s stopped by %s: %s", split, c.TaskID, c.Verdict.Tool, c.Verdict.Predicate, c.Verdict.Reason)
					}
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

// TestLedgerGoldLive plays every task of every split with the gold backbone
// through LedgerAgent on τ-Trait's loop (agents.Build, as `run --agent
// ledger --backbone gold` does) and checks each earns full reward.
func TestLedgerGoldLive(t *testing.T) {
	if testing.Short() {
		t.Skip("every task of every split")
	}
	ctx := context.Background()
	root := datatest.Root(t)
	for _, vd := range v1Domains {
		t.Run(vd.name, func(t *testing.T) {
			dom := domainOf(t, vd.name)
			makers, _, err := agents.Build(ctx, agents.Options{Domain: dom, DataRoot: root, Agent: "ledger",
				Backbone: "gold", UserBackbone: "gold", JudgeBackbone: agents.NoJudge})
			if err != nil {
				t.Fatal(err)
			}
			for _, split := range dom.Tasks().SplitNames() {
				list := dom.Tasks().Extra[split]
				full, maxSteps := 0, 0
				for i := range list {
					task := &list[i]
					spec := runner.Spec{Domain: dom, Task: task}
					a, err := makers.Agent(spec)
					if err != nil {
						t.Fatal(err)
					}
					u, err := makers.User(spec)
					if err != nil {
						t.Fatal(err)
					}
					rec, err := orchestrator.Run(ctx, dom, task, a, u, orchestrator.Config{Loop: makers.Loop})
					if err != nil {
						t.Fatal(err)
					}
					steps := 0
					for _, m := range rec.Messages {
						if m.Role == "assistant" {
							steps++
						}
					}
					maxSteps = max(maxSteps, steps)
					if rec.RewardInfo == nil || !evaluator.Success(rec.RewardInfo.Reward) {
						t.Errorf("%s task %s: %s, reward %+v", split, task.ID, rec.TerminationReason, rec.RewardInfo)
						continue
					}
					full++
				}
				t.Logf("%s: %d/%d tasks earn full reward through LedgerAgent (at most %d agent steps of 30)", split, full, len(list), maxSteps)
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
