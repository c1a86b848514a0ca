package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/output/submit"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// simSubmissionRun runs an agent on the whole base split of a domain with
// the sim backbones, 4 trials, and returns a copy of the run at
// dir/<domain>-<agent> (see sharedRun).
func simSubmissionRun(t *testing.T, dir, domain, agent string, extra ...string) string {
	t.Helper()
	name := domain + "-" + agent
	key := strings.Join(append([]string{name}, extra...), " ")
	return sharedRun(t, key, filepath.Join(dir, name), func(t *testing.T, dir string) string {
		out := filepath.Join(dir, name)
		mustRun(t, append([]string{"run", "--domain", domain, "--agent", agent, "--backbone", "sim", "--user-backbone", "sim",
			"--no-judge", "--trials", "4", "--concurrency", "8", "--quiet", "--out", out}, extra...)...)
		return out
	})
}

// sharedRuns are the runs sharedRun made, in one directory that TestMain
// removes.
var sharedRuns struct {
	mu   sync.Mutex
	dir  string
	runs map[string]*sharedRunOnce
}

type sharedRunOnce struct {
	once sync.Once
	path string // "" when the build failed
}

// sharedRun returns a copy at to of the run that build makes, in a
// directory of its own, once per test binary for each key: several tests
// start from the same whole-split run, and each changes only its copy.
// A test that finds the build failed (in another test) fails too.
func sharedRun(t *testing.T, key, to string, build func(t *testing.T, dir string) string) string {
	t.Helper()
	sharedRuns.mu.Lock()
	if sharedRuns.runs == nil {
		sharedRuns.runs = map[string]*sharedRunOnce{}
	}
	r := sharedRuns.runs[key]
	if r == nil {
		r = &sharedRunOnce{}
		sharedRuns.runs[key] = r
	}
	if sharedRuns.dir == "" {
		d, err := os.MkdirTemp("", "ledgerbench-runs-")
		if err != nil {
			sharedRuns.mu.Unlock()
			t.Fatal(err)
		}
		sharedRuns.dir = d
	}
	root := sharedRuns.dir
	sharedRuns.mu.Unlock()
	r.once.Do(func() {
		dir, err := os.MkdirTemp(root, "run-")
		if err != nil {
			t.Fatal(err)
		}
		r.path = build(t, dir)
	})
	if r.path == "" {
		t.Fatalf("the shared run %q could not be made (see the test that made it)", key)
	}
	if err := os.CopyFS(to, os.DirFS(r.path)); err != nil {
		t.Fatalf("copy the shared run %q: %v", key, err)
	}
	return to
}

// fakeModel answers every agent request with a goodbye and ends every
// conversation at the user's second turn: a model backbone of any domain.
func fakeModel(r *openaitest.Request) openaitest.Reply {
	if len(r.Tools) > 0 {
		return openaitest.Text("I am sorry, I cannot help with that. Goodbye.")
	}
	for _, m := range r.Messages { // the user: its own turns are "assistant"
		if m.Role == "assistant" {
			return openaitest.Text("Thanks anyway. ###STOP###")
		}
	}
	return openaitest.Text("Hi, I need help with my booking.")
}

// modelSubmissionRun runs the baseline on the whole base split of airline
// (no NL assertions: no judge needed) with a fake model backbone, 4 trials:
// a run that may be a standard submission. It returns a copy of the run at
// dir/airline-model (see sharedRun).
func modelSubmissionRun(t *testing.T, dir string) string {
	t.Helper()
	return sharedRun(t, "airline-model", filepath.Join(dir, "airline-model"), func(t *testing.T, dir string) string {
		srv := openaitest.NewHandlerServer(t, fakeModel)
		bb := writeBackbones(t, dir, srv.BaseURL(), 10*time.Second)
		out := filepath.Join(dir, "airline-model")
		if r, err := runWithEnv(t, t.Context(), nil, "--domain", "airline", "--backbone", "fake", "--user-backbone", "fake", "--backbones", bb,
			"--trials", "4", "--concurrency", "8", "--quiet", "--out", out); err != nil {
			t.Fatalf("run: %v\n%s", err, r.errOut)
		}
		return out
	})
}

