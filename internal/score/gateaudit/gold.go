package gateaudit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// GoldAgent is the agent the gold audit drives: LedgerAgent (its ablation
// gate-only has the same gate, and the gold backbone ignores the prompt).
const GoldAgent = "ledger"

// GoldReport is the gold audit of one domain: every task played live by the
// gold backbone through LedgerAgent, exactly as `ledgerbench run --agent
// ledger --backbone gold --no-judge` plays it (the same agent, ledger, gate,
// scripted user and loop), every gold write judged by the live gate.
type GoldReport struct {
	Report string `json:"report"` // "gold"
	Domain string `json:"domain"`
	// Solo is set for the domain's solo mode (no user).
	Solo  bool   `json:"solo,omitempty"`
	Agent string `json:"agent"`
	Loop  string `json:"loop"`
	Tasks int    `json:"tasks"`
	// Passed counts tasks the live run passed (reward 1; NL assertions not
	// judged).
	Passed int `json:"passed"`
	// Writes counts the gold writes the gate judged that the environment
	// accepts; FalsePositives those of them the gate did not allow.
	Writes         int `json:"writes"`
	FalsePositives int `json:"false_positives"`
	// RejectedByEnv counts gold writes the environment itself rejects (some
	// gold trajectories hold failing writes): stopping them is no false
	// positive, and they are not counted in Writes.
	RejectedByEnv int `json:"rejected_by_env,omitempty"`
	// HarnessErrors counts simulations that ended in an infrastructure
	// error (offline, only the harness can fail: e.g. a gate predicate that
	// panicked); they are listed in Lost.
	HarnessErrors int             `json:"harness_errors"`
	Cases         []FalsePositive `json:"cases,omitempty"`
	// Lost lists the tasks the live run did not pass.
	Lost []LostTask `json:"lost,omitempty"`
}

// FalsePositive is a gold write the live gate did not allow.
type FalsePositive struct {
	TaskID  string         `json:"task_id"`
	Verdict ledger.Verdict `json:"verdict"`
}

// LostTask is a task the live gold run did not pass.
type LostTask struct {
	TaskID      string  `json:"task_id"`
	Termination string  `json:"termination"`
	Reward      float64 `json:"reward"`
	Steps       int     `json:"steps"`
	Error       string  `json:"error,omitempty"`
}

// Name is the domain's label in reports ("telecom (solo)" for solo mode).
func (g GoldReport) Name() string {
	if g.Solo {
		return g.Domain + " (solo)"
	}
	return g.Domain
}

// AuditGold plays every task of ts live with the gold backbone through
// LedgerAgent (dataDir holds the pulled prompts the agents are built from)
// and reports each gold write's verdict and each task's outcome.
func AuditGold(ctx context.Context, dataDir string, dom envs.Domain, ts []tasks.Task) (GoldReport, error) {
	solo := envs.IsSolo(dom)
	opts := agents.Options{Domain: dom, DataRoot: dataDir, Agent: GoldAgent, Backbone: "gold", JudgeBackbone: agents.NoJudge, Solo: solo}
	if !solo {
		opts.UserBackbone = "gold"
	}
	makers, _, err := agents.Build(ctx, opts)
	if err != nil {
		return GoldReport{}, fmt.Errorf("gold audit %s: %w", dom.Name(), err)
	}
	loop := makers.LoopName
	if solo {
		loop = "solo"
	}
	rep := GoldReport{Report: "gold", Domain: envs.Base(dom).Name(), Solo: solo, Agent: GoldAgent, Loop: loop, Tasks: len(ts)}
	sink := &memSink{}
	cfg := runner.Config{Domain: dom, Makers: makers, Concurrency: runtime.GOMAXPROCS(0),
		Sim: orchestrator.Config{Greeting: makers.Greeting}}
	if _, err := runner.Run(ctx, cfg, runner.Units(ts, runner.TrialSeeds(300, 1)), sink); err != nil {
		return rep, fmt.Errorf("gold audit %s: %w", dom.Name(), err)
	}
	byTask := make(map[string]*results.Record, len(sink.recs))
	for i := range sink.recs {
		byTask[sink.recs[i].TaskID] = &sink.recs[i]
	}
	for i := range ts {
		task := &ts[i]
		r := byTask[task.ID]
		if r == nil {
			return rep, fmt.Errorf("gold audit %s: task %s was not recorded", dom.Name(), task.ID)
		}
		if err := rep.add(ctx, dom, task, r); err != nil {
			return rep, fmt.Errorf("gold audit %s task %s: %w", dom.Name(), task.ID, err)
		}
	}
	return rep, nil
}

