package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func retail(b *testing.B) (envs.Domain, []tasks.Task) {
	b.Helper()
	root := datatest.Root(b)
	dom, err := domains.Load("retail", root)
	if err != nil {
		b.Fatal(err)
	}
	ts, err := dom.Tasks().Select(tasks.Selection{})
	if err != nil {
		b.Fatal(err)
	}
	return dom, ts
}

// benchSimulations plays b.N simulations (cycling over the retail tasks)
// with makers, and reports the time per simulation and per agent turn (an
// assistant message), evaluation included.
func benchSimulations(b *testing.B, dom envs.Domain, ts []tasks.Task, makers runner.Makers) {
	units := runner.Units(ts, runner.TrialSeeds(300, 1))
	turns := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		u := units[i%len(units)]
		spec := runner.Spec{Domain: dom, Task: u.Task, Trial: u.Trial, Seed: u.Seed}
		agent, err := makers.Agent(spec)
		if err != nil {
			b.Fatal(err)
		}
		user, err := makers.User(spec)
		if err != nil {
			b.Fatal(err)
		}
		rec, err := orchestrator.Run(context.Background(), dom, u.Task, agent, user, orchestrator.Config{})
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range rec.Messages {
			if m.Role == message.Assistant {
				turns++
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(turns), "ns/agent-turn")
	b.ReportMetric(float64(turns)/float64(b.N), "turns/sim")
}

// BenchmarkSimulationGold is the harness's own cost: the gold backbone
// answers at once, so everything measured is orchestration, the baseline
// agent and user simulator bookkeeping, tool execution and evaluation.
func BenchmarkSimulationGold(b *testing.B) {
	dom, ts := retail(b)
	makers, _, err := agents.Build(context.Background(), agents.Options{Domain: dom, DataRoot: datatest.Root(b), Backbone: "gold", JudgeBackbone: agents.NoJudge})
	if err != nil {
		b.Fatal(err)
	}
	benchSimulations(b, dom, ts, makers)
}

// BenchmarkSimulationFakeAPI adds the model client: the baseline agent and
// the τ²-bench user call a local fake API that answers at once, so the
// difference from BenchmarkSimulationGold is the client's request encoding,
// HTTP and response decoding.
func BenchmarkSimulationFakeAPI(b *testing.B) {
	dom, ts := retail(b)
	srv := openaitest.NewHandlerServer(b, func(r *openaitest.Request) openaitest.Reply {
		if len(r.Tools) > 0 {
			for _, m := range r.Messages {
				if m.Role == "assistant" && len(m.ToolCalls) > 0 {
					return openaitest.Text("Done. Goodbye.")
				}
			}
			return openaitest.Calls(openaitest.Call("find_user_id_by_name_zip", `{"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"}`))
		}
		for _, m := range r.Messages {
			if m.Role == "assistant" {
				return openaitest.Text("Thanks. ###STOP###")
			}
		}
		return openaitest.Text("Hi, I need help.")
	})
	cfg, err := llm.Decode(stringsReader(fmt.Sprintf("backbones:\n  fake:\n    base_url: %s\n    model: m\n", srv.BaseURL())))
	if err != nil {
		b.Fatal(err)
	}
	pool := llm.NewPool(cfg, llm.Options{})
	makers, _, err := agents.Build(context.Background(), agents.Options{Domain: dom, DataRoot: datatest.Root(b), Backbone: "fake", JudgeBackbone: agents.NoJudge, Pool: pool})
	if err != nil {
		b.Fatal(err)
	}
	benchSimulations(b, dom, ts, makers)
}

// BenchmarkRecordWrite is the cost of appending one record of a typical
// size to simulations.jsonl.
func BenchmarkRecordWrite(b *testing.B) {
	dom, ts := retail(b)
	makers, _, err := agents.Build(context.Background(), agents.Options{Domain: dom, DataRoot: datatest.Root(b), Backbone: "gold", JudgeBackbone: agents.NoJudge})
	if err != nil {
		b.Fatal(err)
	}
	sink := &lastSink{}
	if _, err := runner.Run(context.Background(), runner.Config{Domain: dom, Makers: makers}, runner.Units(ts[:1], []int64{1}), sink); err != nil {
		b.Fatal(err)
	}
	w, err := results.OpenWriter(filepath.Join(b.TempDir(), results.SimulationsFile))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Write(sink.rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunnerGold runs all retail tasks through the runner (concurrency
// GOMAXPROCS, records to a JSONL file) and reports simulations per second.
func BenchmarkRunnerGold(b *testing.B) {
	dom, ts := retail(b)
	makers, _, err := agents.Build(context.Background(), agents.Options{Domain: dom, DataRoot: datatest.Root(b), Backbone: "gold", JudgeBackbone: agents.NoJudge})
	if err != nil {
		b.Fatal(err)
	}
	units := runner.Units(ts, runner.TrialSeeds(300, 1))
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		path := filepath.Join(b.TempDir(), fmt.Sprint(i)+".jsonl")
		w, err := results.OpenWriter(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := runner.Run(context.Background(), runner.Config{Domain: dom, Makers: makers, Concurrency: 8}, units, w); err != nil {
			b.Fatal(err)
		}
		w.Close()
		os.Remove(path)
	}
	b.ReportMetric(float64(b.N*len(units))/time.Since(start).Seconds(), "sims/s")
}

type lastSink struct{ rec results.Record }

func (s *lastSink) Write(r results.Record) error { s.rec = r; return nil }

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
