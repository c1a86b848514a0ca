package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/domains"
	"github.com/ledgerbench/ledgerbench/internal/parallel"
	"github.com/ledgerbench/ledgerbench/results"
	"github.com/ledgerbench/ledgerbench/tasks"
)

type rescoreOptions struct {
	Files []string
	// Criteria says where the evaluation criteria come from: "file"
	// (the tasks embedded in the results file), "domain" (the data
	// directory's tasks) or "record" (rebuilt from each recorded
	// reward_info).
	Criteria string
	Verbose  bool
	// JSON writes one object per simulation instead of the table.
	JSON bool
	// Relabel scores a simulation whose recorded evaluation checked another
	// task's gold actions against that task (a repair for mislabelled files;
	// never the default, reported per simulation).
	Relabel bool
	// AllowModifiedData lets data files that differ from their pins through.
	AllowModifiedData bool
	DataDir           string
}

func newCmdRescore(s *Streams, g *globalOptions) *cobra.Command {
	opts := &rescoreOptions{}
	cmd := &cobra.Command{
		Use:   "rescore FILE…",
		Short: "Re-evaluate recorded τ²-bench runs with ledgerbench's environments",
		Long: `Re-score every simulation of τ²-bench results files with ledgerbench's domains and
evaluator, as upstream's "tau2 evaluate-trajs" does: each simulation against the task its
task_id names, with lenient replay (a recorded tool output that our environment reproduces
differently becomes a note, not an error). Reports agreement with the recorded rewards:
per file the simulations, how many agree, and for each disagreement the task, the recorded
and recomputed rewards and the reward components that differ. --json writes one object per
simulation instead.

NL assertions are not judged: where a task's basis has NL_ASSERTION, the recorded
NL verdict stands in for it (counted as "NL from record"). Tasks are those embedded
in the file (the versions the run was scored with); --criteria domain uses the data
directory's tasks instead (upstream's --fresh-tasks).

--relabel is a repair for mislabelled files: a simulation whose recorded evaluation
checked the gold actions of another task than its task_id names is scored against that
task, with a note. It never applies by default.

τ-bench v1 / τ-Trait result lists (a JSON array of {task_id, reward, info, traj,
trial}) of telehealth are scored with τ-Trait's reward, one --json object per entry;
their task ids index the test split.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains([]string{"file", "domain", "record"}, opts.Criteria) {
				return usageError{fmt.Errorf("--criteria %q: want file, domain or record", opts.Criteria)}
			}
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			opts.DataDir = dir
			opts.Files = args
			return runRescore(cmd.Context(), s, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Criteria, "criteria", "file", "evaluation criteria from: file (tasks embedded in the file), domain (the data directory's tasks), record (rebuilt from each recorded reward_info)")
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "print the replay notes of each disagreement")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "write one JSON object per simulation (file, simulation_index, simulation_id, task_id, trial, recorded_reward, reward, reward_breakdown, db_match, notes)")
	cmd.Flags().BoolVar(&opts.AllowModifiedData, "allow-modified-data", false, allowModifiedUsage)
	cmd.Flags().BoolVar(&opts.Relabel, "relabel", false, "score a simulation whose recorded evaluation checked another task's gold actions against that task (noted per simulation)")
	return cmd
}

// rescoreSim is one simulation's outcome; its JSON form is rescore --json's
// line.
type rescoreSim struct {
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

	diff       *rescoreDiff
	nlRecorded bool
	relabelled bool
	missing    bool
	failed     bool
}

// rescoreFile is one file's outcome.
type rescoreFile struct {
	File       string
	Domain     string
	Sims       int
	Agree      int
	Disagree   []rescoreDiff
	NLRecorded int // agreements that used the recorded NL verdict
	// Relabelled counts simulations --relabel scored against another task
	// than their task_id.
	Relabelled int
	Missing    []string
	// Failed lists simulations that could not be evaluated (a trajectory
	// upstream's replay rejects, a broken task).
	Failed  []rescoreDiff
	Results []rescoreSim
}

type rescoreDiff struct {
	TaskID     string
	Trial      int
	Recorded   float64
	Ours       float64
	Components []string
	Notes      []string
}

func runRescore(ctx context.Context, s *Streams, opts *rescoreOptions) error {
	loaded := map[string]envs.Domain{}
	var out []rescoreFile
	for _, path := range opts.Files {
		if res, ok, err := rescoreV1(ctx, path, opts, loaded, s.ErrOut); ok || err != nil {
			if err != nil {
				return err
			}
			out = append(out, res)
			continue
		}
		f, err := results.ReadTau2(path)
		if err != nil {
			return err
		}
		meta, err := f.Meta()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		// A solo run (upstream's is_solo_mode) is scored in solo mode.
		solo := results.IsSolo(f.Info)
		key, load := meta.Domain, domains.Load
		if solo {
			key, load = meta.Domain+" solo", domains.LoadSolo
		}
		dom, ok := loaded[key]
		if !ok {
			if dom, _, err = loadDomain(load, meta.Domain, opts.DataDir, opts.AllowModifiedData, s.ErrOut); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			loaded[key] = dom
		}
		res, err := rescore(ctx, path, f, dom, opts, s.ErrOut)
		if err != nil {
			return err
		}
		out = append(out, res)
	}
	if opts.JSON {
		enc := json.NewEncoder(s.Out)
		for _, f := range out {
			for _, r := range f.Results {
				if err := enc.Encode(r); err != nil {
					return fmt.Errorf("write rescore results: %w", err)
				}
			}
		}
		return nil
	}
	writeRescore(s.Out, out, opts.Verbose)
	return nil
}

func rescore(ctx context.Context, path string, f *results.Tau2File, dom envs.Domain, opts *rescoreOptions, errOut io.Writer) (rescoreFile, error) {
	res := rescoreFile{File: filepath.Base(path), Domain: dom.Name(), Sims: len(f.Simulations)}
	recs, err := results.FromTau2(f)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	byID := map[string]*tasks.Task{}
	if opts.Criteria != "domain" {
		ts, err := f.Tau2Tasks(path)
		if err != nil {
			fmt.Fprintf(errOut, "rescore: %s: embedded tasks unreadable (%v); using the data directory's\n", res.File, err)
		}
		for i := range ts {
			byID[ts[i].ID] = &ts[i]
		}
	}
	lookup := func(id string) *tasks.Task {
		if t, ok := byID[id]; ok {
			return t
		}
		t, err := findTask(dom.Tasks(), id)
		if err != nil {
			return nil
		}
		return t
	}
	return scoreRecords(ctx, res, recs, dom, lookup, opts)
}

// scoreRecords scores every record against the task lookup returns for it
// (nil: not found) on every core, and tallies the outcomes into res in the
// records' order; res.Results gets one rescoreSim per record.
func scoreRecords(ctx context.Context, res rescoreFile, recs []results.Record, dom envs.Domain, lookup func(id string) *tasks.Task, opts *rescoreOptions) (rescoreFile, error) {
	sims := make([]rescoreSim, len(recs))
	// Each simulation is scored into sims[i], on every core.
	_, err := parallel.Map(ctx, len(recs), func(gctx context.Context, i int) (struct{}, error) {
		return struct{}{}, func() error {
			r := &recs[i]
			sim := &sims[i]
			*sim = rescoreSim{File: res.File, SimulationIndex: i, SimulationID: r.ID, TaskID: r.TaskID, Trial: r.Trial, Notes: []string{}}
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
					if scored, ok := scoredTaskID(r); ok && scored != id {
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
			if usedNL {
				sim.nlRecorded = true
				nl := recordedNL(r.RewardInfo)
				reward *= nl
				sim.Notes = append(sim.Notes, fmt.Sprintf("NL_ASSERTION not judged: the recorded verdict (%g) stands in", nl))
			}
			sim.Reward = &reward
			sim.RewardBreakdown = ours.RewardBreakdown
			if usedNL {
				bd := maps.Clone(ours.RewardBreakdown)
				if bd == nil {
					bd = map[tasks.RewardType]float64{}
				}
				bd[tasks.RewardNLAssertion] = recordedNL(r.RewardInfo)
				sim.RewardBreakdown = bd
			}
			if ours.DBCheck != nil {
				m := ours.DBCheck.DBMatch
				sim.DBMatch = &m
			}
			sim.Notes = append(sim.Notes, ours.Notes...)
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
			res.Failed = append(res.Failed, rescoreDiff{TaskID: sim.TaskID, Trial: sim.Trial, Notes: sim.Notes})
		case sim.diff != nil:
			res.Disagree = append(res.Disagree, *sim.diff)
		default:
			res.Agree++
			if sim.nlRecorded {
				res.NLRecorded++
			}
		}
	}
	res.Results = sims
	return res, nil
}

// recordedNL is the recorded NL_ASSERTION component (1 when none was
// recorded).
func recordedNL(rec *evaluator.RewardInfo) float64 {
	if rec != nil {
		if nl, ok := rec.RewardBreakdown[tasks.RewardNLAssertion]; ok {
			return nl
		}
	}
	return 1
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

// scoredTaskID returns the task whose gold actions the recorded evaluation
// checked (for --relabel only), when every recorded action id has the form "<task id>_<n>" with
// one task id (τ²-bench's airline and retail action ids).
func scoredTaskID(r *results.Record) (string, bool) {
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

// rescoredReward is our reward where we did not judge NL assertions, the
// recorded NL component standing in; it reports whether it stood in.
func rescoredReward(rec, ours *evaluator.RewardInfo) (float64, bool) {
	if !slices.Contains(ours.NotEvaluated, tasks.RewardNLAssertion) {
		return ours.Reward, false
	}
	return ours.Reward * recordedNL(rec), true
}

// compareReward compares a recorded reward with ours. Where ours did not
// judge NL assertions, the recorded NL component stands in. It returns nil
// when the rewards agree, and whether the recorded NL verdict was used.
func compareReward(rec, ours *evaluator.RewardInfo) (*rescoreDiff, bool) {
	recReward := 0.0
	if rec != nil {
		recReward = rec.Reward
	}
	oursReward, usedNL := rescoredReward(rec, ours)
	if math.Abs(recReward-oursReward) <= 1e-6 {
		return nil, usedNL
	}
	d := &rescoreDiff{Recorded: recReward, Ours: oursReward, Notes: ours.Notes}
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

func writeRescore(w io.Writer, files []rescoreFile, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tDOMAIN\tSIMS\tAGREE\tDISAGREE\tNL FROM RECORD\tRELABELLED\tNO TASK\tNOT EVALUATED")
	var tot rescoreFile
	for _, f := range files {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", f.File, f.Domain, f.Sims, f.Agree, len(f.Disagree), f.NLRecorded, f.Relabelled, len(f.Missing), len(f.Failed))
		tot.Relabelled += f.Relabelled
		tot.Sims += f.Sims
		tot.Agree += f.Agree
		tot.NLRecorded += f.NLRecorded
		tot.Disagree = append(tot.Disagree, f.Disagree...)
		tot.Missing = append(tot.Missing, f.Missing...)
		tot.Failed = append(tot.Failed, f.Failed...)
	}
	if len(files) > 1 {
		fmt.Fprintf(tw, "total\t\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", tot.Sims, tot.Agree, len(tot.Disagree), tot.NLRecorded, tot.Relabelled, len(tot.Missing), len(tot.Failed))
	}
	tw.Flush()
	if tot.Relabelled > 0 {
		fmt.Fprintln(w, "RELABELLED (--relabel): simulations whose recorded evaluation checked another task's gold actions than their task_id names, scored against that task.")
	}
	for _, f := range files {
		if len(f.Disagree) == 0 && len(f.Missing) == 0 && len(f.Failed) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", f.File)
		for _, d := range f.Disagree {
			fmt.Fprintf(w, "  task %s trial %d: recorded %g, ours %g: %s\n", d.TaskID, d.Trial, d.Recorded, d.Ours, strings.Join(d.Components, "; "))
			if verbose {
				for _, n := range d.Notes {
					fmt.Fprintf(w, "    note: %s\n", truncate(n, 400))
				}
			}
		}
		for _, d := range f.Failed {
			fmt.Fprintf(w, "  task %s trial %d: %s\n", d.TaskID, d.Trial, strings.Join(d.Notes, "; "))
		}
		if len(f.Missing) > 0 {
			fmt.Fprintf(w, "  tasks not found: %s\n", list20(f.Missing))
		}
	}
}
