// Package rescore re-evaluates recorded runs — τ²-bench results files and
// τ-bench v1 / τ-Trait result lists — with ledgerbench's domains and
// evaluator, as upstream's "tau2 evaluate-trajs" does, and compares the
// rewards with the recorded ones. `ledgerbench rescore` renders what Files
// returns.
package rescore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/atomicfile"
	"github.com/ledgerbench/ledgerbench/internal/core/parallel"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Options say how to rescore.
type Options struct {
	// Criteria says where the evaluation criteria come from: "file" (the
	// tasks embedded in the results file; the default), "domain" (the data
	// directory's tasks) or "record" (rebuilt from each recorded
	// reward_info).
	Criteria string
	// Relabel scores a simulation whose recorded evaluation checked another
	// task's gold actions against that task (a repair for mislabelled files;
	// never the default, noted per simulation).
	Relabel bool
	// Load loads a domain (in solo mode when solo). Required.
	Load func(domain string, solo bool) (envs.Domain, error)
	// Warn receives warnings (nil: none).
	Warn io.Writer
}

func (o *Options) warnf(format string, args ...any) {
	if o.Warn != nil {
		fmt.Fprintf(o.Warn, format+"\n", args...)
	}
}

// Files rescores every file in order, loading each domain once.
func Files(ctx context.Context, paths []string, opts Options) ([]File, error) {
	if opts.Load == nil {
		return nil, errors.New("rescore: Options.Load is required")
	}
	if opts.Criteria == "" {
		opts.Criteria = "file"
	}
	if !slices.Contains([]string{"file", "domain", "record"}, opts.Criteria) {
		return nil, fmt.Errorf("rescore: criteria %q: want file, domain or record", opts.Criteria)
	}
	loaded := map[string]envs.Domain{}
	var out []File
	for _, path := range paths {
		_, _, dir := results.Tau2DirPaths(path)
		if res, ok, err := fileV1(ctx, path, &opts, loaded); !dir && (ok || err != nil) {
			if err != nil {
				return nil, err
			}
			out = append(out, res)
			continue
		}
		f, err := results.ReadTau2(path)
		if err != nil {
			return nil, err
		}
		meta, err := f.Meta()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if meta.Domain == "" {
			if len(f.Simulations) == 0 {
				out = append(out, File{File: filepath.Base(path)})
				continue
			}
			return nil, fmt.Errorf("%s: a τ²-bench results file that names no domain (info.environment_info.domain_name)", path)
		}
		// A solo run (upstream's is_solo_mode) is scored in solo mode.
		solo := results.IsSolo(f.Info)
		key := meta.Domain
		if solo {
			key += " solo"
		}
		dom, ok := loaded[key]
		if !ok {
			if dom, err = opts.Load(meta.Domain, solo); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			loaded[key] = dom
		}
		res, err := fileTau2(ctx, path, f, dom, &opts)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// Sim is one simulation's outcome; its JSON form is `rescore --json`'s
// line.
type Sim struct {
	File            string                       `json:"file"`
	SimulationIndex int                          `json:"simulation_index"`
	SimulationID    string                       `json:"simulation_id"`
	TaskID          string                       `json:"task_id"`
	Trial           int                          `json:"trial"`
	RecordedReward  *float64                     `json:"recorded_reward"`
	Reward          *float64                     `json:"reward"`
	RewardBreakdown map[tasks.RewardType]float64 `json:"reward_breakdown"`
	DBMatch         *bool                        `json:"db_match"`
	Notes           []string                     `json:"notes"`

	diff *Diff
	// info is the recomputed reward info as -o writes it (nil: the
	// simulation was not evaluated and keeps its recorded one).
	info       *evaluator.RewardInfo
	nlRecorded bool
	nlUnjudged bool
	relabelled bool
	missing    bool
	failed     bool
}

// File is one file's outcome.
type File struct {
	File       string
	Domain     string
	Sims       int
	Agree      int
	Disagree   []Diff
	NLRecorded int // agreements that used the recorded NL verdict
	// NLUnjudged counts simulations whose NL assertions neither the record
	// nor the rescoring judged (a run with --no-judge).
	NLUnjudged int
	// Relabelled counts simulations --relabel scored against another task
	// than their task_id.
	Relabelled int
	Missing    []string
	// Failed lists simulations that could not be evaluated (a trajectory
	// upstream's replay rejects, a broken task).
	Failed  []Diff
	Results []Sim
	// Notes say where a recording departs from the domain as pinned (a v1
	// list recorded on other task texts, other data or modified code).
	Notes []string

	path string // the file read
	tau2 bool   // a τ²-bench results file (WriteUpdated can rewrite it)
	// dir is the file as read when it is in upstream's directory format.
	dir *results.Tau2File
}

// Diff is a simulation whose rescored reward differs from the recorded one
// (or that could not be evaluated: Notes say why).
type Diff struct {
	TaskID     string
	Trial      int
	Recorded   float64
	Ours       float64
	Components []string
	Notes      []string
}

func fileTau2(ctx context.Context, path string, f *results.Tau2File, dom envs.Domain, opts *Options) (File, error) {
	res := File{File: filepath.Base(path), Domain: dom.Name(), Sims: len(f.Simulations)}
	recs, err := results.FromTau2(f)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	res.path, res.tau2 = path, true
	if f.MetaFile() != "" {
		res.dir = f
	}
	byID := map[string]*tasks.Task{}
	ts, err := f.Tau2Tasks(path)
	if err != nil {
		opts.warnf("rescore: %s: embedded tasks unreadable (%v); using the data directory's", res.File, err)
	}
	for i := range ts {
		byID[ts[i].ID] = &ts[i]
	}
	if opts.Criteria == "domain" {
		// upstream's --fresh-tasks: the data directory's tasks, a task it
		// no longer has keeping the file's definition, with a warning.
		var kept []string
		for _, t := range ts {
			if _, err := dom.Tasks().Find(t.ID); err != nil {
				kept = append(kept, t.ID)
			}
		}
		if len(kept) > 0 {
			opts.warnf("rescore: %s: %d task(s) not in the data directory keep the file's definition: %s", res.File, len(kept), strings.Join(kept, ", "))
		}
		fileTask := byID
		byID = map[string]*tasks.Task{}
		for _, id := range kept {
			byID[id] = fileTask[id]
		}
	} else {
		pinned := func(id string) *tasks.Task {
			t, err := dom.Tasks().Find(id)
			if err != nil {
				return nil
			}
			return t
		}
		if d, err := tasks.CompareEmbedded(ts, pinned, nil); err == nil && len(d.IDs) > 0 && opts.Criteria == "file" {
			opts.warnf("rescore: %s: the file's %s from the pinned ones; scored against the file's (--criteria domain scores against the pinned ones)", res.File, d)
		}
	}
	lookup := func(id string) *tasks.Task {
		if t, ok := byID[id]; ok {
			return t
		}
		t, err := dom.Tasks().Find(id)
		if err != nil {
			return nil
		}
		return t
	}
	return scoreRecords(ctx, res, recs, dom, lookup, opts)
}

// scoreRecords scores every record against the task lookup returns for it
// (nil: not found) on every core, and tallies the outcomes into res in the
// records' order; res.Results gets one Sim per record.
func scoreRecords(ctx context.Context, res File, recs []results.Record, dom envs.Domain, lookup func(id string) *tasks.Task, opts *Options) (File, error) {
	sims := make([]Sim, len(recs))
	// Each simulation is scored into sims[i], on every core.
	_, err := parallel.Map(ctx, len(recs), func(gctx context.Context, i int) (struct{}, error) {
		return struct{}{}, func() error {
			r := &recs[i]
			sim := &sims[i]
			*sim = Sim{File: res.File, SimulationIndex: i, SimulationID: r.ID, TaskID: r.TaskID, Trial: r.Trial, Notes: []string{}}
			if r.RewardInfo != nil {
				v := r.RewardInfo.Reward
				sim.RecordedReward = &v
			}
			var task *tasks.Task
			switch id := r.TaskID; {
			case opts.Criteria == "record":
				task = rebuildTask(lookup(id), id, r.RewardInfo)
			default:
				task = lookup(id)
				if opts.Relabel {
					if scored, ok := ScoredTaskID(r); ok && scored != id {
						if t := lookup(scored); t != nil {
							task = t
							sim.relabelled = true
							sim.Notes = append(sim.Notes, fmt.Sprintf("relabelled: scored against task %s, whose gold actions the recorded evaluation checked", scored))
						}
					}
				}
			}
			if task == nil {
				sim.missing = true
				sim.Notes = append(sim.Notes, "task not found")
				return nil
			}
			if err := gctx.Err(); err != nil {
				return err
			}
			ours, err := evaluator.Evaluate(gctx, dom, task, r.Messages, r.TerminationReason, evaluator.Options{Lenient: true})
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				sim.failed = true
				sim.Notes = append(sim.Notes, "not evaluated: "+err.Error())
				return nil
			}
			d, usedNL := compareReward(r.RewardInfo, &ours)
			reward := ours.Reward
			nl, _ := recordedNL(r.RewardInfo)
			switch {
			case usedNL:
				sim.nlRecorded = true
				reward *= nl
				sim.Notes = append(sim.Notes, fmt.Sprintf("NL_ASSERTION not judged: the recorded verdict (%g) stands in", nl))
			case slices.Contains(ours.NotEvaluated, tasks.RewardNLAssertion):
				sim.nlUnjudged = true
				sim.Notes = append(sim.Notes, "NL_ASSERTION judged neither here nor in the record: the reward omits it")
			}
			sim.Reward = &reward
			sim.RewardBreakdown = ours.RewardBreakdown
			if usedNL {
				bd := maps.Clone(ours.RewardBreakdown)
				if bd == nil {
					bd = map[tasks.RewardType]float64{}
				}
				bd[tasks.RewardNLAssertion] = nl
				sim.RewardBreakdown = bd
			}
			if ours.DBCheck != nil {
				m := ours.DBCheck.DBMatch
				sim.DBMatch = &m
			}
			sim.Notes = append(sim.Notes, ours.Notes...)
			final := ours
			final.Reward, final.RewardBreakdown = reward, sim.RewardBreakdown
			if usedNL {
				final.NLAssertions = r.RewardInfo.NLAssertions
				final.NotEvaluated = slices.DeleteFunc(slices.Clone(final.NotEvaluated), func(t tasks.RewardType) bool { return t == tasks.RewardNLAssertion })
				final.Notes = append(slices.Clone(final.Notes), "NL_ASSERTION: the recorded verdict, not judged again")
			}
			sim.info = &final
			if d != nil {
				d.TaskID, d.Trial = r.TaskID, r.Trial
				sim.diff = d
			}
			return nil
		}()
	})
	if err != nil {
		return res, err
	}
	for i := range sims {
		sim := &sims[i]
		if sim.relabelled {
			res.Relabelled++
		}
		switch {
		case sim.missing:
			res.Missing = append(res.Missing, sim.TaskID)
		case sim.failed:
			res.Failed = append(res.Failed, Diff{TaskID: sim.TaskID, Trial: sim.Trial, Notes: sim.Notes})
		case sim.diff != nil:
			res.Disagree = append(res.Disagree, *sim.diff)
		default:
			res.Agree++
			if sim.nlRecorded {
				res.NLRecorded++
			}
		}
		if sim.nlUnjudged {
			res.NLUnjudged++
		}
	}
	res.Results = sims
	return res, nil
}

// recordedNL is the recorded NL_ASSERTION verdict; false when the record
// holds none.
func recordedNL(rec *evaluator.RewardInfo) (float64, bool) {
	if rec == nil || rec.NLUnjudged() {
		return 0, false
	}
	nl, ok := rec.RewardBreakdown[tasks.RewardNLAssertion]
	return nl, ok
}

// rebuildTask returns the task with its evaluation criteria rebuilt from a
// recorded reward_info (the gold actions, environment assertions,
// communicate items and NL assertions it checked, and its basis); the
// initial state comes from base when known.
func rebuildTask(base *tasks.Task, id string, ri *evaluator.RewardInfo) *tasks.Task {
	t := &tasks.Task{ID: id}
	if base != nil {
		c := *base
		t = &c
	}
	if ri == nil {
		t.EvaluationCriteria = nil
		return t
	}
	crit := &tasks.EvaluationCriteria{RewardBasis: ri.RewardBasis}
	for _, c := range ri.ActionChecks {
		crit.Actions = append(crit.Actions, c.Action)
	}
	for _, c := range ri.EnvAssertions {
		crit.EnvAssertions = append(crit.EnvAssertions, c.EnvAssertion)
	}
	for _, c := range ri.CommunicateChecks {
		crit.CommunicateInfo = append(crit.CommunicateInfo, c.Info)
	}
	for _, c := range ri.NLAssertions {
		crit.NLAssertions = append(crit.NLAssertions, c.NLAssertion)
	}
	t.EvaluationCriteria = crit
	return t
}

// ScoredTaskID returns the task whose gold actions the recorded evaluation
// checked (for --relabel and gate-audit), when every recorded action id has
// the form "<task id>_<n>" with one task id (τ²-bench's airline and retail
// action ids).
func ScoredTaskID(r *results.Record) (string, bool) {
	if r.RewardInfo == nil || len(r.RewardInfo.ActionChecks) == 0 {
		return "", false
	}
	id := ""
	for _, c := range r.RewardInfo.ActionChecks {
		i := strings.LastIndexByte(c.Action.ActionID, '_')
		if i <= 0 {
			return "", false
		}
		if p := c.Action.ActionID[:i]; id == "" {
			id = p
		} else if p != id {
			return "", false
		}
	}
	return id, true
}

// Reward is our rescored reward: where we did not judge NL assertions, the
// recorded NL verdict stands in; it reports whether it stood in. Where the
// record holds no NL verdict either (a run with --no-judge), nothing
// stands in: the reward omits NL_ASSERTION.
func Reward(rec, ours *evaluator.RewardInfo) (float64, bool) {
	if !slices.Contains(ours.NotEvaluated, tasks.RewardNLAssertion) {
		return ours.Reward, false
	}
	nl, ok := recordedNL(rec)
	if !ok {
		return ours.Reward, false
	}
	return ours.Reward * nl, true
}

// compareReward compares a recorded reward with ours. Where ours did not
// judge NL assertions, the recorded NL component stands in. It returns nil
// when the rewards agree, and whether the recorded NL verdict was used.
func compareReward(rec, ours *evaluator.RewardInfo) (*Diff, bool) {
	recReward := 0.0
	if rec != nil {
		recReward = rec.Reward
	}
	oursReward, usedNL := Reward(rec, ours)
	if math.Abs(recReward-oursReward) <= 1e-6 {
		return nil, usedNL
	}
	d := &Diff{Recorded: recReward, Ours: oursReward, Notes: ours.Notes}
	if rec == nil {
		d.Components = append(d.Components, "recorded reward_info missing")
		return d, usedNL
	}
	d.Components = componentDiffs(rec, ours)
	return d, usedNL
}

// componentDiffs names what differs between two reward infos.
func componentDiffs(rec, ours *evaluator.RewardInfo) []string {
	var out []string
	keys := map[tasks.RewardType]bool{}
	for k := range rec.RewardBreakdown {
		keys[k] = true
	}
	for k := range ours.RewardBreakdown {
		keys[k] = true
	}
	var sorted []tasks.RewardType
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	for _, k := range sorted {
		a, okA := rec.RewardBreakdown[k]
		b, okB := ours.RewardBreakdown[k]
		if k == tasks.RewardNLAssertion && slices.Contains(ours.NotEvaluated, k) {
			continue
		}
		if okA != okB || math.Abs(a-b) > 1e-6 {
			out = append(out, fmt.Sprintf("%s %s→%s", k, fmtComp(a, okA), fmtComp(b, okB)))
		}
	}
	if rec.DBCheck != nil && ours.DBCheck != nil && rec.DBCheck.DBMatch != ours.DBCheck.DBMatch {
		out = append(out, fmt.Sprintf("db_match %v→%v", rec.DBCheck.DBMatch, ours.DBCheck.DBMatch))
	}
	if len(rec.ActionChecks) == len(ours.ActionChecks) {
		for i := range rec.ActionChecks {
			if a, b := rec.ActionChecks[i], ours.ActionChecks[i]; a.ActionMatch != b.ActionMatch {
				out = append(out, fmt.Sprintf("action %s %v→%v", b.Action.Name, a.ActionMatch, b.ActionMatch))
			}
		}
	} else {
		out = append(out, fmt.Sprintf("action checks %d→%d", len(rec.ActionChecks), len(ours.ActionChecks)))
	}
	if len(rec.EnvAssertions) == len(ours.EnvAssertions) {
		for i := range rec.EnvAssertions {
			if a, b := rec.EnvAssertions[i], ours.EnvAssertions[i]; a.Met != b.Met {
				out = append(out, fmt.Sprintf("env assertion %s %v→%v", b.EnvAssertion.FuncName, a.Met, b.Met))
			}
		}
	}
	if len(rec.CommunicateChecks) == len(ours.CommunicateChecks) {
		for i := range rec.CommunicateChecks {
			if a, b := rec.CommunicateChecks[i], ours.CommunicateChecks[i]; a.Met != b.Met {
				out = append(out, fmt.Sprintf("communicate %q %v→%v", b.Info, a.Met, b.Met))
			}
		}
	}
	if len(out) == 0 {
		out = append(out, "reward only (no component differs)")
	}
	return out
}

func fmtComp(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%g", v)
}

// UpdatedName is the name -o gives a rescored file, upstream's
// evaluate-trajs' (updated_<name>).
func UpdatedName(file string) string { return "updated_" + filepath.Base(file) }

// WriteUpdated writes every rescored τ²-bench file into dir as
// evaluate-trajs -o does: UpdatedName(file), the file as it was with each
// evaluated simulation's reward_info recomputed (a simulation that could
// not be evaluated keeps its recorded one). It returns the paths written.
// A τ-bench v1 list, or two inputs of one name, is refused before anything
// is written.
func WriteUpdated(files []File, dir string) ([]string, error) {
	seen := map[string]string{}
	for _, f := range files {
		if !f.tau2 {
			return nil, fmt.Errorf("rescore -o: %s is not a τ²-bench results file (only those are rewritten, as upstream's evaluate-trajs)", f.File)
		}
		name := UpdatedName(f.path)
		if f.dir != nil && filepath.Base(f.path) == results.Tau2DirMeta {
			// its simulations/ goes beside it, as upstream saves it
			name = results.Tau2DirSims
		}
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("rescore -o: %s and %s would both be written as %s", prev, f.path, name)
		}
		seen[name] = f.path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("rescore -o: %w", err)
	}
	var out []string
	for _, f := range files {
		if f.dir != nil {
			p, err := writeUpdatedDir(f, dir)
			if err != nil {
				return out, err
			}
			out = append(out, p)
			continue
		}
		data, err := os.ReadFile(f.path)
		if err != nil {
			return out, fmt.Errorf("rescore -o: %w", err)
		}
		infos := make([]*evaluator.RewardInfo, len(f.Results))
		for i := range f.Results {
			infos[i] = f.Results[i].info
		}
		b, err := results.RewriteTau2Rewards(data, infos)
		if err != nil {
			return out, fmt.Errorf("rescore -o: %s: %w", f.path, err)
		}
		p := filepath.Join(dir, UpdatedName(f.path))
		if err := atomicfile.Write(p, b); err != nil {
			return out, fmt.Errorf("rescore -o: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// writeUpdatedDir writes a directory-format file in its format, as
// upstream saves it: an input directory D as dir/updated_D/ (results.json,
// simulations/), an input results.json as dir/updated_results.json with
// dir/simulations/ beside it. It returns the directory or file written.
func writeUpdatedDir(f File, dir string) (string, error) {
	infos := make([]*evaluator.RewardInfo, len(f.Results))
	for i := range f.Results {
		infos[i] = f.Results[i].info
	}
	root, metaName, written := filepath.Join(dir, UpdatedName(f.path)), results.Tau2DirMeta, ""
	if fi, err := os.Stat(f.path); err == nil && !fi.IsDir() {
		root, metaName = dir, UpdatedName(f.path)
		written = filepath.Join(dir, metaName)
	} else {
		written = root
	}
	parts, err := results.RewriteTau2DirRewards(f.dir, infos, metaName)
	if err != nil {
		return "", fmt.Errorf("rescore -o: %s: %w", f.path, err)
	}
	if err := os.MkdirAll(filepath.Join(root, results.Tau2DirSims), 0o755); err != nil {
		return "", fmt.Errorf("rescore -o: %w", err)
	}
	for _, p := range parts {
		if err := atomicfile.Write(filepath.Join(root, p.Path), p.Data); err != nil {
			return "", fmt.Errorf("rescore -o: %w", err)
		}
	}
	return written, nil
}
