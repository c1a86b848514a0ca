package agents

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

var full = flag.Bool("full", false, "also run the gold test on telecom's full task set (2285 tasks)")

// loadDomains loads every registered domain whose data is present.
func loadDomains(t *testing.T) []envs.Domain {
	t.Helper()
	root := datatest.Root(t)
	var out []envs.Domain
	for _, name := range domains.Names() {
		d, err := domains.LoadOffline(name, root)
		if err != nil {
			t.Errorf("load %s: %v", name, err)
			continue
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		t.Skip("no domain registered yet")
	}
	return out
}

func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// runSplit plays every task of a split through orchestrator.Run with the
// makers (on their loop: τ-Trait's for telehealth) and returns the records
// in task order.
func runSplit(t *testing.T, dom envs.Domain, makers runner.Makers, ts []tasks.Task, seed int64) []results.Record {
	t.Helper()
	recs := make([]results.Record, len(ts))
	g, ctx := errgroup.WithContext(t.Context())
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range ts {
		g.Go(func() error {
			spec := runner.Spec{Domain: dom, Task: &ts[i], Seed: seed}
			a, err := makers.Agent(spec)
			if err != nil {
				return fmt.Errorf("task %s: agent: %w", ts[i].ID, err)
			}
			u, err := makers.User(spec)
			if err != nil {
				return fmt.Errorf("task %s: user: %w", ts[i].ID, err)
			}
			rec, err := orchestrator.Run(ctx, dom, &ts[i], a, u, orchestrator.Config{Now: fixedNow, Greeting: makers.Greeting, Loop: makers.Loop})
			if err != nil {
				return fmt.Errorf("task %s: %w", ts[i].ID, err)
			}
			recs[i] = rec
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return recs
}

func splitOf(t *testing.T, dom envs.Domain) []tasks.Task {
	t.Helper()
	ts, err := dom.Tasks().Select(tasks.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// allTasks returns every task of every split and task list of a domain,
// once each (same id and scenario); lists of more than 500 tasks (telecom's full set) only with
// -full.
func allTasks(t *testing.T, dom envs.Domain) []tasks.Task {
	t.Helper()
	seen := map[string]bool{}
	var out []tasks.Task
	for _, split := range append([]string{"all"}, dom.Tasks().SplitNames()...) {
		ts, err := dom.Tasks().Select(tasks.Selection{Split: split})
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) > 500 && !*full {
			t.Logf("%s: skipping the %d tasks of %q (run with -full)", dom.Name(), len(ts), split)
			continue
		}
		for _, task := range ts {
			// Splits of one task file share ids; separate task lists
			// (telehealth's dev, test, train) may reuse them.
			key := task.ID + "\x00" + task.UserScenario.String()
			if !seen[key] {
				seen[key] = true
				out = append(out, task)
			}
		}
	}
	return out
}

// TestGoldEveryDomain: the baseline agent and the τ² (or τ-Trait) user
// simulator on the gold backbone reach reward 1 on every task of every
// domain, through the real orchestrator on the domain's default loop
// (τ-Trait's, at most 30 steps, for telehealth).
func TestGoldEveryDomain(t *testing.T) {
	t.Parallel()
	for _, dom := range loadDomains(t) {
		t.Run(dom.Name(), func(t *testing.T) {
			makers, j, err := Build(t.Context(), Options{Domain: dom, DataRoot: datatest.Root(t), Backbone: "gold"})
			if err != nil {
				t.Fatal(err)
			}
			if j != nil {
				t.Errorf("offline run got a judge")
			}
			// Under -race a sample: the detector needs the simulations
			// concurrent, not every task (the plain run takes all).
			ts := racetest.Sample(allTasks(t, dom), 48)
			start := time.Now()
			recs := runSplit(t, dom, makers, ts, 300)
			el := time.Since(start)
			pass := 0
			for i, r := range recs {
				if r.Success() {
					pass++
					continue
				}
				info, _ := json.Marshal(r.RewardInfo)
				t.Errorf("task %s: termination %s, reward %v, error %q: %s", ts[i].ID, r.TerminationReason, r.Reward(), r.Error, info)
			}
			t.Logf("%s: %d/%d tasks pass with gold in %v (%.2f ms/task)", dom.Name(), pass, len(ts), el, float64(el.Microseconds())/1000/float64(len(ts)))
		})
	}
}

// TestSimEveryDomain: the sim backbone is deterministic per seed, reports
// its faults, fails some tasks at high rates, and equals gold at rate 0.
func TestSimEveryDomain(t *testing.T) {
	t.Parallel()
	for _, dom := range loadDomains(t) {
		t.Run(dom.Name(), func(t *testing.T) {
			ts := racetest.Sample(splitOf(t, dom), 48)
			if testing.Short() && len(ts) > 30 {
				ts = ts[:30]
			}
			build := func(name string) runner.Makers {
				m, _, err := Build(t.Context(), Options{Domain: dom, DataRoot: datatest.Root(t), Backbone: name})
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			zero := runSplit(t, dom, build("sim:stale=0,violation=0,miss=0"), ts, 7)
			for i, r := range zero {
				if !r.Success() {
					t.Errorf("task %s: sim at rate 0 failed: %s %v", ts[i].ID, r.TerminationReason, r.Reward())
				}
			}
			name := "sim:stale=0.3,violation=0.3,miss=0.2"
			a := runSplit(t, dom, build(name), ts, 7)
			b := runSplit(t, dom, build(name), ts, 7)
			kinds := map[string]int{}
			applied, failed := 0, 0
			for i := range a {
				ja, _ := json.Marshal(a[i].Messages)
				jb, _ := json.Marshal(b[i].Messages)
				if string(ja) != string(jb) || string(a[i].AgentInfo) != string(b[i].AgentInfo) {
					t.Errorf("task %s: two sim runs with the same seed differ", ts[i].ID)
				}
				var info struct {
					Backbone offline.AgentReport `json:"backbone"`
				}
				if err := json.Unmarshal(a[i].AgentInfo, &info); err != nil {
					t.Fatalf("agent info: %v", err)
				}
				if !info.Backbone.Simulated {
					t.Errorf("task %s: sim report not labelled simulated", ts[i].ID)
				}
				n := 0
				for _, f := range info.Backbone.Faults {
					if f.Applied {
						kinds[f.Kind]++
						n++
					}
				}
				if n > 0 {
					applied++
				}
				if !a[i].Success() {
					failed++
				}
			}
			t.Logf("%s: %d tasks, %d with injected faults, %d failed; faults by kind %v", dom.Name(), len(ts), applied, failed, kinds)
			if applied == 0 || failed == 0 {
				t.Errorf("sim injected no effective faults (applied %d, failed %d)", applied, failed)
			}
		})
	}
}

// TestReplayRecorded replays every recorded τ²-bench run of a present domain
// and checks that the replayed conversation is the recorded one.
func TestReplayRecorded(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"airline": "sierra-research+tau2-bench/claude-sonnet-4-5_airline_default_gpt4.1_1trials.json",
		"retail":  "sierra-research+tau2-bench/toolorchestra_retail_gpt-5_1trial.json",
		"telecom": "sierra-research+tau2-bench/gpt-4.1_telecom_default_gpt-4.1_1trials.json",
	}
	for _, dom := range loadDomains(t) {
		file, ok := files[dom.Name()]
		if !ok {
			continue
		}
		t.Run(dom.Name(), func(t *testing.T) {
			path := datatest.Trajectories(t) + "/" + file
			rec, err := offline.LoadRecording(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := results.ReadTau2(path)
			if err != nil {
				t.Fatal(err)
			}
			makers, _, err := Build(t.Context(), Options{Domain: dom, DataRoot: datatest.Root(t), Backbone: "replay:" + path})
			if err != nil {
				t.Fatal(err)
			}
			all, err := dom.Tasks().Select(tasks.Selection{Split: "all"})
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]*tasks.Task{}
			for i := range all {
				byID[all[i].ID] = &all[i]
			}
			// Recordings made with another task version reuse ids for
			// other scenarios: compare rewards only where the recorded
			// task's reason for call is ours.
			sameTask := map[string]bool{}
			for _, raw := range f.Tasks {
				var rt tasks.Task
				if json.Unmarshal(raw, &rt) == nil {
					if ours := byID[rt.ID]; ours != nil && ours.UserScenario.String() == rt.UserScenario.String() {
						sameTask[rt.ID] = true
					}
				}
			}
			var mu sync.Mutex
			same, rewardAgree, comparable, n := 0, 0, 0, 0
			g, ctx := errgroup.WithContext(t.Context())
			g.SetLimit(runtime.GOMAXPROCS(0))
			for _, s := range racetest.Sample(f.Simulations, 48) {
				task := byID[s.TaskID]
				if task == nil {
					t.Errorf("recorded task %s not in the task set", s.TaskID)
					continue
				}
				g.Go(func() error {
					spec := runner.Spec{Domain: dom, Task: task, Trial: s.Trial}
					a, err := makers.Agent(spec)
					if err != nil {
						return err
					}
					u, err := makers.User(spec)
					if err != nil {
						return err
					}
					r, err := orchestrator.Run(ctx, dom, task, a, u, orchestrator.Config{Now: fixedNow, Greeting: makers.Greeting, Loop: makers.Loop})
					if err != nil {
						return fmt.Errorf("task %s: %w", task.ID, err)
					}
					want := s.Trajectory()
					ok := sameTurns(r.Messages, want)
					mu.Lock()
					defer mu.Unlock()
					n++
					if ok {
						same++
					} else {
						t.Logf("task %s: replayed conversation differs (termination %s, recorded %s)", task.ID, r.TerminationReason, s.TerminationReason)
					}
					if sameTask[task.ID] && s.RewardInfo != nil {
						comparable++
						if evaluator.Success(r.Reward()) == evaluator.Success(s.RewardInfo.Reward) {
							rewardAgree++
						} else {
							t.Logf("task %s: success %v, recorded %v", task.ID, r.Success(), evaluator.Success(s.RewardInfo.Reward))
						}
					}
					return nil
				})
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d/%d replays reproduce the recorded turns (%d recorded tasks); success agrees with the recording on %d of the %d whose task matches ours",
				dom.Name(), same, n, len(rec.TaskIDs()), rewardAgree, comparable)
			if same < n*9/10 {
				t.Errorf("only %d/%d replays reproduce the recorded turns", same, n)
			}
		})
	}
}

// sameTurns compares the assistant and user turns (text and tool calls) of
// two trajectories.
func sameTurns(got, want []message.Message) bool {
	pick := func(ms []message.Message) []message.Message {
		var out []message.Message
		for _, m := range ms {
			if m.Role == message.Assistant || m.Role == message.User {
				out = append(out, m)
			}
		}
		return out
	}
	g, w := pick(got), pick(want)
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if g[i].Content != w[i].Content || len(g[i].ToolCalls) != len(w[i].ToolCalls) {
			return false
		}
		for j := range g[i].ToolCalls {
			if g[i].ToolCalls[j].ID != w[i].ToolCalls[j].ID || g[i].ToolCalls[j].Name != w[i].ToolCalls[j].Name {
				return false
			}
		}
	}
	return true
}

// TestGoldTauTraitLoopCalls: on τ-Trait's loop (30 steps) the baseline
// agent's gold script makes exactly the gold trajectory's agent calls, in
// order (up to a terminate tool), so every telehealth test task fits; a LedgerAgent's keeps the
// evidence reads its ledger and gate read before writes.
func TestGoldTauTraitLoopCalls(t *testing.T) {
	t.Parallel()
	dom, err := domains.Load("telehealth", datatest.Root(t))
	if err != nil {
		t.Skipf("telehealth data not available: %v", err)
	}
	ts := splitOf(t, dom)
	term, _ := dom.(envs.Terminator)
	// The gold agent calls up to the first terminate tool, which ends the
	// episode (task 13's gold actions go on with reads).
	goldCalls := func(task *tasks.Task) []string {
		var out []string
		for _, a := range task.GoldActions() {
			if a.By() == string(message.ByUser) {
				continue
			}
			out = append(out, a.Name+" "+string(a.Arguments))
			if term != nil && term.Terminates(a.Name) {
				break
			}
		}
		return out
	}
	agentCalls := func(r *results.Record) []string {
		var out []string
		for _, m := range r.Messages {
			for _, c := range m.ToolCalls {
				if c.Requestor == message.ByAssistant {
					out = append(out, c.Name+" "+string(c.Arguments))
				}
			}
		}
		return out
	}
	extra := map[string]int{}
	for _, agent := range []string{"baseline", "ledger"} {
		makers, _, err := Build(t.Context(), Options{Domain: dom, DataRoot: datatest.Root(t), Agent: agent, Backbone: "gold"})
		if err != nil {
			t.Fatal(err)
		}
		if makers.LoopName != LoopTauTrait {
			t.Fatalf("telehealth loop %q; want %q", makers.LoopName, LoopTauTrait)
		}
		recs := runSplit(t, dom, makers, ts, 1)
		pass := 0
		for i := range recs {
			r := &recs[i]
			if r.Success() {
				pass++
			}
			got, want := agentCalls(r), goldCalls(&ts[i])
			switch agent {
			case "baseline":
				if !r.Success() || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("baseline task %s: %s in %d steps, agent calls\n%v\nwant the gold ones\n%v", ts[i].ID, r.TerminationReason, r.Steps, got, want)
				}
			default:
				extra[agent] += len(got) - len(want)
			}
		}
		t.Logf("%s: %d/%d telehealth tasks pass with gold on τ-Trait's loop", agent, pass, len(ts))
	}
	if extra["ledger"] <= 0 {
		t.Errorf("ledger's gold script made %d calls beyond the gold ones; want its evidence reads", extra["ledger"])
	}
}
