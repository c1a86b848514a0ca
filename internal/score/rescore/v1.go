package rescore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
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
	switch {
	case name == "":
		return res, true, fmt.Errorf("%s: cannot tell the domain of this τ-bench v1 results list", path)
	case known.BenchmarkOf(name) == known.TauTrait:
	default:
		// τ-bench v1's airline and retail tasks are not τ²-bench's (which
		// re-annotated them): scoring against ours would mislead.
		return res, true, fmt.Errorf("%s: a τ-bench v1 results list of %s: only τ-Trait's domains (%s) can be rescored", path, name, strings.Join(tauTraitNames(), ", "))
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
	if err := sameTasks(path, raw, dom, lookup); err != nil {
		return res, true, err
	}
	res, err = scoreRecords(ctx, res, recs, dom, lookup, opts)
	return res, true, err
}

func tauTraitNames() []string {
	var out []string
	for _, d := range known.All() {
		if d.Benchmark == known.TauTrait {
			out = append(out, d.Name)
		}
	}
	return out
}

// v1Task is the task a τ-bench v1 / τ-Trait result records in its info.
type v1Task struct {
	TaskID results.V1TaskID `json:"task_id"`
	Info   struct {
		Task *struct {
			UserID      string `json:"user_id"`
			Instruction string `json:"instruction"`
			Actions     []struct {
				Name   string          `json:"name"`
				Kwargs json.RawMessage `json:"kwargs"`
			} `json:"actions"`
			Outputs []string `json:"outputs"`
		} `json:"task"`
	} `json:"info"`
}

// sameTasks checks that every entry's recorded task is the domain's task of
// its id (user, instruction, gold actions and outputs): a list recorded
// against another version of the task file (another split, an edited
// task) is an error naming the file and the entry, and the split where that
// task is, if any. Entries that recorded no task are not checked.
func sameTasks(path string, raw []byte, dom envs.Domain, lookup func(id string) *tasks.Task) error {
	var list []v1Task
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for i, e := range list {
		rt := e.Info.Task
		if rt == nil {
			continue
		}
		t := lookup(string(e.TaskID))
		if t == nil {
			continue // reported as a missing task
		}
		if why := taskDiff(rt.UserID, rt.Instruction, rt.Outputs, rt.Actions, t); why != "" {
			hint := ""
			for _, split := range dom.Tasks().SplitNames() {
				for j := range dom.Tasks().Extra[split] {
					if taskDiff(rt.UserID, rt.Instruction, rt.Outputs, rt.Actions, &dom.Tasks().Extra[split][j]) == "" {
						hint = fmt.Sprintf("; it is %s task %s of split %s", dom.Name(), dom.Tasks().Extra[split][j].ID, split)
					}
				}
			}
			return fmt.Errorf("%s: entry %d (task %s): the recorded task is not %s's task %s (%s): a recording of another version of the domain's tasks%s",
				path, i, e.TaskID, dom.Name(), t.ID, why, hint)
		}
	}
	return nil
}

// taskDiff says how a recorded task differs from t ("" when it does not).
func taskDiff(user, instruction string, outputs []string, actions []struct {
	Name   string          `json:"name"`
	Kwargs json.RawMessage `json:"kwargs"`
}, t *tasks.Task) string {
	if meta, err := tauv1.TaskMeta(t); err == nil && meta.UserID != user {
		return fmt.Sprintf("user %s, ours %s", user, meta.UserID)
	}
	if instruction != t.UserScenario.Instructions.Text {
		return "the instruction differs"
	}
	c := t.EvaluationCriteria
	if c == nil {
		return "ours has no evaluation criteria"
	}
	if len(outputs) != len(c.CommunicateInfo) || !slices.Equal(outputs, c.CommunicateInfo) {
		return fmt.Sprintf("outputs %q, ours %q", outputs, c.CommunicateInfo)
	}
	gold := t.GoldActions()
	if len(actions) != len(gold) {
		return fmt.Sprintf("%d gold actions, ours %d", len(actions), len(gold))
	}
	for j, a := range actions {
		va, errA := pyjson.Decode(a.Kwargs)
		vb, errB := pyjson.Decode(gold[j].Arguments)
		if a.Name != gold[j].Name || errA != nil || errB != nil || !pyjson.Equal(va, vb) {
			return fmt.Sprintf("gold action %d is %s %s, ours %s %s", j, a.Name, a.Kwargs, gold[j].Name, gold[j].Arguments)
		}
	}
	return ""
}
