package runplan

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
)

// Result is what a run directory holds after Execute.
type Result struct {
	// Run is the run directory as loaded after the run.
	Run *results.Run
	// Records and Superseded are the run's latest records and the attempts
	// a re-run replaced, both of the plan's units only; Expected lists the
	// units in order. metrics.SummarizeRun makes the end-of-run account of
	// them (superseded attempts count in the costs: they were paid for).
	Records, Superseded []results.Record
	Expected            []results.UnitKey
	// Scored counts Records that are not infrastructure errors.
	Scored int
}

// Execute creates the run directory (or updates the manifest of a run
// extended with more trials), runs the pending units, appending each record
// as it ends, and summarises the run. prog, if set, is updated as units
// start and finish (a UI and an experiment's cost cap read it in memory).
//
// The result is set whenever the run directory could be read back, also
// with an error: an interrupt (wrapping runner.ErrStopped), a failing
// sink or maker, or a run in which no unit was scored. It closes the
// plan's domain when it returns.
func (p *Plan) Execute(ctx context.Context, prog *runner.Progress) (*Result, error) {
	// The domain's job resources (banking_knowledge's sandboxes) end with
	// the run.
	defer envs.Close(p.Domain)
	opts, m := &p.Options, p.Manifest
	if p.lock == nil {
		// A new run: the directory is locked before the manifest exists,
		// so a second process starting the same run waits for no one and
		// is refused.
		l, err := results.Lock(opts.Out)
		if err != nil {
			return nil, err
		}
		p.lock = l
	}
	if p.Existing == nil {
		if err := results.Create(opts.Out, m); err != nil {
			return nil, err
		}
	} else if len(p.Existing.Manifest.Diff(m)) > 0 { // a run extended with more trials
		m.CreatedAt = p.Existing.Manifest.CreatedAt
		if err := results.WriteManifest(opts.Out, m); err != nil {
			return nil, err
		}
	}
	w, err := results.OpenWriter(filepath.Join(opts.Out, results.SimulationsFile))
	if err != nil {
		return nil, err
	}
	cfg := runner.Config{
		Domain: p.Domain, Makers: p.makers, Concurrency: opts.Concurrency, Drain: opts.Grace, Progress: prog,
		Sim: orchestrator.Config{MaxSteps: m.MaxSteps, MaxErrors: m.MaxErrors, Timeout: opts.Timeout, Judge: p.judge,
			Greeting: p.makers.Greeting, EnforceProtocol: m.EnforceProtocol},
		Labels: runner.Labels{Agent: m.Agent, Backbone: m.Backbone, UserBackbone: m.UserBackbone,
			Trait: usersim.TraitLabel(m.Traits, usersim.TraitMode(m.TraitMode))},
	}
	_, runErr := runner.Run(ctx, cfg, p.Pending, markSink{w: w, sim: agents.Simulated(m.Backbone), unpriced: p.unpriced})
	if err := w.Close(); err != nil && runErr == nil {
		runErr = err
	}
	run, err := results.LoadRun(opts.Out)
	if err != nil {
		return nil, errors.Join(runErr, err)
	}
	res := &Result{Run: run, Records: inUnits(run.Records, p.Units), Superseded: inUnits(run.SupersededRecords, p.Units),
		Expected: runner.Expected(p.Units)}
	infra := 0
	for i := range res.Records {
		if res.Records[i].Infrastructure() {
			infra++
		} else {
			res.Scored++
		}
	}
	if runErr != nil {
		return res, runErr
	}
	if res.Scored == 0 && len(p.Units) > 0 {
		return res, fmt.Errorf("no simulation was scored (%d infrastructure errors): see the errors in %s, then continue with: ledgerbench run --resume --out %s",
			infra, filepath.Join(opts.Out, results.SimulationsFile), opts.Out)
	}
	return res, nil
}

// markSink marks records before writing them: those of the sim backbone
// as simulated, the costs of roles whose backbone has no price as unknown
// (when the role made a call: a judge never asked costs nothing).
type markSink struct {
	w        *results.Writer
	sim      bool
	unpriced []string
}

func (s markSink) Write(r results.Record) error {
	if s.sim {
		r.Simulated = true
	}
	for _, f := range s.unpriced {
		called := false
		switch f {
		case results.UnknownAgentCost:
			called = r.AgentCalls > 0 || r.AgentUsage.Total() > 0
		case results.UnknownUserCost:
			called = r.UserCalls > 0 || r.UserUsage.Total() > 0
		case results.UnknownJudgeCost:
			called = r.JudgeUsage.Total() > 0 || r.RewardInfo != nil && r.RewardInfo.JudgeUsage != nil && r.RewardInfo.JudgeUsage.Total() > 0
		}
		if called {
			r.MarkUnknown(f)
		}
	}
	return s.w.Write(r)
}

// inUnits keeps the records of the run's units (a resumed run may hold
// records of tasks no longer selected only if the manifest changed, which is
// refused; this guards the summary anyway).
func inUnits(recs []results.Record, units []runner.Unit) []results.Record {
	in := make(map[results.UnitKey]bool, len(units))
	for _, u := range units {
		in[u.Key()] = true
	}
	out := recs[:0:0]
	for _, r := range recs {
		if in[r.Key()] {
			out = append(out, r)
		}
	}
	return out
}
