package rescore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/telehealth"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// fileV1 re-scores a τ-bench v1 / τ-Trait results list (a JSON array of
// {task_id, reward, info, traj, trial}) of telehealth; ok is false when the
// file is not one. Task ids are indices into the domain's default split (τ-Trait's
// --task-split test), and the reward is τ-bench v1's as the domain's
// evaluator computes it: the final database against the gold replay (and
// the task's outputs in the agent's replies); a run that did not end by
// ###STOP### or a terminate tool scores 0. The domain is loaded by opts.Load
// (the CLI's checks the pinned data) and the records are scored as
// τ²-bench files' simulations are (scoreRecords), with opts' criteria.
func fileV1(ctx context.Context, path string, opts *Options, loaded map[string]envs.Domain) (File, bool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return File{}, false, fmt.Errorf("read results: %w", err)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		return File{}, false, nil
	}
	recs, err := results.ReadV1(path, results.V1Labels{})
	if err != nil {
		return File{}, true, err
	}
	res := File{File: filepath.Base(path), Sims: len(recs)}
	if len(recs) == 0 {
		return res, true, nil
	}
	name := recs[0].Domain
	switch name {
	case "":
		return res, true, fmt.Errorf("%s: cannot tell the domain of this τ-bench v1 results list", path)
	case telehealth.Name:
	default:
		// τ-bench v1's airline and retail tasks are not τ²-bench's (which
		// re-annotated them): scoring against ours would mislead.
		return res, true, fmt.Errorf("%s: a τ-bench v1 results list of %s: only telehealth's (τ-Trait's tasks) can be rescored", path, name)
	}
	dom, ok := loaded[name]
	if !ok {
		if dom, err = opts.Load(name, false); err != nil {
			return res, true, fmt.Errorf("%s: %w", path, err)
		}
		loaded[name] = dom
	}
	res.Domain = dom.Name()
	lookup := func(id string) *tasks.Task {
		t, err := dom.Tasks().Find(id) // the default split first
		if err != nil {
			return nil
		}
		return t
	}
	res, err = scoreRecords(ctx, res, recs, dom, lookup, opts)
	return res, true, err
}
