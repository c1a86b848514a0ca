package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/domains"
	"github.com/ledgerbench/ledgerbench/internal/submit"
	"github.com/ledgerbench/ledgerbench/results"
	"github.com/ledgerbench/ledgerbench/tasks"
)

func newCmdSubmit(s *Streams, g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "submit",
		Short: "Prepare and validate a τ-bench leaderboard submission",
		Long: `prepare writes a submission directory as τ²-bench's "tau2 submit prepare" does;
validate runs the checks of "tau2 submit validate" on one.`,
	}
	cmd.AddCommand(newCmdSubmitPrepare(s, g), newCmdSubmitValidate(s, g))
	return cmd
}

type submitPrepareOptions struct {
	Runs    []string
	Out     string
	DataDir string
	Opts    submit.Options
}

func newCmdSubmitPrepare(s *Streams, g *globalOptions) *cobra.Command {
	o := &submitPrepareOptions{}
	cmd := &cobra.Command{
		Use:   "prepare RUN… --out DIR",
		Short: "Write a leaderboard submission directory from run directories",
		Long: `Each RUN is a run directory of one τ²-bench domain (retail, airline, telecom); each
domain once, all with the same agent and user backbones. Writes
DIR/{model}_{organization}_{date}/ with trajectories/ (each run as a τ²-bench results
JSON, tasks and policy from the data directory) and submission.json (pass^1…pass^4
in percent and the mean agent cost per simulation, computed from those files as
τ²-bench computes them).

The submission type is not an option: it is "standard" only when every run's
manifest says the agent and user simulator were shown upstream's prompts exactly
(prompts: upstream, the baseline agent); otherwise "custom", with
methodology.verification.modified_prompts set and the agents named in its details.
omitted_questions is set when a run does not cover the domain's base split.`,
		Example: `  ledgerbench submit prepare runs/retail runs/airline runs/telecom --out submission \
    --model-name gpt-4.1 --model-organization OpenAI --email me@example.com`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("submit prepare needs at least one RUN directory")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Runs = args
			if o.Out == "" {
				return usageError{fmt.Errorf("submit prepare needs --out DIR")}
			}
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			o.DataDir = dir
			if o.Opts.Date == "" {
				o.Opts.Date = time.Now().Format(time.DateOnly)
			}
			o.Opts.Harness = Version
			return runSubmitPrepare(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Out, "out", "o", "", "directory to write the submission into")
	f.StringVar(&o.Opts.ModelName, "model-name", "", "model name (default: the agent backbone)")
	f.StringVar(&o.Opts.ModelOrganization, "model-organization", "", `who developed the model (default "My-Organization")`)
	f.StringVar(&o.Opts.SubmittingOrganization, "submitting-organization", "", "who ran the evaluation (default: the model organization)")
	f.StringVar(&o.Opts.Email, "email", "", "contact email")
	f.StringVar(&o.Opts.ContactName, "contact-name", "", "contact name")
	f.StringVar(&o.Opts.GitHub, "github", "", "GitHub username")
	f.StringVar(&o.Opts.ReasoningEffort, "reasoning-effort", "", "reasoning effort level of the model, if any")
	f.StringVar(&o.Opts.Notes, "notes", "", "more methodology notes")
	f.BoolVar(&o.Opts.IsNew, "new", true, "highlight the model as new on the leaderboard")
	f.StringVar(&o.Opts.Date, "date", "", "submission date YYYY-MM-DD (default today)")
	return cmd
}

func runSubmitPrepare(_ context.Context, s *Streams, o *submitPrepareOptions) error {
	var inputs []submit.Input
	for _, dir := range o.Runs {
		run, err := results.LoadRun(dir)
		if err != nil {
			return err
		}
		dom, err := domains.Load(run.Manifest.Domain, o.DataDir)
		if err != nil {
			return fmt.Errorf("submit prepare %s: %w", dir, err)
		}
		base, err := dom.Tasks().Select(tasks.Selection{Split: "base"})
		if err != nil {
			return fmt.Errorf("submit prepare %s: %w", dir, err)
		}
		ids := make([]string, len(base))
		for i, t := range base {
			ids[i] = t.ID
		}
		inputs = append(inputs, submit.Input{Run: run, Records: sortedRecords(run.Records, run.Manifest.TaskIDs),
			Tasks: runTasks(dom.Tasks(), run.Manifest.TaskIDs), Policy: dom.Policy(), BaseTaskIDs: ids})
	}
	p, err := submit.Prepare(o.Out, inputs, o.Opts)
	if err != nil {
		return err
	}
	sub := p.Submission
	fmt.Fprintf(s.Out, "wrote %s (%s submission)\n", p.Dir, sub.SubmissionType)
	for _, d := range submit.Domains {
		r := *sub.Results.Domain(d)
		if r == nil {
			continue
		}
		fmt.Fprintf(s.Out, "  %-8s", d)
		for k := 1; k <= 4; k++ {
			if v := r.PassK(k); v != nil {
				fmt.Fprintf(s.Out, "  pass^%d %.1f%%", k, *v)
			}
		}
		fmt.Fprintf(s.Out, "  (%s)\n", sub.TrajectoryFiles[d])
	}
	if v := sub.Methodology.Verification; v.Details != nil {
		fmt.Fprintf(s.Out, "  verification: %s\n", *v.Details)
	}
	fmt.Fprintf(s.Out, "next: ledgerbench submit validate %s\n", p.Dir)
	return nil
}

func newCmdSubmitValidate(s *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "validate DIR",
		Short: "Check a leaderboard submission directory as tau2 submit validate does",
		Long: `Checks that submission.json and trajectories/ load; that each domain appears once
and every file has the same agent and user simulator settings; that each file holds
every task of the domain's base split (from the data directory), unchanged, each
run num_trials times, with at least 4 trials; and that submission.json's metrics
equal those computed from the trajectories. Exits 1 when a check fails; warnings
(model or user simulator names that differ from the trajectories') are printed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			base := func(domain string) ([]tasks.Task, error) {
				dom, err := domains.Load(domain, dir)
				if err != nil {
					return nil, err
				}
				return dom.Tasks().Select(tasks.Selection{Split: "base"})
			}
			rep, err := submit.Validate(args[0], base)
			if err != nil {
				return err
			}
			for _, c := range rep.Checks {
				mark := "ok  "
				if !c.OK {
					mark = "FAIL"
				}
				where := ""
				if c.File != "" {
					where = " [" + c.File + "]"
				}
				fmt.Fprintf(s.Out, "%s %s%s", mark, c.Name, where)
				if c.Detail != "" {
					fmt.Fprintf(s.Out, ": %s", c.Detail)
				}
				fmt.Fprintln(s.Out)
			}
			for _, w := range rep.Warnings {
				fmt.Fprintf(s.Out, "warning: %s\n", w)
			}
			if !rep.OK() {
				return fmt.Errorf("submission %s is not valid", args[0])
			}
			fmt.Fprintf(s.Out, "submission %s is valid\n", args[0])
			return nil
		},
	}
}
