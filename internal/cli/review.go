package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/review"
)

type reviewOptions struct {
	Run           string
	DataDir       string
	Mode          string
	Backbone      string
	BackbonesFile string
	Concurrency   int
	Limit         int
	TaskIDs       []string
	ShowDetails   bool
	Quiet         bool
	// LLM are the model client's options (tests point them at a fake).
	LLM llm.Options
}

const reviewModeUsage = "review mode: full (agent and user errors, then the authentication classification) or user (the user simulator's errors only)"

func newCmdReview(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *reviewOptions) error) *cobra.Command {
	if runF == nil {
		runF = runReview
	}
	opts := &reviewOptions{}
	cmd := &cobra.Command{
		Use:   "review RUN --backbone B [--mode full|user] [flags]",
		Short: "LLM review of recorded conversations: agent and user-simulator errors (τ²-bench's tau2 review)",
		Long: `Review every simulation of RUN (a run directory, or a τ²-bench results file) with
τ²-bench's conversation reviewer: its prompts (read from the pulled
src/tau2/evaluator/review_llm_judge*.py and auth_classifier.py), its rendering of the
conversation, its reply parsing. Requests carry the model and the two messages, no
temperature, as upstream's.

  full   agent and user errors (source, tags, severity, turn, reasoning, correct
         behaviour), then the authentication classification (succeeded, failed,
         not_needed): two calls per simulation
  user   the user simulator's errors, over the conversation the user saw: one call

A run directory is reviewed with its domain's policy and upstream's global user
simulator guidelines; a τ²-bench file with the policy and guidelines its info records
and the tasks it embeds. Results are appended to RUN/reviews.jsonl (beside a results
JSON: NAME.reviews.jsonl), one line per simulation and mode under upstream's field names
(simulation_id, task_id, trial, review | user_only_review, auth_classification,
review_model); rerunning reviews only simulations without a review in the mode. A failed
review call is recorded as an infrastructure error (reviewed again on the next run),
never as an empty review, and the command exits 1; a 401/403 stops further calls.
Records that ended in an infrastructure error are not reviewed. report --table errors
and view show the reviews.`,
		Example: `  ledgerbench review runs/airline-baseline --backbone gpt-4.1
  ledgerbench review runs/airline-baseline --backbone gpt-4.1 --mode user --task-ids 3,7
  ledgerbench review results/claude_airline.json --backbone gpt-5.2 --show-details`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Run = args[0]
			if _, err := review.ParseMode(opts.Mode); err != nil {
				return errext.Usage(err)
			}
			if opts.Backbone == "" {
				return errext.Usagef("review needs --backbone (a name in the backbones file)")
			}
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Mode, "mode", "m", string(review.Full), reviewModeUsage)
	f.StringVar(&opts.Backbone, "backbone", "", "review backbone (a name in the backbones file; upstream's --review-model)")
	f.StringVar(&opts.BackbonesFile, "backbones", defaultBackbonesFile, "backbones file")
	f.IntVarP(&opts.Concurrency, "concurrency", "c", 32, "reviews running at once (upstream's --max-concurrency)")
	f.IntVar(&opts.Limit, "limit", 0, "only the first N simulations")
	f.StringSliceVar(&opts.TaskIDs, "task-ids", nil, "only simulations of these task ids")
	f.BoolVar(&opts.ShowDetails, "show-details", false, "print each review's errors")
	f.BoolVar(&opts.Quiet, "quiet", false, "no per-simulation lines")
	return cmd
}

func runReview(ctx context.Context, s *Streams, opts *reviewOptions) error {
	ro, err := opts.reviewOptions(s)
	if err != nil {
		return err
	}
	if ok, _ := results.Exists(opts.Run); ok {
		lock, err := results.Lock(opts.Run)
		if err != nil {
			return err
		}
		defer lock.Unlock()
	}
	return reviewRun(ctx, s, ro, opts.ShowDetails)
}

// reviewOptions resolve the backbone and the domain loader.
func (opts *reviewOptions) reviewOptions(s *Streams) (review.Options, error) {
	mode, err := review.ParseMode(opts.Mode)
	if err != nil {
		return review.Options{}, errext.Usage(err)
	}
	cfg, err := llm.Load(opts.BackbonesFile)
	if err != nil {
		return review.Options{}, err
	}
	if _, err := cfg.Backbone(opts.Backbone); err != nil {
		return review.Options{}, errext.Usage(err)
	}
	lo := opts.LLM
	if lo.LookupEnv == nil {
		lo.LookupEnv = func(k string) (string, bool) {
			v := s.Getenv(k)
			return v, v != ""
		}
	}
	// The retry notices and the progress lines come from the reviews'
	// goroutines: one lock for both.
	errOut := &lockedWriter{w: s.ErrOut}
	if lo.Logf == nil {
		lo.Logf = stderrLogf(errOut, s.ErrTTY) // term.go
	}
	c, err := llm.NewPool(cfg, lo).Client(opts.Backbone)
	if err != nil {
		return review.Options{}, err
	}
	b := c.Backbone()
	ro := review.Options{Run: opts.Run, DataRoot: opts.DataDir, Mode: mode, Backbone: opts.Backbone, Model: b.Model,
		Gen: c, Priced: b.Price != nil, Concurrency: opts.Concurrency, Limit: opts.Limit, TaskIDs: opts.TaskIDs,
		Load: func(m *results.Manifest) (envs.Domain, error) {
			load := manifestLoader(m) // retrieval.go: as the run loaded it
			if m.Solo {
				load = domains.LoadSolo
			}
			return load(m.Domain, opts.DataDir)
		}}
	if !opts.Quiet {
		ro.Progress = errOut
	}
	return ro, nil
}