// add accounts for one task's live record.
func (rep *GoldReport) add(ctx context.Context, dom envs.Domain, task *tasks.Task, r *results.Record) error {
	if r.Success() {
		rep.Passed++
	} else {
		rep.Lost = append(rep.Lost, LostTask{TaskID: task.ID, Termination: string(r.TerminationReason), Reward: r.Reward(), Steps: r.Steps, Error: r.Error})
	}
	if r.Infrastructure() {
		rep.HarnessErrors++
	}
	var info struct {
		Verdicts []ledger.Verdict `json:"verdicts"`
	}
	if len(r.AgentInfo) > 0 {
		if err := json.Unmarshal(r.AgentInfo, &info); err != nil {
			return fmt.Errorf("agent_info: %w", err)
		}
	}
	// The gold script proposes its gold writes in gold order and never
	// retries a refused one: a verdict is on the next gated gold write when
	// it has its tool and arguments; others are on the script's evidence
	// calls (a discoverable read through a guarded tool), not gold writes.
	// The environment's answer to each gold write comes from the same walk
	// the script's evidence reads come from.
	script, err := ledgeragent.EvidencePlan(ctx, dom, task)
	if err != nil {
		return err
	}
	gated := gatedGold(dom, task)
	gold := task.GoldActions()
	next := 0
	for _, v := range info.Verdicts {
		if next >= len(gated) || !sameCall(gold[gated[next]], v) {
			continue
		}
		i := gated[next]
		next++
		switch {
		case v.Decision == ledger.HarnessError:
			// counted with the record (an infrastructure error)
		case i < len(script.EnvRejected) && script.EnvRejected[i]:
			rep.RejectedByEnv++
		default:
			rep.Writes++
			if v.Decision != ledger.Allow {
				rep.FalsePositives++
				rep.Cases = append(rep.Cases, FalsePositive{TaskID: task.ID, Verdict: v})
			}
		}
	}
	return nil
}

// sameCall reports whether a verdict is on gold action a: its tool and
// arguments (as JSON values).
func sameCall(a tasks.Action, v ledger.Verdict) bool {
	if a.Name != v.Tool {
		return false
	}
	var x, y any
	if json.Unmarshal(a.Arguments, &x) != nil || json.Unmarshal(v.Arguments, &y) != nil {
		return string(a.Arguments) == string(v.Arguments)
	}
	return reflect.DeepEqual(x, y)
}

// gatedGold lists the indices of the gold actions the agent's gate judges.
func gatedGold(dom envs.Domain, task *tasks.Task) []int {
	pol, ok := ledgeragent.PolicyOf(dom)
	if !ok {
		return nil
	}
	gate := ledgeragent.NewGate(dom, pol)
	var out []int
	for i, a := range task.GoldActions() {
		if (a.By() != string(message.ByUser) || envs.IsSolo(dom)) && gate.Guards(a.Name) && !ledgeragent.IsObservation(pol, a.Name, a.Arguments) {
			out = append(out, i)
		}
	}
	return out
}

// memSink keeps records in memory.
type memSink struct {
	mu   sync.Mutex
	recs []results.Record
}

func (s *memSink) Write(r results.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, r)
	return nil
}
