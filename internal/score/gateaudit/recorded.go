package gateaudit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/parallel"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/score/rescore"
)

// RecordedFile audits one τ²-bench results file in shadow mode
// (ledgeragent.AuditRecorded): the domain the file names is loaded by load, in its solo
// mode for a solo run (upstream's solo agent with its dummy user: no user,
// the agent holds the phone's tools), and each simulation is rescored
// against the pinned tasks (by the task its recorded evaluation used) so
// its stops can be split by the rescored outcome too. A simulation whose
// task is not pinned is not rescored.
func RecordedFile(ctx context.Context, file string, load func(domain string, solo bool) (envs.Domain, error)) ([]ledgeragent.RecordedReport, []ledgeragent.RecordedVerdict, error) {
	if raw, err := os.ReadFile(file); err == nil {
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			return recordedV1(ctx, file, load)
		}
	}
	f, err := results.ReadTau2(file)
	if err != nil {
		return nil, nil, err
	}
	meta, err := f.Meta()
	if err == nil && meta.Domain == "" {
		err = errors.New("no info.environment_info.domain_name")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	dom, err := load(meta.Domain, results.IsSolo(f.Info))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	recs, err := results.FromTau2(f)
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

// recordedV1 audits a τ-bench v1 / τ-Trait results list: its domain and
// split are the ones rescore detects (rescore.DetectV1), its entries are
// rescored against that split's tasks (task ids index it).
func recordedV1(ctx context.Context, file string, load func(domain string, solo bool) (envs.Domain, error)) ([]ledgeragent.RecordedReport, []ledgeragent.RecordedVerdict, error) {
	recs, err := results.ReadV1(file, results.V1Labels{})
	if err != nil {
		return nil, nil, err
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%s: an empty results list", file)
	}
	list, err := results.ReadV1List(file)
	if err != nil {
		return nil, nil, err
	}
	det, dom, err := rescore.DetectV1(ctx, file, recs[0].Domain, list, func(name string) (envs.Domain, error) { return load(name, false) })
	if err != nil {
		return nil, nil, err
	}
	split := dom.Tasks().Extra[det.Split]
	runs, err := parallel.Map(ctx, len(recs), func(ctx context.Context, i int) (ledgeragent.RecordedRun, error) {
		r := &recs[i]
		run := ledgeragent.RecordedRun{Index: i, TaskID: r.TaskID, Trial: r.Trial, Messages: r.Messages}
		if r.RewardInfo != nil {
			run.Reward = r.RewardInfo.Reward
		}
		k, err := strconv.Atoi(r.TaskID)
		if err != nil || k < 0 || k >= len(split) {
			return run, nil // not in the split: not rescored
		}
		ours, err := evaluator.Evaluate(ctx, dom, &split[k], r.Messages, r.TerminationReason, evaluator.Options{Lenient: true})
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
