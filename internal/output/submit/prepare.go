package submit

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Input is one run of a submission with what its τ²-bench file needs: a
// run directory (Run) or a τ²-bench results file (File, exported or
// recorded), which is copied as it is, as upstream copies its inputs.
type Input struct {
	Run *results.Run
	// File is a results file read from Path; Manifest is the ledgerbench
	// manifest found for it (see FileManifest), nil when there is none, and
	// then the submission is custom with modified_prompts: nothing records
	// which prompts the file's agent and user simulator were shown.
	File     *results.Tau2File
	Path     string
	Manifest *results.Manifest
	// Records are the run's records in file order (task order, then trial);
	// run directories only.
	Records []results.Record
	// Tasks are the run's tasks and Policy the domain's policy, written into
	// the results file.
	Tasks  []tasks.Task
	Policy string
	// BaseTaskIDs are the ids of the domain's base split: a run that does
	// not cover them all omitted questions.
	BaseTaskIDs []string
}

// Options are the submission's metadata (upstream asks for them
// interactively). The submission type and the prompt verification are not
// options: they follow from the runs' manifests.
type Options struct {
	ModelName              string // default: the agent backbone
	ModelOrganization      string // default "My-Organization", as upstream
	SubmittingOrganization string // default: ModelOrganization
	Email, ContactName     string
	GitHub                 string
	ReasoningEffort        string
	Notes                  string // added to the generated methodology notes
	IsNew                  bool
	// Date is the submission date (YYYY-MM-DD).
	Date string
	// Harness names the ledgerbench version in the notes.
	Harness string

	// Custom submits runs that are never a standard submission (an offline
	// backbone, NL assertions not judged) as a custom entry, each reason in
	// verification.details; without it they are refused.
	Custom bool
	// Force replaces an existing submission directory whole; without it a
	// submission directory that exists and is not empty is refused.
	Force bool
	// NoVerify skips upstream's trajectory checks before writing (tau2
	// submit prepare --no-verify); Base gives each domain's base split for
	// them (required unless NoVerify).
	NoVerify bool
	Base     BaseTasks
}

// Prepared is a written submission.
type Prepared struct {
	Dir        string
	Submission *Submission
	Metrics    map[string]Metrics
}

