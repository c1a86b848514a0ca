package airline

import (
	"context"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/engine/gold"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// TestVerifyBase checks that every base task's gold trajectory earns full
// reward (DB and COMMUNICATE; NL assertions are not in the airline basis).
func TestVerifyBase(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	base, err := d.Tasks().Select(tasks.Selection{Split: "base"})
	if err != nil {
		t.Fatal(err)
	}
	if len(base) != 50 {
		t.Fatalf("base split has %d tasks; want 50", len(base))
	}
	ctx := context.Background()
	passed := 0
	for i := range base {
		task := &base[i]
		res, err := gold.Verify(ctx, d, task, evaluator.Options{})
		if err != nil {
			t.Errorf("task %s: %v", task.ID, err)
			continue
		}
		if !res.Passed {
			t.Errorf("task %s: reward %v; info %+v", task.ID, res.Reward, res.Info)
			continue
		}
		passed++
	}
	t.Logf("%d/%d base tasks pass gold verification", passed, len(base))
}
