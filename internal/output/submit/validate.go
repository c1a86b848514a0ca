package submit

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// MinTrials is the number of trials per task the leaderboard asks for.
const MinTrials = 4

// Check is one validation step.
type Check struct {
	Name   string
	File   string // the trajectory file it concerns ("" for the submission)
	OK     bool
	Detail string
}

// Report is a validation's outcome. Failed checks make a submission
// invalid; warnings (upstream prints them, and so do we) do not.
type Report struct {
	Checks   []Check
	Warnings []string
	Metrics  map[string]Metrics
}

// OK reports whether every check passed.
func (r *Report) OK() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

func (r *Report) add(name, file string, err error) bool {
	c := Check{Name: name, File: file, OK: err == nil}
	if err != nil {
		c.Detail = err.Error()
	}
	r.Checks = append(r.Checks, c)
	return c.OK
}

// BaseTasks returns a domain's base split (the tasks a submission must
// cover); an error when the domain is not available.
type BaseTasks func(domain string) ([]tasks.Task, error)

// Validate runs upstream's `tau2 submit validate` checks on a submission
// directory: submission.json and trajectories/ load; each domain appears once
// and every file has the same agent and user simulator settings; each file
// holds every task of the domain's base split, unchanged, each run num_trials
// times; and submission.json's metrics equal those computed from the
// trajectories. ledgerbench adds that every domain has at least MinTrials
// trials (the leaderboard's requirement, which upstream's docs state).
func Validate(dir string, base BaseTasks) (*Report, error) {
	rep := &Report{Metrics: map[string]Metrics{}}
	sub, err := ReadSubmission(filepath.Join(dir, SubmissionFile))
	if !rep.add("submission file", "", err) {
		return rep, nil
	}
	trajDir := filepath.Join(dir, TrajectoriesDir)
	var files []string
	err = filepath.WalkDir(trajDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no trajectory files in %s", trajDir)
	}
	if !rep.add("trajectory files", "", err) {
		return rep, nil
	}
	sort.Strings(files)

	var set []*results.Tau2File
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		f, checks := verifyFile(p, rel, base)
		rep.Checks = append(rep.Checks, checks...)
		if f == nil {
			continue
		}
		set = append(set, f)
		meta, _ := f.Meta()
		var few error
		if meta.Trials < MinTrials {
			few = fmt.Errorf("%d trials per task; the leaderboard asks for at least %d", meta.Trials, MinTrials)
		}
		rep.add("at least 4 trials", rel, few)
	}
	if len(set) < len(files) {
		return rep, nil
	}
	rep.add("one result per domain, same agent and user simulator", "", checkSet(set))

	// Metrics (upstream's validate_submission_metrics).
	for i, f := range set {
		rel, _ := filepath.Rel(dir, files[i])
		meta, _ := f.Meta()
		m, err := Compute(f)
		if !rep.add("metrics", rel, err) {
			continue
		}
		rep.Metrics[meta.Domain] = m
		if i == 0 {
			if sub.ModelName != meta.Backbone {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("model name %s does not match the model of the trajectories %s", sub.ModelName, meta.Backbone))
			}
			if sub.Methodology != nil && (sub.Methodology.UserSimulator == nil || *sub.Methodology.UserSimulator != meta.UserBackbone) {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("user simulator %v does not match the user simulator of the trajectories %s", deref(sub.Methodology.UserSimulator), meta.UserBackbone))
			}
		}
		slot := sub.Results.Domain(meta.Domain)
		if slot == nil || *slot == nil {
			rep.add("metrics match", rel, fmt.Errorf("domain %s found in trajectories but missing from submission.json", meta.Domain))
			continue
		}
		got, want := *slot, m.Results()
		var diffs []string
		for k := 1; k <= 4; k++ {
			if !sameValue(got.PassK(k), want.PassK(k)) {
				diffs = append(diffs, fmt.Sprintf("pass^%d %s, computed %s", k, show(got.PassK(k)), show(want.PassK(k))))
			}
		}
		if !sameValue(got.Cost, want.Cost) {
			diffs = append(diffs, fmt.Sprintf("cost %s, computed %s", show(got.Cost), show(want.Cost)))
		}
		var err2 error
		if len(diffs) > 0 {
			err2 = fmt.Errorf("%s: %s", meta.Domain, strings.Join(diffs, "; "))
		}
		rep.add("metrics match", rel, err2)
	}
	// Runs on offline backbones or with NL assertions not judged are never
	// standard; as custom entries they are said.
	for i, f := range set {
		rel, _ := filepath.Rel(dir, files[i])
		why, err := fileNonStandard(f)
		if err != nil {
			rep.add("standard submission", rel, err)
			continue
		}
		switch {
		case sub.SubmissionType == "standard" && len(why) > 0:
			rep.add("standard submission", rel, fmt.Errorf("never a standard submission: %s (prepare it with --custom)", strings.Join(why, "; ")))
		case sub.SubmissionType == "standard":
			rep.add("standard submission", rel, nil)
		case len(why) > 0:
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: a custom entry: %s", rel, strings.Join(why, "; ")))
		}
	}
	if sub.SubmissionType == "standard" {
		for i, f := range set {
			var in struct {
				AgentInfo struct {
					Implementation string `json:"implementation"`
				} `json:"agent_info"`
			}
			_ = json.Unmarshal(f.Info, &in)
			if impl := in.AgentInfo.Implementation; impl != "baseline" && impl != "llm_agent" {
				rel, _ := filepath.Rel(dir, files[i])
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: a standard submission, but the agent is %q, not τ²-bench's baseline", rel, impl))
			}
		}
	}
	return rep, nil
}

