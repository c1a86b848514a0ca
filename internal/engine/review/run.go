package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Item is one simulation to review.
type Item struct {
	SimulationID string
	TaskID       string
	Trial        int
	Input        Input
}

// Options configure Run.
type Options struct {
	// Run is a run directory or a τ²-bench results file (JSON or upstream's
	// directory format).
	Run string
	// DataRoot is the data directory (prompts, and for run directories the
	// domain and the user simulator's guidelines).
	DataRoot string
	Mode     Mode
	// Backbone names the review backbone; Gen calls it; Priced says it has
	// a price (see New).
	Backbone    string
	Model       string
	Gen         Generator
	Priced      bool
	Concurrency int
	// Limit reviews at most this many simulations (0: all); TaskIDs only
	// those of these tasks (upstream's --limit and --task-ids).
	Limit   int
	TaskIDs []string
	// Load loads a run directory's domain as its manifest says (required
	// for run directories).
	Load func(m *results.Manifest) (envs.Domain, error)
	// Progress receives one line per reviewed simulation (nil: none).
	Progress io.Writer
}

// Summary is what Run did.
type Summary struct {
	Path string `json:"path"`
	Mode Mode   `json:"mode"`
	// Total counts the simulations selected; Resumed those already
	// reviewed (skipped); Reviewed those reviewed now; Failed those whose
	// review call failed (recorded, reviewed again on resume); Unscored the
	// records that ended in an infrastructure error (not reviewed).
	Total, Resumed, Reviewed, Failed, Unscored int
	// Over the file's entries of the mode after the run (upstream's
	// counts): simulations with errors, with agent errors, with user errors.
	WithErrors, WithAgentErrors, WithUserErrors int
	// Cost sums the review costs of this run's calls; nil when unknown.
	Cost *float64 `json:"cost"`
}

// ErrReviewFailed is wrapped by Run's error when some review call failed
// (the entries are recorded).
var ErrReviewFailed = errors.New("review: some reviews failed")

// Run reviews the simulations of a run (see Options) and appends an Entry
// per simulation to its reviews file (Path), skipping those already
// reviewed in the mode. A failed call is recorded as a failed entry and the
// others go on, except after the provider refused the key (llm.ErrAuth):
// then no further review starts. The error wraps ErrReviewFailed when any
// failed, and the first failure.
func Run(ctx context.Context, opts Options) (Summary, error) {
	prompts, err := LoadPrompts(opts.DataRoot)
	if err != nil {
		return Summary{}, err
	}
	items, unscored, err := Items(opts)
	if err != nil {
		return Summary{}, err
	}
	path := Path(opts.Run)
	sum := Summary{Path: path, Mode: opts.Mode, Total: len(items), Unscored: unscored}
	done, err := Read(path)
	if err != nil {
		return sum, err
	}
	var todo []Item
	for _, it := range items {
		if done.Done(it.SimulationID, opts.Mode) {
			sum.Resumed++
			continue
		}
		todo = append(todo, it)
	}
	r := New(opts.Gen, prompts, opts.Priced)
	w, err := results.OpenWriter(path)
	if err != nil {
		return sum, err
	}
	var (
		mu       sync.Mutex
		first    error
		authStop bool
		cost     = 0.0
		costOK   = opts.Priced
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, opts.Concurrency))
	for _, it := range todo {
		mu.Lock()
		stop := authStop
		mu.Unlock()
		if stop || gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			out, rerr := r.Review(gctx, opts.Mode, it.Input)
			if rerr != nil && ctx.Err() != nil {
				return ctx.Err() // interrupted: nothing recorded, resumed later
			}
			e := Entry{SimulationID: it.SimulationID, TaskID: it.TaskID, Trial: it.Trial, Mode: opts.Mode,
				Backbone: opts.Backbone, ReviewModel: opts.Model}
			if rerr != nil {
				e.Error = rerr.Error()
			} else {
				e.Outcome = out
			}
			if err := w.WriteValue(e); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			if rerr != nil {
				sum.Failed++
				if first == nil {
					first = rerr
				}
				if errors.Is(rerr, llm.ErrAuth) {
					authStop = true
				}
			} else {
				sum.Reviewed++
				for _, c := range []*float64{costOf(out.Review), costOf(out.UserOnlyReview), costOf(out.AuthClassification)} {
					if c != nil {
						cost += *c
					}
				}
			}
			if opts.Progress != nil {
				fmt.Fprintf(opts.Progress, "%s\n", e.line())
			}
			return nil
		})
	}
	werr := g.Wait()
	if cerr := w.Close(); werr == nil {
		werr = cerr
	}
	if costOK {
		sum.Cost = &cost
	}
	after, rerr := Read(path)
	if rerr == nil && after != nil {
		sum.count(after)
	}
	if werr != nil {
		return sum, werr
	}
	if first != nil {
		return sum, fmt.Errorf("%w: %d of %d (resume to retry): %w", ErrReviewFailed, sum.Failed, len(todo), first)
	}
	return sum, nil
}

func costOf[T Review | UserOnlyReview | AuthClassification](v *T) *float64 {
	if v == nil {
		return nil
	}
	switch x := any(v).(type) {
	case *Review:
		return x.Cost
	case *UserOnlyReview:
		return x.Cost
	case *AuthClassification:
		return x.Cost
	}
	return nil
}