// Prepare writes a submission directory under out for the runs, one per
// domain: each run as a τ²-bench results file under trajectories/, and
// submission.json with the metrics computed from those files. The
// directory is written beside its final place and renamed into it only
// when every file passed upstream's trajectory checks (verify_trajectories:
// format, tasks, trial counts; Options.NoVerify skips them), so a failed
// prepare leaves nothing and a replaced one (Options.Force) no stale file.
//
// The submission is "standard" only when every run's manifest says its
// prompts were upstream's (results.PromptsUpstream); otherwise it is
// "custom" with methodology.verification.modified_prompts set, and the
// notes name each run's agent. A run on an offline backbone or with NL
// assertions not judged is never standard: it is refused unless
// Options.Custom, and then named with its reason in the details.
func Prepare(out string, inputs []Input, opts Options) (*Prepared, error) {
	if len(inputs) == 0 {
		return nil, errors.New("submit: no runs")
	}
	if !opts.NoVerify && opts.Base == nil {
		return nil, errors.New("submit: no base tasks to verify the trajectories against")
	}
	seen := map[string]bool{}
	standard := !opts.Custom
	// modified: some input's prompts are not upstream's (or an offline
	// backbone showed none).
	omitted, simulated, modified := false, false, false
	var details, notes, refused []string
	descs := make([]inputDesc, len(inputs))
	for i, in := range inputs {
		d, err := describe(in)
		if err != nil {
			return nil, err
		}
		descs[i] = d
		why, err := inputNonStandard(in)
		if err != nil {
			return nil, fmt.Errorf("submit: %s: %w", d.Where, err)
		}
		for _, w := range why {
			refused = append(refused, fmt.Sprintf("%s: %s", d.Where, w))
			details = append(details, fmt.Sprintf("%s: %s", d.Domain, w))
		}
		if len(why) > 0 {
			standard = false
			if isOffline(d.Backbone) || isOffline(d.UserBackbone) {
				simulated, modified = true, true
			}
		}
		if !slices.Contains(Domains(), d.Domain) {
			return nil, fmt.Errorf("submit: %s: domain %q is not on the τ-bench leaderboard (%s)", d.Where, d.Domain, strings.Join(Domains(), ", "))
		}
		if seen[d.Domain] {
			return nil, fmt.Errorf("submit: domain %s appears in more than one run", d.Domain)
		}
		seen[d.Domain] = true
		if d.Prompts != results.PromptsUpstream {
			standard, modified = false, true
			prompts := d.Prompts
			if prompts == "" {
				prompts = "not recorded"
			}
			if d.NoManifest {
				prompts = "not recorded (a τ²-bench results file without a ledgerbench manifest)"
			}
			details = append(details, fmt.Sprintf("%s: agent %s, prompts %s", d.Domain, d.Agent, prompts))
		}
		if missing := missingTasks(in.BaseTaskIDs, d.TaskIDs); len(missing) > 0 {
			omitted = true
			details = append(details, fmt.Sprintf("%s: %d of the %d base tasks not run", d.Domain, len(missing), len(in.BaseTaskIDs)))
		}
		if d.NoManifest {
			notes = append(notes, fmt.Sprintf("%s: results file %s, agent %s on %s, user simulator %s, %d trials, seed %d, %d tasks",
				d.Domain, filepath.Base(in.Path), d.Agent, d.Backbone, d.UserBackbone, d.Trials, d.Seed, len(d.TaskIDs)))
		} else {
			notes = append(notes, fmt.Sprintf("%s: agent %s on %s, user simulator %s, %d trials, seed %d, %d tasks (split %s)",
				d.Domain, d.Agent, d.Backbone, d.UserBackbone, d.Trials, d.Seed, len(d.TaskIDs), d.Split))
		}
	}
	if len(refused) > 0 && !opts.Custom {
		return nil, fmt.Errorf("submit: never a standard submission:\n  %s\npass --custom to submit them as a custom entry, marked as such (upstream's schema admits a modified user simulation or evaluation only as custom)",
			strings.Join(refused, "\n  "))
	}
	first := descs[0]
	if opts.ModelName == "" {
		opts.ModelName = first.Backbone
	}
	if opts.ModelOrganization == "" {
		opts.ModelOrganization = "My-Organization"
	}
	if opts.SubmittingOrganization == "" {
		opts.SubmittingOrganization = opts.ModelOrganization
	}
	dir := filepath.Join(out, slugify(opts.ModelName)+"_"+slugify(opts.ModelOrganization)+"_"+opts.Date)
	if err := checkTarget(dir, opts.Force); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	// Everything is written into a directory beside the target and renamed
	// into place once it is complete and verified.
	stage, err := os.MkdirTemp(out, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	defer os.RemoveAll(stage) // gone once renamed; removed on any failure
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	trajDir := filepath.Join(stage, TrajectoriesDir)
	if err := os.MkdirAll(trajDir, 0o755); err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}

	files := map[string]string{}
	var set []*results.Tau2File
	var checks []Check
	for i, in := range inputs {
		d := descs[i]
		var name string
		if in.Run != nil {
			m := in.Run.Manifest
			name = fmt.Sprintf("%s_%s_%s_%s_%dtrials.json", slugify(opts.ModelName), m.Domain, slugify(m.Agent), slugify(m.UserBackbone), m.Trials)
			if err := results.WriteTau2(filepath.Join(trajDir, name), m, in.Records, results.Tau2Env{Policy: in.Policy, Tasks: in.Tasks}); err != nil {
				return nil, fmt.Errorf("submit: %w", err)
			}
		} else {
			// Upstream's copy step: the file's own name, results.json
			// becoming {domain}_results.json.
			name = filepath.Base(in.Path)
			if name == "results.json" {
				name = d.Domain + "_results.json"
			}
			if slices.Contains(slices.Collect(maps.Values(files)), name) {
				return nil, fmt.Errorf("submit: two inputs are named %s", name)
			}
			if err := copyFile(in.Path, filepath.Join(trajDir, name)); err != nil {
				return nil, fmt.Errorf("submit: %w", err)
			}
		}
		path := filepath.Join(trajDir, name)
		if !opts.NoVerify {
			_, cs := verifyFile(path, name, opts.Base)
			checks = append(checks, cs...)
		}
		f, err := results.ReadTau2(path)
		if err != nil {
			return nil, fmt.Errorf("submit: read back %s: %w", path, err)
		}
		files[d.Domain] = name
		set = append(set, f)
	}
	if msg := failed(checks); msg != "" {
		return nil, fmt.Errorf("submit: trajectory verification failed (upstream's verify_trajectories, as tau2 submit prepare runs it); nothing written: %s (--no-verify skips these checks)", msg)
	}
	if err := checkSet(set); err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}

	p := &Prepared{Dir: dir, Metrics: map[string]Metrics{}}
	var res Results
	for _, f := range set {
		mt, err := Compute(f)
		if err != nil {
			return nil, fmt.Errorf("submit: %w", err)
		}
		p.Metrics[mt.Domain] = mt
		*res.Domain(mt.Domain) = mt.Results()
	}

	typ := "standard"
	if !standard {
		typ = "custom"
	}
	verification := &Verification{ModifiedPrompts: &modified, OmittedQuestions: &omitted}
	if len(details) > 0 {
		verification.Details = ptr(strings.Join(details, "; "))
	}
	note := "Evaluated with ledgerbench"
	if opts.Harness != "" {
		note += " " + opts.Harness
	}
	note += " (Go port of τ²-bench). " + strings.Join(notes, "; ") + "."
	switch {
	case simulated:
		note += " Custom, SIMULATED: offline backbones (scripted agent or user, not a model's results; see verification.details)."
	case len(refused) > 0:
		note += " Custom: the evaluation differs from τ²-bench's (see verification.details)."
	case !standard:
		note += " Custom: the agent scaffold or its prompts differ from τ²-bench's baseline (see verification.details)."
	}
	if opts.Notes != "" {
		note += " " + opts.Notes
	}
	evalDate := opts.Date
	if len(first.CreatedAt) >= 10 && first.CreatedAt[4] == '-' {
		evalDate = first.CreatedAt[:10]
	}
	sub := &Submission{
		ModelName: opts.ModelName, ModelOrganization: opts.ModelOrganization, SubmittingOrganization: opts.SubmittingOrganization,
		SubmissionDate: opts.Date, SubmissionType: typ, Modality: "text",
		ContactInfo: ContactInfo{Email: optional(opts.Email), Name: optional(opts.ContactName), GitHub: optional(opts.GitHub)},
		Results:     res, IsNew: opts.IsNew, TrajectoriesAvailable: len(files) > 0, TrajectoryFiles: files,
		Methodology:     &Methodology{EvaluationDate: &evalDate, UserSimulator: optional(first.UserBackbone), Notes: &note, Verification: verification},
		ReasoningEffort: optional(opts.ReasoningEffort),
	}
	b, err := sub.Encode()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(stage, SubmissionFile), b, 0o644); err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	if opts.Force {
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("submit: replace %s: %w", dir, err)
		}
	}
	if err := os.Rename(stage, dir); err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	p.Submission = sub
	return p, nil
}