// checkTasks is upstream's check_tasks: the file's tasks are exactly the
// domain's base split, each unchanged.
func checkTasks(f *results.Tau2File, domain string, base BaseTasks) error {
	want, err := base(domain)
	if err != nil {
		return err
	}
	got, err := f.Tau2Tasks(domain)
	if err != nil {
		return fmt.Errorf("embedded tasks: %w", err)
	}
	byID := map[string]tasks.Task{}
	for _, t := range got {
		byID[t.ID] = t
	}
	var missing, extra, changed []string
	wantIDs := map[string]bool{}
	for _, t := range want {
		wantIDs[t.ID] = true
		g, ok := byID[t.ID]
		if !ok {
			missing = append(missing, t.ID)
			continue
		}
		if taskDump(t) != taskDump(g) {
			changed = append(changed, t.ID)
		}
	}
	for _, t := range got {
		if !wantIDs[t.ID] {
			extra = append(extra, t.ID)
		}
	}
	var errs []string
	if len(missing) > 0 {
		errs = append(errs, fmt.Sprintf("missing tasks: %s", list(missing)))
	}
	if len(extra) > 0 {
		errs = append(errs, fmt.Sprintf("extra tasks: %s", list(extra)))
	}
	if len(errs) == 0 && len(changed) > 0 {
		errs = append(errs, fmt.Sprintf("task mismatches found in %d tasks: %s", len(changed), list(changed)))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// taskDump is a task as upstream's get_pydantic_hash hashes it:
// json.dumps(model_dump, sort_keys=True), so key order does not matter and
// an int differs from a float (1 and 1.0); a key upstream's Task model does
// not have (annotations) is not in its dump, a field left out is its
// default (an action's requestor "assistant", an assertion's assert_value
// true, null for the optional rest).
func taskDump(t tasks.Task) string {
	t.Annotations = nil
	if string(t.Issues) == "null" {
		t.Issues = nil
	}
	if c := t.EvaluationCriteria; c != nil {
		cc := *c
		cc.Actions = slices.Clone(c.Actions)
		for i := range cc.Actions {
			if cc.Actions[i].Requestor == "" {
				cc.Actions[i].Requestor = "assistant"
			}
		}
		cc.EnvAssertions = slices.Clone(c.EnvAssertions)
		for i := range cc.EnvAssertions {
			if cc.EnvAssertions[i].AssertValue == nil {
				yes := true
				cc.EnvAssertions[i].AssertValue = &yes
			}
		}
		t.EvaluationCriteria = &cc
	}
	b, err := json.Marshal(t)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	v, err := pyjson.Decode(b)
	if err != nil {
		return string(b)
	}
	out, err := pyjson.MarshalOptions(v, pyjson.Options{SortKeys: true, UnicodeOK: true})
	if err != nil {
		return string(b)
	}
	return string(out)
}

// checkTrials is upstream's check_num_trials: every task of the file has
// num_trials simulations.
func checkTrials(f *results.Tau2File, domain string, trials int) error {
	n := map[string]int{}
	for _, s := range f.Simulations {
		n[s.TaskID]++
	}
	var wrong []string
	ts, err := f.Tau2Tasks(domain)
	if err != nil {
		return fmt.Errorf("embedded tasks: %w", err)
	}
	for _, t := range ts {
		if n[t.ID] != trials {
			wrong = append(wrong, fmt.Sprintf("%s (%d)", t.ID, n[t.ID]))
		}
	}
	if len(wrong) > 0 {
		return fmt.Errorf("incorrect trial counts for %d tasks (want %d): %s", len(wrong), trials, list(wrong))
	}
	return nil
}

func list(ids []string) string {
	if len(ids) > 10 {
		return strings.Join(ids[:10], ", ") + fmt.Sprintf(", … (%d more)", len(ids)-10)
	}
	return strings.Join(slices.Clone(ids), ", ")
}

// sameValue compares two optional metrics; values within 1e-9 are the same
// (upstream's pandas mean can differ from ours in the last bit).
func sameValue(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) <= 1e-9*math.Max(1, math.Abs(*b))
}

func show(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
