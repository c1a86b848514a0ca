package gateaudit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/parallel"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/score/rescore"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
)

// RecordedFile audits one recorded results file in shadow mode
// (ledgeragent.AuditRecorded): a τ²-bench results file, or a τ-bench v1 /
// τ-Trait results list of a τ-Trait domain. The domain the file names is
// loaded by load, in its solo mode for a solo run (upstream's solo agent
// with its dummy user: no user, the agent holds the phone's tools), and each
// simulation is rescored against the pinned tasks (by the task its recorded
// evaluation used) so its stops can be split by the rescored outcome too. A
// simulation whose task is not pinned is not rescored.
func RecordedFile(ctx context.Context, file string, load func(domain string, solo bool) (envs.Domain, error)) ([]ledgeragent.RecordedReport, []ledgeragent.RecordedVerdict, error) {
	recs, domain, solo, err := recordedRuns(file)
	if err != nil {
		return nil, nil, err
	}
	dom, err := load(domain, solo)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	runs, err := parallel.Map(ctx, len(recs), func(ctx context.Context, i int) (ledgeragent.RecordedRun, error) {
		r := &recs[i]
		run := ledgeragent.RecordedRun{Index: i, TaskID: r.TaskID, Trial: r.Trial, Messages: r.Messages}
		if r.RewardInfo != nil {
			run.Reward = r.RewardInfo.Reward
		}
		task, err := dom.Tasks().Find(r.TaskID)
		if scored, ok := rescore.ScoredTaskID(r); ok && scored != r.TaskID {
			if t, err2 := dom.Tasks().Find(scored); err2 == nil {
				task, err = t, nil // the recorded evaluation used this task's criteria
			}
		}
		if err != nil {
			return run, nil // not in the pinned tasks: not rescored
		}
		ours, err := evaluator.Evaluate(ctx, dom, task, r.Messages, r.TerminationReason, evaluator.Options{Lenient: true})
		if err != nil {
			return run, fmt.Errorf("%s: rescore task %s trial %d: %w", file, r.TaskID, r.Trial, err)
		}
		reward, _ := rescore.Reward(r.RewardInfo, &ours)
		run.Rescored = &reward
		return run, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return ledgeragent.AuditRecorded(dom, filepath.Base(file), runs)
}

// recordedRuns reads a recorded file's simulations: a τ-bench v1 / τ-Trait
// list (a JSON array) of a τ-Trait domain, else a τ²-bench results file.
func recordedRuns(file string) (recs []results.Record, domain string, solo bool, err error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, "", false, fmt.Errorf("read results: %w", err)
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		recs, err := results.ReadV1(file, results.V1Labels{})
		if err != nil {
			return nil, "", false, err
		}
		if len(recs) == 0 {
			return nil, "", false, fmt.Errorf("%s: no simulations", file)
		}
		if d := recs[0].Domain; known.BenchmarkOf(d) != known.TauTrait {
			return nil, "", false, fmt.Errorf("%s: a τ-bench v1 results list of %q: only τ-Trait's domains are audited from v1 lists", file, d)
		}
		return recs, recs[0].Domain, false, nil
	}
	f, err := results.ReadTau2(file)
	if err != nil {
		return nil, "", false, err
	}
	meta, err := f.Meta()
	if err == nil && meta.Domain == "" {
		err = errors.New("no info.environment_info.domain_name")
	}
	if err != nil {
		return nil, "", false, fmt.Errorf("%s: %w", file, err)
	}
	recs, err = results.FromTau2(f)
	if err != nil {
		return nil, "", false, fmt.Errorf("%s: %w", file, err)
	}
	return recs, meta.Domain, results.IsSolo(f.Info), nil
}