func (s *Summary) count(r *Reviews) {
	for i := range r.Entries {
		e := &r.Entries[i]
		if e.Mode != s.Mode || e.Failed() {
			continue
		}
		if rv := e.Review; rv != nil {
			s.WithErrors += b2i(rv.HasErrors)
			s.WithAgentErrors += b2i(rv.AgentError)
			s.WithUserErrors += b2i(rv.UserError)
		}
		if rv := e.UserOnlyReview; rv != nil {
			s.WithErrors += b2i(rv.HasErrors)
			s.WithUserErrors += b2i(rv.UserError)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// line is an entry's progress line.
func (e *Entry) line() string {
	switch {
	case e.Failed():
		return fmt.Sprintf("%s trial %d: review failed: %s", e.TaskID, e.Trial, e.Error)
	case e.Review != nil:
		s := fmt.Sprintf("%s trial %d: %d errors (agent %v, user %v)", e.TaskID, e.Trial, len(e.Review.Errors), e.Review.AgentError, e.Review.UserError)
		if a := e.AuthClassification; a != nil {
			s += ", authentication " + a.Status
		}
		return s
	case e.UserOnlyReview != nil:
		return fmt.Sprintf("%s trial %d: %d user errors", e.TaskID, e.Trial, len(e.UserOnlyReview.Errors))
	}
	return fmt.Sprintf("%s trial %d", e.TaskID, e.Trial)
}

// Items are the simulations of opts.Run to review (opts.TaskIDs and
// opts.Limit applied) and the count of records left out because they ended
// in an infrastructure error.
func Items(opts Options) ([]Item, int, error) {
	var (
		items    []Item
		unscored int
		err      error
	)
	if ok, _ := results.Exists(opts.Run); ok {
		items, unscored, err = runItems(opts)
	} else {
		items, err = tau2Items(opts.Run)
	}
	if err != nil {
		return nil, 0, err
	}
	if len(opts.TaskIDs) > 0 {
		items = slices.DeleteFunc(items, func(it Item) bool { return !slices.Contains(opts.TaskIDs, it.TaskID) })
	}
	if opts.Limit > 0 && opts.Limit < len(items) {
		items = items[:opts.Limit]
	}
	return items, unscored, nil
}

// runItems reads a run directory: the domain's policy and tasks (as the run
// loaded them) and upstream's global guidelines (the variant upstream's run
// info and auto-review use: without tools).
func runItems(opts Options) ([]Item, int, error) {
	run, err := results.LoadRun(opts.Run)
	if err != nil {
		return nil, 0, err
	}
	if opts.Load == nil {
		return nil, 0, errors.New("review: Options.Load is required for a run directory")
	}
	dom, err := opts.Load(run.Manifest)
	if err != nil {
		return nil, 0, fmt.Errorf("review %s: %w", opts.Run, err)
	}
	guidelines, err := usersim.LoadGuidelines(opts.DataRoot, false)
	if err != nil {
		return nil, 0, fmt.Errorf("review %s: %w", opts.Run, err)
	}
	var items []Item
	unscored := 0
	for _, rec := range run.Records {
		if rec.TerminationReason == evaluator.InfrastructureError {
			unscored++
			continue
		}
		task, err := dom.Tasks().Find(rec.TaskID)
		if err != nil {
			return nil, 0, fmt.Errorf("review %s: record %s: %w", opts.Run, rec.ID, err)
		}
		items = append(items, Item{SimulationID: rec.ID, TaskID: rec.TaskID, Trial: rec.Trial,
			Input: Input{Policy: dom.Policy(), Guidelines: guidelines, Task: task, Messages: rec.Messages}})
	}
	return items, unscored, nil
}

// tau2Items reads a τ²-bench results file as upstream's review does: the
// policy and guidelines its info records, the tasks it embeds.
func tau2Items(path string) ([]Item, error) {
	f, err := results.ReadTau2(path)
	if err != nil {
		return nil, err
	}
	var info struct {
		User struct {
			Guidelines *string `json:"global_simulation_guidelines"`
		} `json:"user_info"`
		Env struct {
			Policy string `json:"policy"`
		} `json:"environment_info"`
	}
	if len(f.Info) > 0 {
		if err := json.Unmarshal(f.Info, &info); err != nil {
			return nil, fmt.Errorf("review %s: info: %w", path, err)
		}
	}
	if info.User.Guidelines == nil || *info.User.Guidelines == "" {
		return nil, fmt.Errorf("review %s: the file records no info.user_info.global_simulation_guidelines (upstream's review needs them)", path)
	}
	if info.Env.Policy == "" {
		return nil, fmt.Errorf("review %s: the file records no info.environment_info.policy (upstream's review needs it)", path)
	}
	byID := map[string]*tasks.Task{}
	for i, raw := range f.Tasks {
		var t tasks.Task
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("review %s: task %d: %w", path, i, err)
		}
		byID[t.ID] = &t
	}
	seen := map[string]int{}
	var items []Item
	for i, s := range f.Simulations {
		task := byID[s.TaskID]
		if task == nil {
			return nil, fmt.Errorf("review %s: simulation %d: task %s not in the file", path, i, s.TaskID)
		}
		trial := s.Trial
		seen[s.TaskID]++
		if trial == 0 {
			trial = seen[s.TaskID] // upstream numbers them by order
		}
		items = append(items, Item{SimulationID: s.ID, TaskID: s.TaskID, Trial: trial,
			Input: Input{Policy: info.Env.Policy, Guidelines: *info.User.Guidelines, Task: task, Messages: Tau2Messages(s)}})
	}
	return items, nil
}
