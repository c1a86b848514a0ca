package banking

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/engine/gold"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

var domains datatest.Cache[*Domain]

func domainForTest(tb testing.TB) *Domain {
	tb.Helper()
	return domains.Get(tb, func(root string) (*Domain, error) { return LoadVariant(root, Options{Variant: "no_knowledge"}) })
}

// TestGoldTrajectories plays every task's gold actions and checks the
// reward is 1 (upstream: all 97 earn 1.0).
func TestGoldTrajectories(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	all, err := d.Tasks().All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 97 {
		t.Errorf("%d tasks; want 97", len(all))
	}
	ctx := context.Background()
	pass := 0
	for i := range all {
		task := &all[i]
		res, err := gold.Verify(ctx, d, task, evaluator.Options{})
		if err != nil {
			t.Errorf("task %s: %v", task.ID, err)
			continue
		}
		if res.Reward != 1 {
			t.Errorf("task %s: reward %v (%+v %v)", task.ID, res.Reward, res.Info.RewardBreakdown, res.Info.Notes)
			for _, c := range res.Calls {
				if c.Error || strings.HasPrefix(c.Output, "Error") {
					t.Logf("  %s(%s) -> %.300s", c.Name, c.Arguments, c.Output)
				}
			}
			continue
		}
		pass++
	}
	t.Logf("%d/%d gold trajectories earn 1.0", pass, len(all))
}
