package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/domains"
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
	DataDir  string
}

func newCmdRescore(s *Streams, g *globalOptions) *cobra.Command {
	opts := &rescoreOptions{}
	cmd := &cobra.Command{
		Use:   "rescore FILE…",
		Short: "Re-evaluate recorded τ²-bench runs with ledgerbench's environments",
		Long: `Re-score every simulation of τ²-bench results files with ledgerbench's domains and
evaluator (lenient replay: a recorded tool output that our environment reproduces
differently becomes a note, not an error) and report agreement with the recorded
rewards: per file the simulations, how many agree, and for each disagreement the
task, the recorded and recomputed rewards and the reward components that differ.

NL assertions are not judged: where a task's basis has NL_ASSERTION, the recorded
NL verdict stands in for it (counted as "NL from record"). Tasks are those embedded
in the file (the versions the run was scored with); --domain-tasks uses the data
directory's tasks instead.

τ-bench v1 / τ-Trait result lists (a JSON array of {task_id, reward, info, traj,
trial}) of telehealth are scored with τ-Trait's reward; their task ids index the
test split.`,
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
	return cmd
}

// rescoreFile is one file's outcome.
type rescoreFile struct {
	File       string
	Domain     string
	Sims       int
	Agree      int
	Disagree   []rescoreDiff
	NLRecorded int // agreements that used the recorded NL verdict
	// Relabelled counts simulations whose recorded reward was computed for
	// another task than their task_id says (see scoredTaskID).
	Relabelled int
	Missing    []string
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
		if res, ok, err := rescoreV1(ctx, path, opts.DataDir, loaded); ok || err != nil {
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
			if dom, err = load(meta.Domain, opts.DataDir); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			loaded[key] = dom
		}
		res, err := rescore(ctx, path, f, dom, opts.Criteria, s.ErrOut)
		if err != nil {
			return err
		}
		out = append(out, res)
	}
	writeRescore(s.Out, out, opts.Verbose)
	return nil
}

func rescore(ctx context.Context, path string, f *results.Tau2File, dom envs.Domain, criteria string, errOut io.Writer) (rescoreFile, error) {
	res := rescoreFile{File: filepath.Base(path), Domain: dom.Name(), Sims: len(f.Simulations)}
	recs, err := results.FromTau2(f)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	byID := map[string]*tasks.Task{}
	if criteria != "domain" {
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
	diffs := make([]*rescoreDiff, len(recs))
	nlRec := make([]bool, len(recs))
	missing := make([]bool, len(recs))
	relabelled := make([]string, len(recs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range recs {
		g.Go(func() error {
			r := &recs[i]
			score := func(task *tasks.Task) error {
				if task == nil {
					missing[i] = true
					return nil
				}
				ours, err := evaluator.Evaluate(gctx, dom, task, r.Messages, r.TerminationReason, evaluator.Options{Lenient: true})
				if err != nil {
					return fmt.Errorf("%s: task %s trial %d: %w", path, r.TaskID, r.Trial, err)
				}
				d, usedNL := compareReward(r.RewardInfo, &ours)
				nlRec[i] = usedNL
				if d != nil {
					d.TaskID, d.Trial = r.TaskID, r.Trial
					diffs[i] = d
				}
				return nil
			}
			id := r.TaskID
			if criteria == "record" {
				task := rebuildTask(lookup(id), id, r.RewardInfo)
				return score(task)
			}
			if scored, ok := scoredTaskID(r); ok && scored != id && lookup(scored) != nil {
				// The recorded evaluation used another task's criteria
				// (mislabelled simulations): score against that task.
				id = scored
				relabelled[i] = scored
			}
			return score(lookup(id))
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	for i := range recs {
		if relabelled[i] != "" {
			res.Relabelled++
		}
		switch {
		case missing[i]:
			res.Missing = append(res.Missing, recs[i].TaskID)
		case diffs[i] != nil:
			res.Disagree = append(res.Disagree, *diffs[i])
		default:
			res.Agree++
			if nlRec[i] {
				res.NLRecorded++
			}
		}
	}
	return res, nil
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
// checked, when every recorded action id has the form "<task id>_<n>" with
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
	r := ours.Reward
	if rec != nil {
		if nl, ok := rec.RewardBreakdown[tasks.RewardNLAssertion]; ok {
			r *= nl
		}
	}
	return r, true
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
	fmt.Fprintln(tw, "FILE\tDOMAIN\tSIMS\tAGREE\tDISAGREE\tNL FROM RECORD\tRELABELLED\tNO TASK")
	var tot rescoreFile
	for _, f := range files {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", f.File, f.Domain, f.Sims, f.Agree, len(f.Disagree), f.NLRecorded, f.Relabelled, len(f.Missing))
		tot.Relabelled += f.Relabelled
		tot.Sims += f.Sims
		tot.Agree += f.Agree
		tot.NLRecorded += f.NLRecorded
		tot.Disagree = append(tot.Disagree, f.Disagree...)
		tot.Missing = append(tot.Missing, f.Missing...)
	}
	if len(files) > 1 {
		fmt.Fprintf(tw, "total\t\t%d\t%d\t%d\t%d\t%d\t%d\n", tot.Sims, tot.Agree, len(tot.Disagree), tot.NLRecorded, tot.Relabelled, len(tot.Missing))
	}
	tw.Flush()
	if tot.Relabelled > 0 {
		fmt.Fprintln(w, "RELABELLED: simulations whose recorded evaluation checked another task's gold actions than their task_id names; they are scored against that task.")
	}
	for _, f := range files {
		if len(f.Disagree) == 0 && len(f.Missing) == 0 {
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
		if len(f.Missing) > 0 {
			fmt.Fprintf(w, "  tasks not found: %s\n", list20(f.Missing))
		}
	}
}
