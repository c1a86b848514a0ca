package tautrait_test

import (
	"context"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tautraittelecom"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestGoldTelecom runs the gold backbone through τ-Trait's loop on every
// task of every split of tautrait-telecom, as `run --backbone gold` does,
// with the baseline agent (the gold calls only) and with LedgerAgent (the
// evidence reads before each write, the gate judging every write): every
// task earns full reward, and the gate refuses no gold write.
func TestGoldTelecom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := datatest.Root(t)
	dom, err := tautraittelecom.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"baseline", "ledger"} {
		makers, _, err := agents.Build(ctx, agents.Options{Domain: dom, DataRoot: root, Agent: agent, Backbone: "gold",
			UserBackbone: "gold", JudgeBackbone: agents.NoJudge})
		if err != nil {
			t.Fatal(err)
		}
		full, total := 0, 0
		for _, split := range dom.Tasks().SplitNames() {
			list := dom.Tasks().Extra[split]
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
				total++
				if rec.RewardInfo != nil && rec.RewardInfo.Reward == 1 {
					full++
				} else {
					t.Errorf("%s, %s task %s: reward %v (%s, %s)", agent, split, task.ID, rec.RewardInfo, rec.TerminationReason, rec.AgentInfo)
				}
			}
		}
		t.Logf("%s: %d/%d tasks earn full reward", agent, full, total)
	}
}
