package rescore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// fileV1 re-scores a τ-bench v1 / τ-Trait results list (a JSON array of
// {task_id, reward, info, traj, trial}); ok is false when the file is not
// one. Which domain and split it was recorded on is read from the file
// itself (DetectV1): the policy heading names the upstream environment, the
// recorded tasks pick the benchmark and split. Task ids are indices into
// that split, and the reward is τ-bench v1's as the domain's evaluator
// computes it: the final data against the gold replay (and the task's
// outputs in the agent's replies); a run that did not end by ###STOP### or a
// terminate tool scores 0. The domain is loaded by opts.Load (the CLI's
// checks the pinned data) and the records are scored as τ²-bench files'
// simulations are (scoreRecords), with opts' criteria. The file's notes say
// where the recording departs from upstream at the pinned commits.
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
	list, err := results.ReadV1List(path)
	if err != nil {
		return res, true, err
	}
	load := func(name string) (envs.Domain, error) {
		if d, ok := loaded[name]; ok {
			return d, nil
		}
		d, err := opts.Load(name, false)
		if err != nil {
			return nil, err
		}
		loaded[name] = d
		return d, nil
	}
	det, dom, err := DetectV1(ctx, path, recs[0].Domain, list, load)
	if err != nil {
		return res, true, err
	}
	res.Domain = dom.Name()
	res.Notes = det.Notes
	split := dom.Tasks().Extra[det.Split]
	lookup := func(id string) *tasks.Task {
		i, err := strconv.Atoi(id)
		if err != nil || i < 0 || i >= len(split) {
			return nil
		}
		return &split[i]
	}
	if split == nil { // a domain without split lists (none of the v1 ones)
		lookup = func(id string) *tasks.Task {
			t, err := dom.Tasks().Find(id)
			if err != nil {
				return nil
			}
			return t
		}
	}
	for i := range recs {
		recs[i].Domain = dom.Name()
	}
	res, err = scoreRecords(ctx, res, recs, dom, lookup, opts)
	return res, true, err
}

// V1Detection is the domain and split a v1 results list was recorded on,
// with what departs from upstream at the pinned commits.
type V1Detection struct {
	Domain string
	Split  string
	// Alike are the domains the file fits as well as Domain (Domain
	// included) when the recorded tasks and gold-replay hashes do not tell
	// them apart; nil otherwise.
	Alike []string
	// Notes say where the file differs from the domain as pinned: task
	// instructions of another version, gold-replay data hashes of other
	// data, rewards upstream's code cannot give.
	Notes []string
}

// hashEvidence is how many recorded gold-replay hashes DetectV1 compares
// per candidate (each costs a gold replay and a hash of the data).
const hashEvidence = 12