// checkTarget refuses a submission directory that exists and is not empty
// (its files would mix with the new ones) unless force.
func checkTarget(dir string, force bool) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("submit: %w", err)
	case force:
		return nil
	case !fi.IsDir():
		return fmt.Errorf("submit: %s exists and is not a directory: pass --force to replace it", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("submit: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("submit: %s already holds a submission (%d entries): pass --force to replace it whole, or choose another --out", dir, len(entries))
	}
	return nil
}

func isOffline(backbone string) bool {
	_, ok, _ := offline.Parse(backbone)
	return ok
}

// inputDesc is what the submission says of one input.
type inputDesc struct {
	Where                                 string
	Domain, Agent, Backbone, UserBackbone string
	Trials                                int
	Seed                                  int64
	TaskIDs                               []string
	Split, Prompts, CreatedAt             string
	NoManifest                            bool
}

func describe(in Input) (inputDesc, error) {
	if in.Run != nil {
		m := in.Run.Manifest
		return inputDesc{Where: in.Run.Dir, Domain: m.Domain, Agent: m.Agent, Backbone: m.Backbone, UserBackbone: m.UserBackbone,
			Trials: m.Trials, Seed: m.Seed, TaskIDs: m.TaskIDs, Split: m.Split, Prompts: m.Prompts, CreatedAt: m.CreatedAt}, nil
	}
	if in.File == nil {
		return inputDesc{}, errors.New("submit: an input with neither a run nor a results file")
	}
	meta, err := in.File.Meta()
	if err != nil {
		return inputDesc{}, fmt.Errorf("submit: %s: %w", in.Path, err)
	}
	d := inputDesc{Where: in.Path, Domain: meta.Domain, Agent: meta.Agent, Backbone: meta.Backbone, UserBackbone: meta.UserBackbone,
		Trials: meta.Trials, Seed: meta.Seed, TaskIDs: simTaskIDs(in.File), CreatedAt: in.File.Timestamp, NoManifest: in.Manifest == nil}
	if m := in.Manifest; m != nil {
		d.Split, d.Prompts, d.CreatedAt = m.Split, m.Prompts, m.CreatedAt
	}
	return d, nil
}

