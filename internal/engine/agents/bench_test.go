package agents

import (
	"context"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// BenchmarkGoldSimulation is the harness's cost of one whole simulation
// with no model: makers, the baseline agent and the τ² user over the gold
// backbone, every tool call, the orchestrator loop and the evaluation. It
// reports the cost per agent turn as well.
func BenchmarkGoldSimulation(b *testing.B) {
	root := datatest.Root(b)
	for _, name := range domains.Names() {
		dom, err := domains.Load(name, root)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			makers, _, err := Build(context.Background(), Options{Domain: dom, DataRoot: root, Backbone: "gold"})
			if err != nil {
				b.Fatal(err)
			}
			ts, err := dom.Tasks().Select(tasks.Selection{})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			turns := 0
			b.ReportAllocs()
			start := time.Now()
			for i := 0; b.Loop(); i++ {
				task := &ts[i%len(ts)]
				spec := runner.Spec{Domain: dom, Task: task, Seed: 1}
				a, _ := makers.Agent(spec)
				u, _ := makers.User(spec)
				rec, err := orchestrator.Run(ctx, dom, task, a, u, orchestrator.Config{})
				if err != nil {
					b.Fatal(err)
				}
				if !rec.Success() {
					b.Fatalf("task %s failed", task.ID)
				}
				for _, m := range rec.Messages {
					if m.Role == "assistant" {
						turns++
					}
				}
			}
			if turns > 0 {
				b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(turns), "ns/agent-turn")
			}
		})
	}
}
