package gold_test

import (
	"context"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/engine/gold"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func load(tb testing.TB, name, split string) (envs.Domain, []tasks.Task) {
	tb.Helper()
	dom, err := domains.Load(name, datatest.Root(tb))
	if err != nil {
		tb.Fatal(err)
	}
	ts, err := dom.Tasks().Select(tasks.Selection{Split: split})
	if err != nil {
		tb.Fatal(err)
	}
	return dom, ts
}

// TestGoldTrajectoryShape checks what verify builds: the greeting, the gold
// calls by their requestors with their results, and a user stop.
func TestGoldTrajectoryShape(t *testing.T) {
	t.Parallel()
	dom, ts := load(t, "telecom", "small")
	msgs, calls, err := gold.Trajectory(context.Background(), dom, &ts[0])
	if err != nil {
		t.Fatal(err)
	}
	if msgs[0].Content != gold.Greeting || msgs[len(msgs)-1].Content != "Thank you. ###STOP###" {
		t.Errorf("trajectory does not start with the greeting and end with a stop")
	}
	if len(calls) != len(ts[0].GoldActions()) {
		t.Errorf("%d calls for %d gold actions", len(calls), len(ts[0].GoldActions()))
	}
	for i, c := range calls {
		if string(c.Requestor) != ts[0].GoldActions()[i].By() {
			t.Errorf("call %d requestor %s; want %s", i, c.Requestor, ts[0].GoldActions()[i].By())
		}
	}
}

// BenchmarkVerify measures verify per domain and split: one op is every task
// of the split (fresh environment, gold trajectory, evaluation with its gold
// replay).
func BenchmarkVerify(b *testing.B) {
	cases := []struct{ domain, split string }{
		{"airline", "base"}, {"retail", "base"}, {"telecom", "base"}, {"telecom", "full"}, {"telehealth", "test"},
	}
	for _, c := range cases {
		b.Run(c.domain+"/"+c.split, func(b *testing.B) {
			dom, ts := load(b, c.domain, c.split)
			b.ReportAllocs()
			for b.Loop() {
				for i := range ts {
					r, err := gold.Verify(context.Background(), dom, &ts[i], evaluator.Options{})
					if err != nil || !r.Passed {
						b.Fatalf("task %s: %v", ts[i].ID, err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ts))/1e3, "µs/task")
		})
	}
}

// BenchmarkEvaluate measures the evaluator alone on one retail task's gold
// trajectory (replay of the trajectory's writes, gold replay, DB comparison,
// action and communicate checks).
func BenchmarkEvaluate(b *testing.B) {
	dom, ts := load(b, "retail", "base")
	task := &ts[5]
	msgs, _, err := gold.Trajectory(context.Background(), dom, task)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := evaluator.Evaluate(context.Background(), dom, task, msgs, evaluator.UserStop, evaluator.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
