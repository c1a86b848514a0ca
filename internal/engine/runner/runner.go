package runner

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
)

// Sink receives each finished record as soon as it exists. Write is called
// concurrently; the sink serialises (results.Writer does).
type Sink interface {
	Write(rec results.Record) error
}

// Labels are stamped on every record.
type Labels struct {
	Agent        string
	Backbone     string
	UserBackbone string
	// Trait is the user's trait label (usersim.TraitLabel), "" for none.
	Trait string
}

// Config is how to run a set of units.
type Config struct {
	Domain envs.Domain
	Makers Makers
	// Sim bounds each simulation (max steps, max errors, wall-clock
	// timeout) and carries the NL judge.
	Sim orchestrator.Config
	// Concurrency is the number of simulations running at once (default 1).
	Concurrency int
	// Drain bounds how long simulations already running may continue after
	// ctx is canceled; they are then canceled and recorded as
	// infrastructure errors (re-run on resume). 0 lets them finish.
	Drain  time.Duration
	Labels Labels
	// Progress, if set, is updated as units start and finish.
	Progress *Progress
	// NewID returns a record id (default: a random UUID, as upstream's
	// uuid4).
	NewID func() string
}

// Outcome summarises one call of Run.
type Outcome struct {
	Units      int // units given
	Finished   int // records written
	NotStarted int // units not started because the run was stopped
}

// Run runs units concurrently under cfg.Concurrency and writes each record
// to sink as soon as its simulation ends, so a crash loses only the
// simulations in flight.
//
// When ctx is canceled (Ctrl-C), no new unit starts; units already running
// go on (see Config.Drain) and are recorded, and Run returns an error
// wrapping ErrStopped and the context's cause. Infrastructure failures of a
// simulation are data (an infrastructure_error record); Run's error reports
// only what stops the run: a maker that fails (a configuration problem, the
// same for every unit), a sink that cannot write, or a backbone that refused
// its API key (ErrAuth: the unit is recorded, none starts after it) or kept
// answering 429 past a call's retries (ErrRateLimited: likewise).
func Run(ctx context.Context, cfg Config, units []Unit, sink Sink) (Outcome, error) {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	if cfg.NewID == nil {
		cfg.NewID = newUUID
	}
	p := cfg.Progress
	if p == nil {
		p = NewProgress(len(units))
	}
	out := Outcome{Units: len(units)}

	// Running units use a context that outlives ctx's cancellation and is
	// canceled only after the drain period (or when Run returns).
	hard, cancelHard := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelHard()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.Concurrency)
	if cfg.Drain > 0 {
		stop := context.AfterFunc(gctx, func() {
			t := time.NewTimer(cfg.Drain)
			defer t.Stop()
			select {
			case <-t.C:
				cancelHard()
			case <-hard.Done():
			}
		})
		defer stop()
	}

	var finished, notStarted atomic.Int64
	for _, u := range units {
		if gctx.Err() != nil {
			notStarted.Add(1)
			continue
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				notStarted.Add(1)
				return nil
			}
			p.running.Add(1)
			rec, err := runUnit(hard, cfg, u)
			p.running.Add(-1)
			if err != nil {
				return err
			}
			if err := sink.Write(rec); err != nil {
				return fmt.Errorf("record task %s trial %d: %w", u.Task.ID, u.Trial, err)
			}
			p.add(&rec, u.Rejudge)
			finished.Add(1)
			if rec.Cause != nil && errors.Is(rec.Cause, llm.ErrAuth) {
				// No later unit can do better: start none.
				return authError(rec.Cause)
			}
			if rec.Cause != nil && errors.Is(rec.Cause, llm.ErrRateLimited) {
				return rateLimitError(rec.Cause)
			}
			return nil
		})
	}
	err := g.Wait()
	out.Finished, out.NotStarted = int(finished.Load()), int(notStarted.Load())
	if err != nil {
		return out, err
	}
	if out.NotStarted > 0 {
		return out, fmt.Errorf("%w: %d of %d simulations not started: %w", ErrStopped, out.NotStarted, out.Units, context.Cause(ctx))
	}
	return out, nil
}

// ErrAuth is wrapped by Run's error when a backbone refused its API key
// (401, 403): the unit that met it is recorded, no unit starts after it.
var ErrAuth = errors.New("a backbone refused its API key")