// DetectV1 finds the domain a v1 results list was recorded on, among the
// ported domains of the upstream environment env (the policy heading:
// "airline", "retail", "telehealth", …; known.WithEnv). A domain and split
// fit when every entry's recorded task (info.task) has the user, gold
// actions and outputs of the task at its index; the instructions may differ
// (an earlier version of the task texts, noted: the reward does not read
// them). When several fit (τ-Trait's airline and retail begin with τ-bench
// v1's tasks), the recorded gold-replay hashes (gt_data_hash) decide, else
// τ-bench v1's is taken and the choice noted. When none fits, the error
// names the file and, for each candidate, the first entry that differs.
func DetectV1(ctx context.Context, path, env string, list []results.V1Result, load func(name string) (envs.Domain, error)) (V1Detection, envs.Domain, error) {
	if env == "" {
		return V1Detection{}, nil, fmt.Errorf("%s: cannot tell the domain of this τ-bench v1 results list (no policy heading or file name naming one)", path)
	}
	if d, ok := known.Lookup(env); ok && d.Env != "" && d.Env != env {
		env = d.Env // a label naming a v1 domain: detect among its environment's
	}
	cands := known.WithEnv(env)
	if len(cands) == 0 {
		return V1Detection{}, nil, fmt.Errorf("%s: a τ-bench v1 results list of %q, which no ported domain is (known: %s)", path, env, strings.Join(v1Envs(), ", "))
	}
	recorded := make([]results.V1Task, len(list))
	for i, e := range list {
		t, err := e.Task()
		if err != nil {
			return V1Detection{}, nil, fmt.Errorf("%s: entry %d (task %s): %w", path, i, e.TaskID, err)
		}
		recorded[i] = t
	}
	type fit struct {
		d            envs.Domain
		split        string
		instructions []int // entries whose instruction differs
		hashes, same int
	}
	var fits []fit
	var misses []string
	for _, c := range cands {
		d, err := load(c.Name)
		if err != nil {
			return V1Detection{}, nil, fmt.Errorf("%s: %w", path, err)
		}
		ts := d.Tasks()
		splits := append([]string{ts.DefaultSplit}, slices.DeleteFunc(ts.SplitNames(), func(s string) bool { return s == ts.DefaultSplit })...)
		var firstMiss string
		for _, sp := range splits {
			f := fit{d: d, split: sp}
			miss := ""
			for i, e := range list {
				if miss = matchV1(ts.Extra[sp], string(e.TaskID), recorded[i]); miss != "" {
					miss = fmt.Sprintf("entry %d (task %s): %s", i, e.TaskID, miss)
					break
				}
				if recorded[i].Present {
					if t := ts.Extra[sp][atoi(string(e.TaskID))]; t.UserScenario.Instructions.Text != recorded[i].Instruction {
						f.instructions = append(f.instructions, i)
					}
				}
			}
			if miss == "" {
				fits = append(fits, f)
				break
			}
			if firstMiss == "" {
				firstMiss = fmt.Sprintf("%s %s split: %s", c.Name, sp, miss)
			}
		}
		if len(fits) == 0 || fits[len(fits)-1].d != d {
			misses = append(misses, firstMiss)
		}
	}
	if len(fits) == 0 {
		return V1Detection{}, nil, fmt.Errorf("%s: a recording of another version of %s: its recorded tasks match no ported domain: %s", path, env, strings.Join(misses, "; "))
	}
	for k := range fits {
		f := &fits[k]
		seen := map[string]bool{}
		for i, e := range list {
			h := recorded[i].GTDataHash
			if h == "" || seen[string(e.TaskID)] || f.hashes >= hashEvidence {
				continue
			}
			seen[string(e.TaskID)] = true
			task := &f.d.Tasks().Extra[f.split][atoi(string(e.TaskID))]
			g, err := evaluator.GoldEnv(ctx, f.d, task)
			if err != nil {
				return V1Detection{}, nil, fmt.Errorf("%s: entry %d: %w", path, i, err)
			}
			hd, ok := g.(interface{ DataHash() string })
			if !ok {
				break
			}
			f.hashes++
			if hd.DataHash() == h {
				f.same++
			}
		}
	}
	best := 0
	for k := 1; k < len(fits); k++ {
		if fits[k].same > fits[best].same {
			best = k
		}
	}
	tie := false
	for k := range fits {
		if k != best && fits[k].same == fits[best].same {
			tie = true
		}
	}
	if tie {
		for k := range fits {
			if fits[k].same == fits[best].same && known.BenchmarkOf(fits[k].d.Name()) == known.TauBench {
				best = k
			}
		}
	}
	f := fits[best]
	det := V1Detection{Domain: f.d.Name(), Split: f.split}
	if tie {
		var names []string
		for _, g := range fits {
			names = append(names, g.d.Name())
			if g.same == f.same {
				det.Alike = append(det.Alike, g.d.Name())
			}
		}
		det.Notes = append(det.Notes, fmt.Sprintf("the recorded tasks are %s's and %s's alike and the recorded gold-replay hashes do not tell them apart: scored as %s's", strings.Join(names[:len(names)-1], "'s, "), names[len(names)-1], f.d.Name()))
	}
	if n := len(f.instructions); n > 0 {
		i := f.instructions[0]
		t := f.d.Tasks().Extra[f.split][atoi(string(list[i].TaskID))]
		det.Notes = append(det.Notes, fmt.Sprintf("%d of %d entries recorded another instruction than %s's %s task (another version of the task texts; e.g. task %s: recorded %q, pinned %q); the reward does not read it",
			n, len(list), f.d.Name(), f.split, list[i].TaskID, clip.Runes(recorded[i].Instruction, 60, "…"), clip.Runes(t.UserScenario.Instructions.Text, 60, "…")))
	}
	if f.hashes > 0 && f.same < f.hashes {
		det.Notes = append(det.Notes, fmt.Sprintf("the recorded gt_data_hash (upstream's gold replay) differs from %s's at the pinned commit for %d of %d tasks checked: the file was recorded on other data; scored on the pinned data",
			f.d.Name(), f.hashes-f.same, f.hashes))
	}
	var odd []string
	for _, e := range list {
		r := e.Reward
		if math.Abs(r) > 1e-9 && math.Abs(r-1) > 1e-9 {
			odd = append(odd, fmt.Sprintf("task %s: %g", e.TaskID, r))
		}
	}
	if len(odd) > 0 {
		det.Notes = append(det.Notes, fmt.Sprintf("%d entries recorded rewards other than 0 and 1 (%s), which upstream's calculate_reward cannot give: the file was recorded with modified reward code; scored with upstream's rule, so those entries differ",
			len(odd), strings.Join(odd[:min(3, len(odd))], ", ")))
	}
	return det, f.d, nil
}