// reviewRun runs a review and prints its summary (and, with details, every
// entry of the mode).
func reviewRun(ctx context.Context, s *Streams, ro review.Options, details bool) error {
	fmt.Fprintf(s.ErrOut, "reviewing %s [mode %s, backbone %s (%s), concurrency %d]\n", ro.Run, ro.Mode, ro.Backbone, ro.Model, max(1, ro.Concurrency))
	sum, err := review.Run(ctx, ro)
	if sum.Path != "" {
		writeReviewSummary(s.Out, sum)
	}
	if details && sum.Path != "" {
		if revs, rerr := review.Read(sum.Path); rerr == nil && revs != nil {
			for i := range revs.Entries {
				if e := &revs.Entries[i]; e.Mode == ro.Mode {
					writeReviewDetails(s.Out, e)
				}
			}
		}
	}
	return err // a failed review (review.ErrReviewFailed) exits 1
}

func writeReviewSummary(w io.Writer, sum review.Summary) {
	fmt.Fprintf(w, "%s: %d simulations, %d reviewed now, %d already reviewed, %d failed", sum.Path, sum.Total, sum.Reviewed, sum.Resumed, sum.Failed)
	if sum.Unscored > 0 {
		fmt.Fprintf(w, ", %d infrastructure-error records not reviewed", sum.Unscored)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "with errors %d", sum.WithErrors)
	if sum.Mode == review.Full {
		fmt.Fprintf(w, " (agent %d, user %d)", sum.WithAgentErrors, sum.WithUserErrors)
	}
	if sum.Cost != nil {
		fmt.Fprintf(w, "; review cost $%.4f\n", *sum.Cost)
	} else {
		fmt.Fprintln(w, "; review cost unknown (no price for the backbone)")
	}
}

func writeReviewDetails(w io.Writer, e *review.Entry) {
	fmt.Fprintf(w, "\n%s  task %s trial %d\n", e.SimulationID, e.TaskID, e.Trial)
	switch {
	case e.Failed():
		fmt.Fprintf(w, "  review failed: %s\n", e.Error)
	case e.Review != nil:
		fmt.Fprintf(w, "  %s\n", e.Review.Summary)
		for _, re := range e.Review.Errors {
			fmt.Fprintf(w, "  - %s%s [%s] %s: %s\n", re.Source, turnOf(re.TurnIdx), strings.Join(re.ErrorTags, ","), severityOf(re.Severity), re.Reasoning)
		}
		if a := e.AuthClassification; a != nil {
			fmt.Fprintf(w, "  authentication %s: %s\n", a.Status, a.Reasoning)
		}
	case e.UserOnlyReview != nil:
		fmt.Fprintf(w, "  %s\n", e.UserOnlyReview.Summary)
		for _, re := range e.UserOnlyReview.Errors {
			fmt.Fprintf(w, "  - user%s [%s] %s: %s\n", turnOf(re.TurnIdx), strings.Join(re.ErrorTags, ","), severityOf(re.Severity), re.Reasoning)
		}
	}
}

func turnOf(p *int) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf(" turn %d", *p)
}

func severityOf(p *string) string {
	if p == nil {
		return "-"
	}
	return *p
}

// autoReview is run's --auto-review (upstream's --auto-review, --review-mode
// and --review-model): after the run, every simulation of the run directory
// is reviewed as `review` does (resumable; a rerun reviews what is missing).
type autoReview struct {
	Enabled  bool
	Mode     string
	Backbone string
}

func (a *autoReview) flags(f *pflag.FlagSet) {
	f.BoolVar(&a.Enabled, "auto-review", false, "after the run, review every simulation with the LLM conversation reviewer (as ledgerbench review; needs --review-backbone)")
	f.StringVar(&a.Mode, "review-mode", string(review.Full), "--auto-review's "+reviewModeUsage)
	f.StringVar(&a.Backbone, "review-backbone", "", "--auto-review's backbone (a name in the backbones file; upstream's --review-model)")
}

// check refuses, before the run starts, an auto-review that could not run.
func (a *autoReview) check(backbonesFile string) error {
	if !a.Enabled {
		return nil
	}
	if _, err := review.ParseMode(a.Mode); err != nil {
		return errext.Usage(fmt.Errorf("--review-mode: %w", err))
	}
	if a.Backbone == "" {
		return errext.Usagef("--auto-review needs --review-backbone (a name in the backbones file)")
	}
	cfg, err := llm.Load(backbonesFile)
	if err != nil {
		return err
	}
	if _, err := cfg.Backbone(a.Backbone); err != nil {
		return errext.Usage(fmt.Errorf("--review-backbone: %w", err))
	}
	return nil
}

func (a *autoReview) run(ctx context.Context, s *Streams, dataDir, backbonesFile, out string, lo llm.Options, quiet bool) error {
	if !a.Enabled {
		return nil
	}
	opts := &reviewOptions{Run: out, DataDir: dataDir, Mode: a.Mode, Backbone: a.Backbone, BackbonesFile: backbonesFile,
		Concurrency: 32, Quiet: quiet, LLM: lo}
	ro, err := opts.reviewOptions(s)
	if err != nil {
		return err
	}
	return reviewRun(ctx, s, ro, false)
}