// simTaskIDs are the task ids a results file has simulations of, in file order.
func simTaskIDs(f *results.Tau2File) []string {
	var ids []string
	for _, s := range f.Simulations {
		if !slices.Contains(ids, s.TaskID) {
			ids = append(ids, s.TaskID)
		}
	}
	return ids
}

// FileManifest finds the ledgerbench manifest of a τ²-bench results file:
// the manifest.json in the file's directory (a run directory the file was
// exported into), used only when it describes the file (the same domain,
// agent, backbones and trials). It returns nil and the reason when there is
// none; a recorded upstream file has none, and is then custom with
// modified_prompts.
func FileManifest(path string, f *results.Tau2File) (*results.Manifest, string, error) {
	dir := filepath.Dir(path)
	if _, err := os.Stat(filepath.Join(dir, results.ManifestFile)); err != nil {
		return nil, "no ledgerbench manifest beside it", nil
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		return nil, "", fmt.Errorf("submit: %s: %w", path, err)
	}
	meta, err := f.Meta()
	if err != nil {
		return nil, "", fmt.Errorf("submit: %s: %w", path, err)
	}
	agent, user := m.Agent, m.UserBackbone
	if m.Solo { // as Tau2Export writes a solo run
		agent, user = results.SoloAgentImplementation, ""
	}
	if got, want := fmt.Sprint(meta.Domain, meta.Agent, meta.Backbone, meta.UserBackbone, meta.Trials),
		fmt.Sprint(m.Domain, agent, m.Backbone, user, m.Trials); got != want {
		return nil, fmt.Sprintf("the manifest beside it describes another run (%s %s on %s, user %s, %d trials)", m.Domain, m.Agent, m.Backbone, m.UserBackbone, m.Trials), nil
	}
	return m, "", nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// checkSet is upstream's validate_submission_traj_set: each domain once, the
// same agent and user simulator (model and arguments) everywhere.
func checkSet(set []*results.Tau2File) error {
	seen := map[string]bool{}
	var want string
	for i, f := range set {
		meta, err := f.Meta()
		if err != nil {
			return err
		}
		if seen[meta.Domain] {
			return fmt.Errorf("domain %s appears multiple times", meta.Domain)
		}
		seen[meta.Domain] = true
		got, err := settings(f)
		if err != nil {
			return err
		}
		if i == 0 {
			want = got
		} else if got != want {
			return fmt.Errorf("agent / user simulator should be the same for all results: got %s and %s", want, got)
		}
	}
	return nil
}

func missingTasks(base, ran []string) []string {
	var out []string
	for _, id := range base {
		if !slices.Contains(ran, id) {
			out = append(out, id)
		}
	}
	return out
}

// slugify is upstream's _slugify.
func slugify(s string) string {
	return strings.NewReplacer(" ", "-", "/", "-", ".", "-").Replace(strings.ToLower(s))
}

func ptr[T any](v T) *T { return &v }

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