// matchV1 compares an entry's recorded task with the split's task at id:
// "" when they fit, else what differs.
func matchV1(split []tasks.Task, id string, rec results.V1Task) string {
	i, err := strconv.Atoi(id)
	if err != nil || i < 0 {
		return "task_id is not an index"
	}
	if i >= len(split) {
		return fmt.Sprintf("no task %d (the split has %d)", i, len(split))
	}
	if !rec.Present {
		return ""
	}
	t := &split[i]
	crit := t.EvaluationCriteria
	if crit == nil {
		return "the task has no evaluation criteria"
	}
	if u := userID(t); u != "" && u != rec.UserID {
		return fmt.Sprintf("user %s, the task's is %s", rec.UserID, u)
	}
	want := crit.CommunicateInfo
	if !slices.Equal(rec.Outputs, want) && !(len(rec.Outputs) == 0 && len(want) == 0) {
		return fmt.Sprintf("outputs %q, the task's are %q", rec.Outputs, want)
	}
	if len(rec.Actions) != len(crit.Actions) {
		return fmt.Sprintf("%d gold actions, the task has %d", len(rec.Actions), len(crit.Actions))
	}
	for j, a := range rec.Actions {
		g := crit.Actions[j]
		if a.Name != g.Name {
			return fmt.Sprintf("gold action %d is %s, the task's is %s", j, a.Name, g.Name)
		}
		ra, err1 := pyjson.Decode(a.Kwargs)
		ga, err2 := pyjson.Decode(g.Arguments)
		if err1 != nil || err2 != nil || !pyjson.Equal(ra, ga) {
			return fmt.Sprintf("gold action %d (%s) has other arguments", j, a.Name)
		}
	}
	return ""
}

// userID is the simulated user of a v1 task (its annotations).
func userID(t *tasks.Task) string {
	var m struct {
		UserID string `json:"user_id"`
	}
	if len(t.Annotations) == 0 || json.Unmarshal(t.Annotations, &m) != nil {
		return ""
	}
	return m.UserID
}

func atoi(s string) int {
	i, _ := strconv.Atoi(s)
	return i
}

// v1Envs lists the upstream environments the ported v1 domains come from.
func v1Envs() []string {
	var out []string
	for _, d := range known.All() {
		if d.Env != "" && !slices.Contains(out, d.Env) {
			out = append(out, d.Env)
		}
	}
	return out
}