func prepared(t *testing.T, out string) (string, *submit.Submission) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(out, "*_*_2026-12-01"))
	if len(dirs) != 1 {
		t.Fatalf("submission directories under %s: %v", out, dirs)
	}
	s, err := submit.ReadSubmission(filepath.Join(dirs[0], submit.SubmissionFile))
	if err != nil {
		t.Fatal(err)
	}
	return dirs[0], s
}

func setPrompts(t *testing.T, run, prompts string) {
	t.Helper()
	m, err := results.ReadManifest(run)
	if err != nil {
		t.Fatal(err)
	}
	m.Prompts = prompts
	if err := results.WriteManifest(run, m); err != nil {
		t.Fatal(err)
	}
}

func TestSubmitPrepareValidate(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := t.TempDir()
	model := modelSubmissionRun(t, dir)
	led := simSubmissionRun(t, dir, "airline", "ledger")

	cases := []struct {
		name     string
		run      string
		prompts  string
		wantType string
		modified bool
		extra    []string
	}{
		{"baseline with upstream prompts", model, results.PromptsUpstream, "standard", false, nil},
		{"baseline with modified prompts", model, results.PromptsModified, "custom", true, nil},
		{"baseline, prompts not recorded", model, "", "custom", true, nil},
		{"ledger agent on sim, --custom", led, results.PromptsModified, "custom", true, []string{"--custom"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setPrompts(t, tc.run, tc.prompts)
			out := filepath.Join(t.TempDir(), "sub")
			mustRun(t, append([]string{"submit", "prepare", tc.run, "--out", out, "--date", "2026-12-01", "--model-organization", "Test Org"}, tc.extra...)...)
			sdir, s := prepared(t, out)
			if s.SubmissionType != tc.wantType || s.Methodology == nil || s.Methodology.Verification == nil ||
				*s.Methodology.Verification.ModifiedPrompts != tc.modified || *s.Methodology.Verification.OmittedQuestions {
				b, _ := s.Encode()
				t.Errorf("submission %s; want type %s, modified_prompts %v, omitted_questions false", b, tc.wantType, tc.modified)
			}
			model := "fake"
			if tc.run == led {
				model = "sim"
			}
			if s.ModelName != model || s.Results.Airline == nil || s.Results.Airline.Pass4 == nil || s.Results.Retail != nil ||
				filepath.Base(sdir) != model+"_test-org_2026-12-01" || s.TrajectoryFiles["airline"] == "" {
				b, _ := s.Encode()
				t.Errorf("submission %s in %s", b, sdir)
			}
			r := mustRun(t, "submit", "validate", sdir)
			if !strings.Contains(r.out, "is valid") || strings.Contains(r.out, "FAIL") {
				t.Errorf("validate:\n%s", r.out)
			}
		})
	}

	t.Run("fails", func(t *testing.T) {
		few := filepath.Join(dir, "few")
		mustRun(t, "run", "--domain", "airline", "--backbone", "sim", "--user-backbone", "sim", "--no-judge", "--trials", "2", "--limit", "5", "--quiet", "--out", few)
		out := filepath.Join(t.TempDir(), "sub")
		// Upstream's trajectory checks refuse the run before anything is
		// written; --no-verify writes it, and validate fails it.
		r := execCLI(t, t.Context(), "submit", "prepare", few, "--out", out, "--date", "2026-12-01", "--custom")
		if r.code != ExitError || !strings.Contains(r.errOut, "trajectory verification failed") || !strings.Contains(r.errOut, "tasks: missing tasks: 5,") {
			t.Errorf("prepare of a 5-task run: exit %d, %s", r.code, r.errOut)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("a refused prepare left %v in %s", entries, out)
		}
		mustRun(t, "submit", "prepare", few, "--out", out, "--date", "2026-12-01", "--custom", "--no-verify")
		sdir, s := prepared(t, out)
		if !*s.Methodology.Verification.OmittedQuestions {
			t.Error("omitted_questions not set for a 5-task run")
		}
		r = execCLI(t, t.Context(), "submit", "validate", sdir)
		for _, want := range []string{"FAIL tasks", "Missing tasks", "FAIL at least 4 trials"} {
			if !strings.Contains(r.out, want) && !strings.Contains(strings.ToLower(r.out), strings.ToLower(want)) {
				t.Errorf("validate lacks %q:\n%s", want, r.out)
			}
		}
		if r.code != ExitError {
			t.Errorf("validate exit %d; want %d", r.code, ExitError)
		}

		// Edited metrics fail the metrics check.
		setPrompts(t, model, results.PromptsUpstream)
		out = filepath.Join(t.TempDir(), "sub")
		mustRun(t, "submit", "prepare", model, "--out", out, "--date", "2026-12-01")
		sdir, s = prepared(t, out)
		v := *s.Results.Airline.Pass1 + 1
		s.Results.Airline.Pass1 = &v
		b, _ := s.Encode()
		if err := os.WriteFile(filepath.Join(sdir, submit.SubmissionFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		r = execCLI(t, t.Context(), "submit", "validate", sdir)
		if !strings.Contains(r.out, "FAIL metrics match") || r.code != ExitError {
			t.Errorf("validate of edited metrics: exit %d\n%s", r.code, r.out)
		}
	})
	if r := execCLI(t, t.Context(), "submit", "prepare", model, led, "--out", t.TempDir(), "--custom"); r.code == ExitOK || !strings.Contains(r.errOut, "more than one run") {
		t.Errorf("two airline runs: exit %d, %s", r.code, r.errOut)
	}
}

// Runs on offline backbones, or whose NL assertions were
// not judged, are never a standard submission: prepare refuses them naming
// the run and the reason, --custom writes a custom entry saying so, and
// validate fails one labelled standard.
func TestSubmitNeverStandard(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := t.TempDir()
	sim := simSubmissionRun(t, dir, "airline", "baseline")
	setPrompts(t, sim, results.PromptsUpstream)
	retail := simSubmissionRun(t, dir, "retail", "baseline")
	setPrompts(t, retail, results.PromptsUpstream)
	for _, tc := range []struct {
		run  string
		want []string
	}{
		{sim, []string{sim + ": agent backbone sim is offline", sim + ": user backbone sim is offline"}},
		{retail, []string{retail + ": agent backbone sim is offline", "NL assertions not judged in 160 simulations (--no-judge)"}},
	} {
		out := filepath.Join(t.TempDir(), "sub")
		r := execCLI(t, t.Context(), "submit", "prepare", tc.run, "--out", out, "--date", "2026-12-01")
		for _, w := range append(tc.want, "never a standard submission", "pass --custom") {
			if r.code != ExitError || !strings.Contains(r.errOut, w) {
				t.Errorf("prepare %s: exit %d, stderr lacks %q:\n%s", tc.run, r.code, w, r.errOut)
			}
		}
		if _, err := os.Stat(out); err == nil {
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("a refused prepare wrote %v", entries)
			}
		}
		mustRun(t, "submit", "prepare", tc.run, "--out", out, "--date", "2026-12-01", "--custom")
		sdir, s := prepared(t, out)
		v := s.Methodology.Verification
		if s.SubmissionType != "custom" || v.Details == nil || !strings.Contains(*v.Details, "is offline") || !strings.Contains(*s.Methodology.Notes, "SIMULATED") {
			b, _ := s.Encode()
			t.Errorf("--custom submission %s", b)
		}
		r = mustRun(t, "submit", "validate", sdir)
		if !strings.Contains(r.out, "is valid") || !strings.Contains(r.out, "warning: trajectories/") || !strings.Contains(r.out, "a custom entry: agent backbone sim is offline") {
			t.Errorf("validate of the custom entry:\n%s", r.out)
		}
		// The same trajectories labelled standard fail validation.
		s.SubmissionType = "standard"
		b, _ := s.Encode()
		if err := os.WriteFile(filepath.Join(sdir, submit.SubmissionFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		r = execCLI(t, t.Context(), "submit", "validate", sdir)
		if r.code != ExitError || !strings.Contains(r.out, "FAIL standard submission") || !strings.Contains(r.out, "never a standard submission: agent backbone sim is offline") {
			t.Errorf("validate of a sim run labelled standard: exit %d\n%s", r.code, r.out)
		}
	}
}

// Prepare into a directory that holds a submission is
// refused (it would leave stale trajectory files); --force replaces it
// whole.
func TestSubmitPrepareExisting(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := t.TempDir()
	run := simSubmissionRun(t, dir, "airline", "baseline")
	out := filepath.Join(dir, "sub")
	args := []string{"submit", "prepare", run, "--out", out, "--date", "2026-12-01", "--custom"}
	mustRun(t, args...)
	sdir, _ := prepared(t, out)
	stale := filepath.Join(sdir, submit.TrajectoriesDir, "old_retail_results.json")
	if err := os.WriteFile(stale, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := execCLI(t, t.Context(), args...)
	if r.code != ExitError || !strings.Contains(r.errOut, sdir+" already holds a submission") || !strings.Contains(r.errOut, "--force") {
		t.Errorf("prepare over a submission: exit %d, %s", r.code, r.errOut)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("a refused prepare touched the existing submission: %v", err)
	}
	mustRun(t, append(args, "--force")...)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("--force kept the stale file %s (%v)", stale, err)
	}
	if r := mustRun(t, "submit", "validate", sdir); !strings.Contains(r.out, "is valid") {
		t.Errorf("validate after --force:\n%s", r.out)
	}
	// Other submissions beside it are left alone; no staging directory
	// remains.
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 {
		t.Errorf("%s holds %v; want the one submission", out, entries)
	}
}

// Prepare runs upstream's trajectory checks before
// writing: a results file whose tasks do not all have num_trials
// simulations is refused, naming the check; nothing is written.
func TestSubmitPrepareVerifies(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := t.TempDir()
	run := simSubmissionRun(t, dir, "airline", "baseline")
	exp := filepath.Join(dir, "airline.json")
	mustRun(t, "export", "--format", "tau2", run, exp)
	var f map[string]json.RawMessage
	b, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var sims []json.RawMessage
	if err := json.Unmarshal(f["simulations"], &sims); err != nil {
		t.Fatal(err)
	}
	f["simulations"], _ = json.Marshal(sims[1:]) // task 0 keeps 3 of its 4 trials
	b, _ = json.Marshal(f)
	uneven := filepath.Join(dir, "uneven", "airline.json")
	if err := os.MkdirAll(filepath.Dir(uneven), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(uneven, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sub")
	r := execCLI(t, t.Context(), "submit", "prepare", uneven, "--out", out, "--date", "2026-12-01", "--custom")
	if r.code != ExitError || !strings.Contains(r.errOut, "airline.json: trial counts: incorrect trial counts for 1 tasks (want 4): 0 (3)") ||
		!strings.Contains(r.errOut, "nothing written") {
		t.Errorf("prepare of uneven trials: exit %d, %s", r.code, r.errOut)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a refused prepare left %v", entries)
	}
}

// TestSubmitOracle compares a prepared submission with what τ²-bench's own
// leaderboard code computes from the same trajectory files:
//
//	TAU2_SRC=/path/to/tau2-bench/src TAU2_DATA_DIR=/path/to/tau2-bench/data \
//	LEDGERBENCH_SUBMIT_ORACLE="python3 ../output/submit/testdata/oracle/submit_oracle.py" \
//	go test ./internal/cli -run SubmitOracle
//
// The oracle loads each file with upstream's Results model, runs
// check_tasks and check_num_trials, validate_submission_traj_set and
// get_metrics.
func TestSubmitOracle(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_SUBMIT_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_SUBMIT_ORACLE not set")
	}
	dir := t.TempDir()
	var runs []string
	for _, d := range []string{"airline", "retail", "telecom"} {
		runs = append(runs, simSubmissionRun(t, dir, d, "baseline"))
	}
	out := filepath.Join(dir, "sub")
	mustRun(t, append([]string{"submit", "prepare", "--out", out, "--date", "2026-12-01", "--custom"}, runs...)...)
	sdir, s := prepared(t, out)
	var files []string
	for _, f := range s.TrajectoryFiles {
		files = append(files, filepath.Join(sdir, submit.TrajectoriesDir, f))
	}
	fields := strings.Fields(cmdline)
	cmd := exec.Command(fields[0], append(fields[1:], files...)...)
	cmd.Env = append(os.Environ(), "TAU2_DATA_DIR="+orDefault(os.Getenv("TAU2_DATA_DIR"), filepath.Join(datatest.Root(t), "tau2-bench", "data")))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v\n%s", err, stderr.String())
	}
	var got struct {
		Files []struct {
			Path                  string
			Format, Tasks, Trials [2]any
		} `json:"files"`
		Set     [2]any                         `json:"set"`
		Results map[string]map[string]*float64 `json:"results"`
		Model   string                         `json:"model"`
		User    string                         `json:"user_simulator"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("oracle output: %v\n%s", err, b)
	}
	for _, f := range got.Files {
		for name, c := range map[string][2]any{"format": f.Format, "tasks": f.Tasks, "trials": f.Trials} {
			if c[0] != true {
				t.Errorf("upstream %s check of %s: %v", name, f.Path, c[1])
			}
		}
	}
	if got.Set[0] != true {
		t.Errorf("upstream trajectory-set check: %v", got.Set[1])
	}
	if got.Model != s.ModelName || s.Methodology == nil || got.User != *s.Methodology.UserSimulator {
		t.Errorf("upstream model %q, user %q; submission %q, %v", got.Model, got.User, s.ModelName, s.Methodology)
	}
	exact, total := 0, 0
	for _, d := range submit.Domains() {
		mine := *s.Results.Domain(d)
		theirs, ok := got.Results[d]
		if (mine == nil) != !ok {
			t.Errorf("%s: ours %v, upstream %v", d, mine, theirs)
			continue
		}
		if mine == nil {
			continue
		}
		for k, key := range []string{"pass_1", "pass_2", "pass_3", "pass_4", "cost"} {
			a := mine.Cost
			if key != "cost" {
				a = mine.PassK(k + 1)
			}
			w := theirs[key]
			total++
			switch {
			case (a == nil) != (w == nil):
				t.Errorf("%s %s: ours %v, upstream %v", d, key, a, w)
			case a == nil:
				exact++
			case *a == *w:
				exact++
			case math.Abs(*a-*w) > 1e-9*math.Max(1, math.Abs(*w)):
				t.Errorf("%s %s: ours %v, upstream %v", d, key, *a, *w)
			default:
				t.Logf("%s %s: ours %v, upstream %v (last-bit difference of the summation order)", d, key, *a, *w)
			}
		}
	}
	t.Logf("%d of %d values bit-identical to upstream's", exact, total)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestSubmitPrepareResultsFiles prepares submissions from τ²-bench results
// files: exported into their run directory (the manifest beside them
// decides), exported elsewhere or recorded by τ²-bench (no manifest: custom
// with modified_prompts), and a directory of results files.
func TestSubmitPrepareResultsFiles(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := t.TempDir()
	run := modelSubmissionRun(t, dir)
	setPrompts(t, run, results.PromptsUpstream)
	inRun := filepath.Join(run, "airline-export.json")
	mustRun(t, "export", "--format", "tau2", run, inRun)
	alone := filepath.Join(dir, "alone", "results.json")
	if err := os.MkdirAll(filepath.Dir(alone), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(inRun)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// A manifest beside the file that describes another run (3 trials).
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "airline.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, _ := results.ReadManifest(run)
	m.Trials = 3
	if err := results.WriteManifest(other, m); err != nil {
		t.Fatal(err)
	}

	// The run directory's own submission: the metrics every case must equal.
	out := filepath.Join(t.TempDir(), "sub")
	mustRun(t, "submit", "prepare", run, "--out", out, "--date", "2026-12-01")
	_, want := prepared(t, out)

	cases := []struct {
		name, arg, wantFile, wantType, wantNote string
	}{
		{"exported into its run directory", inRun, "airline-export.json", "standard", ""},
		{"exported elsewhere", alone, "airline_results.json", "custom", "no ledgerbench manifest beside it"},
		{"directory of results files", filepath.Dir(alone), "airline_results.json", "custom", "no ledgerbench manifest beside it"},
		{"manifest of another run beside it", filepath.Join(other, "airline.json"), "airline.json", "custom", "describes another run"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "sub")
			r := mustRun(t, "submit", "prepare", tc.arg, "--out", out, "--date", "2026-12-01")
			if tc.wantNote != "" && !strings.Contains(r.errOut, tc.wantNote) || tc.wantNote == "" && strings.Contains(r.errOut, "note:") {
				t.Errorf("stderr %q; want note %q", r.errOut, tc.wantNote)
			}
			sdir, s := prepared(t, out)
			v := s.Methodology.Verification
			if s.SubmissionType != tc.wantType || *v.ModifiedPrompts != (tc.wantType == "custom") || *v.OmittedQuestions || s.TrajectoryFiles["airline"] != tc.wantFile {
				b, _ := s.Encode()
				t.Errorf("submission %s; want type %s, file %s", b, tc.wantType, tc.wantFile)
			}
			if tc.wantType == "custom" && (v.Details == nil || !strings.Contains(*v.Details, "not recorded")) {
				t.Errorf("details %v; want the prompts named not recorded", v.Details)
			}
			got, _ := json.Marshal(s.Results)
			exp, _ := json.Marshal(want.Results)
			if string(got) != string(exp) {
				t.Errorf("results %s; the run directory's submission has %s", got, exp)
			}
			copied, err := os.ReadFile(filepath.Join(sdir, "trajectories", tc.wantFile))
			if err != nil || !bytes.Equal(copied, b) {
				t.Errorf("trajectory file not copied as it is (%v)", err)
			}
			if r := mustRun(t, "submit", "validate", sdir); !strings.Contains(r.out, "is valid") {
				t.Errorf("validate:\n%s", r.out)
			}
		})
	}

	// A file τ²-bench recorded: custom with modified_prompts. It holds the
	// 40-task test split, not the base split, so upstream's trajectory
	// checks refuse it (as tau2 submit prepare does); with --no-verify it is
	// prepared and validation reports it (one trial too).
	rec := filepath.Join(datatest.Root(t), "trajectories", "sierra-research+tau2-bench", "gpt-4.1_telecom_default_gpt-4.1_1trials.json")
	if _, err := os.Stat(rec); err != nil {
		t.Skipf("no recorded τ²-bench file: %v", err)
	}
	out = filepath.Join(t.TempDir(), "sub")
	if r := execCLI(t, t.Context(), "submit", "prepare", rec, "--out", out, "--date", "2026-12-01"); r.code != ExitError || !strings.Contains(r.errOut, "tasks: missing tasks:") {
		t.Errorf("prepare of a test-split recording: exit %d, %s", r.code, r.errOut)
	}
	r := mustRun(t, "submit", "prepare", rec, "--out", out, "--date", "2026-12-01", "--no-verify")
	if !strings.Contains(r.errOut, "custom with modified_prompts") {
		t.Errorf("stderr %q", r.errOut)
	}
	sdir, s := prepared(t, out)
	if s.SubmissionType != "custom" || !*s.Methodology.Verification.ModifiedPrompts || s.Results.Telecom == nil || s.Results.Telecom.Pass1 == nil || s.ModelName != "gpt-4.1" {
		b, _ := s.Encode()
		t.Errorf("submission of a recorded file: %s", b)
	}
	if r := execCLI(t, t.Context(), "submit", "validate", sdir); !strings.Contains(r.out, "FAIL at least 4 trials") {
		t.Errorf("validate of a 1-trial recording:\n%s", r.out)
	}
}