// ErrRateLimited is wrapped by Run's error when a backbone kept answering
// 429 after a call's retries: the unit that met it is recorded (an
// infrastructure error, re-run on resume), no unit starts after it.
var ErrRateLimited = errors.New("a backbone kept rate limiting")

// rateLimitError is the one line that names the backbone and what to do.
func rateLimitError(cause error) error {
	var e *llm.Error
	if !errors.As(cause, &e) {
		return fmt.Errorf("%w: %w", ErrRateLimited, cause)
	}
	return fmt.Errorf("%w: backbone %s answered 429 %d times in a row: lower its rpm/tpm in the backbones file (or wait for the provider's quota), then resume", ErrRateLimited, e.Backbone, e.Attempts)
}

// authError is the one line that names the backbone and its key variable.
func authError(cause error) error {
	var e *llm.Error
	if !errors.As(cause, &e) {
		return fmt.Errorf("%w: %w", ErrAuth, cause)
	}
	fix := "the backbone sets no api_key_env: set one in the backbones file"
	if e.KeyEnv != "" {
		fix = "set " + e.KeyEnv + " to a valid key"
	}
	return fmt.Errorf("%w: backbone %s: status %d: %s", ErrAuth, e.Backbone, e.Status, fix)
}

// runUnit plays one simulation and returns its record. Its error is a
// configuration failure (a maker refused), which stops the run.
func runUnit(ctx context.Context, cfg Config, u Unit) (results.Record, error) {
	if u.Rejudge != nil {
		return rejudge(ctx, cfg, u), nil
	}
	spec := Spec{Domain: cfg.Domain, Task: u.Task, Trial: u.Trial, Seed: u.Seed}
	agent, err := cfg.Makers.Agent(spec)
	if err != nil {
		return results.Record{}, fmt.Errorf("task %s trial %d: build agent: %w", u.Task.ID, u.Trial, err)
	}
	user, err := cfg.Makers.User(spec)
	if err != nil {
		return results.Record{}, fmt.Errorf("task %s trial %d: build user simulator: %w", u.Task.ID, u.Trial, err)
	}
	sim := cfg.Sim
	if cfg.Makers.Loop != nil {
		sim.Loop = cfg.Makers.Loop
	}
	rec, err := orchestrator.Run(ctx, cfg.Domain, u.Task, agent, user, sim)
	if err != nil {
		// Evaluation failed outside the simulation: keep the trajectory,
		// and mark the unit for a re-run.
		rec.TerminationReason = evaluator.InfrastructureError
		rec.Error = err.Error()
		rec.RewardInfo = nil
	}
	rec.ID = cfg.NewID()
	rec.TaskID = u.Task.ID
	rec.Trial = u.Trial
	rec.Seed = u.Seed
	rec.Domain = cfg.Domain.Name()
	rec.Agent = cfg.Labels.Agent
	rec.Backbone = cfg.Labels.Backbone
	rec.UserBackbone = cfg.Labels.UserBackbone
	rec.Trait = cfg.Labels.Trait
	return rec, nil
}

// rejudge evaluates again the recorded conversation of a unit whose NL judge
// failed, without playing it again. The judge's usage and cost add to what
// the failed judgement cost.
func rejudge(ctx context.Context, cfg Config, u Unit) results.Record {
	rec := *u.Rejudge
	rec.Messages = slices.Clone(rec.Messages)
	term := rec.JudgePending
	info, err := evaluator.Evaluate(ctx, cfg.Domain, u.Task, rec.Messages, term, evaluator.Options{Judge: cfg.Sim.Judge})
	var judgeErr *evaluator.JudgeError
	switch {
	case errors.As(err, &judgeErr):
		rec.JudgeUsage = rec.JudgeUsage.Add(judgeErr.Usage)
		rec.JudgeCost += judgeErr.Cost
		rec.Error, rec.Cause = err.Error(), err
	case err != nil:
		rec.Error, rec.Cause = err.Error(), err
	default:
		rec.TerminationReason = term
		rec.JudgePending = ""
		rec.Error, rec.Cause = "", nil
		if info.JudgeUsage != nil {
			rec.JudgeUsage = rec.JudgeUsage.Add(*info.JudgeUsage)
			rec.JudgeCost += info.JudgeCost
		}
		info.JudgeUsage = &rec.JudgeUsage
		info.JudgeCost = rec.JudgeCost
		rec.RewardInfo = &info
	}
	return rec
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
