package submit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/results"
	"github.com/ledgerbench/ledgerbench/tasks"
)

// Input is one run of a submission with what its τ²-bench file needs.
type Input struct {
	Run *results.Run
	// Records are the run's records in file order (task order, then trial).
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
}

// Prepared is a written submission.
type Prepared struct {
	Dir        string
	Submission *Submission
	Metrics    map[string]Metrics
}

// Prepare writes a submission directory under out for the runs, one per
// domain: each run as a τ²-bench results file under trajectories/, and
// submission.json with the metrics computed from those files.
//
// The submission is "standard" only when every run's manifest says its
// prompts were upstream's (results.PromptsUpstream); otherwise it is
// "custom" with methodology.verification.modified_prompts set, and the
// notes name each run's agent.
func Prepare(out string, inputs []Input, opts Options) (*Prepared, error) {
	if len(inputs) == 0 {
		return nil, errors.New("submit: no runs")
	}
	seen := map[string]bool{}
	standard := true
	omitted := false
	var details, notes []string
	for _, in := range inputs {
		m := in.Run.Manifest
		if !slices.Contains(Domains, m.Domain) {
			return nil, fmt.Errorf("submit: %s: domain %q is not on the τ-bench leaderboard (%s)", in.Run.Dir, m.Domain, strings.Join(Domains, ", "))
		}
		if seen[m.Domain] {
			return nil, fmt.Errorf("submit: domain %s appears in more than one run", m.Domain)
		}
		seen[m.Domain] = true
		if m.Prompts != results.PromptsUpstream {
			standard = false
			prompts := m.Prompts
			if prompts == "" {
				prompts = "not recorded"
			}
			details = append(details, fmt.Sprintf("%s: agent %s, prompts %s", m.Domain, m.Agent, prompts))
		}
		if missing := missingTasks(in.BaseTaskIDs, m.TaskIDs); len(missing) > 0 {
			omitted = true
			details = append(details, fmt.Sprintf("%s: %d of the %d base tasks not run", m.Domain, len(missing), len(in.BaseTaskIDs)))
		}
		notes = append(notes, fmt.Sprintf("%s: agent %s on %s, user simulator %s, %d trials, seed %d, %d tasks (split %s)",
			m.Domain, m.Agent, m.Backbone, m.UserBackbone, m.Trials, m.Seed, len(m.TaskIDs), m.Split))
	}
	first := inputs[0].Run.Manifest
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
	trajDir := filepath.Join(dir, TrajectoriesDir)
	if err := os.MkdirAll(trajDir, 0o755); err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}

	files := map[string]string{}
	var set []*results.Tau2File
	for _, in := range inputs {
		m := in.Run.Manifest
		name := fmt.Sprintf("%s_%s_%s_%s_%dtrials.json", slugify(opts.ModelName), m.Domain, slugify(m.Agent), slugify(m.UserBackbone), m.Trials)
		path := filepath.Join(trajDir, name)
		if err := results.WriteTau2(path, m, in.Records, results.Tau2Env{Policy: in.Policy, Tasks: in.Tasks}); err != nil {
			return nil, fmt.Errorf("submit: %w", err)
		}
		f, err := results.ReadTau2(path)
		if err != nil {
			return nil, fmt.Errorf("submit: read back %s: %w", path, err)
		}
		files[m.Domain] = name
		set = append(set, f)
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
	modified := !standard
	verification := &Verification{ModifiedPrompts: &modified, OmittedQuestions: &omitted}
	if len(details) > 0 {
		verification.Details = ptr(strings.Join(details, "; "))
	}
	note := "Evaluated with ledgerbench"
	if opts.Harness != "" {
		note += " " + opts.Harness
	}
	note += " (Go port of τ²-bench). " + strings.Join(notes, "; ") + "."
	if !standard {
		note += " Custom: the agent scaffold or its prompts differ from τ²-bench's baseline (see verification.details)."
	}
	if opts.Notes != "" {
		note += " " + opts.Notes
	}
	evalDate := opts.Date
	if len(first.CreatedAt) >= 10 {
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
	if err := os.WriteFile(filepath.Join(dir, SubmissionFile), b, 0o644); err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	p.Submission = sub
	return p, nil
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
