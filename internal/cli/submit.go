package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/output/submit"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// submitRunners are the submit subcommands' run functions (nil: the real
// ones).
type submitRunners struct {
	prepare  func(context.Context, *Streams, *submitPrepareOptions) error
	validate func(context.Context, *Streams, *submitValidateOptions) error
}

func newCmdSubmit(s *Streams, g *globalOptions, runF submitRunners) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "submit",
		Short: "Prepare and validate a τ-bench leaderboard submission",
		Long: `prepare writes a submission directory as τ²-bench's "tau2 submit prepare" does;
validate runs the checks of "tau2 submit validate" on one.`,
	}
	cmd.AddCommand(newCmdSubmitPrepare(s, g, runF.prepare), newCmdSubmitValidate(s, g, runF.validate))
	return cmd
}

type submitPrepareOptions struct {
	Runs    []string
	Out     string
	DataDir string
	Opts    submit.Options
}

func newCmdSubmitPrepare(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *submitPrepareOptions) error) *cobra.Command {
	if runF == nil {
		runF = runSubmitPrepare
	}
	o := &submitPrepareOptions{}
	cmd := &cobra.Command{
		Use:   "prepare RUN… --out DIR",
		Short: "Write a leaderboard submission directory from runs or τ²-bench results files",
		Long: `Each RUN is a run directory, a τ²-bench results JSON (exported with "export --format
tau2" or recorded by τ²-bench), or a directory of such files (every *.json below it,
or its results.json alone, as tau2 submit prepare expands directories). One input per
τ²-bench domain (retail, airline, telecom), all with the same agent and user
backbones. Writes DIR/{model}_{organization}_{date}/ with trajectories/ (a run as a
τ²-bench results JSON, tasks and policy from the data directory; a results file
copied as it is, results.json renamed {domain}_results.json as upstream does) and
submission.json (pass^1…pass^4 in percent and the mean agent cost per simulation,
computed from those files as τ²-bench computes them).

The submission type is not an option: it is "standard" only when every input's
ledgerbench manifest says the agent and user simulator were shown upstream's prompts
exactly (prompts: upstream, the baseline agent); otherwise "custom", with
methodology.verification.modified_prompts set and the agents named in its details.
A results file's manifest is the manifest.json in its directory when that describes
it (same domain, agent, backbones, trials: a file exported into its run directory);
a file without one — every file τ²-bench itself recorded — is custom with
modified_prompts, since nothing records which prompts it was run with.
omitted_questions is set when an input does not cover the domain's base split.

A run on an offline backbone (gold, sim, replay:FILE: a scripted agent or user, not a
model) or whose NL assertions were not judged (--no-judge) is never a standard
submission: prepare refuses it, naming the run and the reason; --custom submits it as a
custom entry (upstream's schema admits a modified user simulation or evaluation only as
custom) with each reason in verification.details and the notes, and validate fails a
"standard" submission of such trajectories.

Before writing, every trajectory file goes through upstream's verify_trajectories
checks, as tau2 submit prepare runs them (the file loads; it holds every task of the
domain's base split, unchanged, and no other; every task num_trials times); a failure
writes nothing (--no-verify skips them, as upstream's flag does). The submission
directory DIR/{model}_{organization}_{date} must not exist or be empty: --force
replaces it whole (DIR may hold other submissions).`,
		Example: `  ledgerbench submit prepare runs/retail runs/airline runs/telecom --out submission \
    --model-name gpt-4.1 --model-organization OpenAI --email me@example.com`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errext.Usagef("submit prepare needs at least one RUN (a run directory or a τ²-bench results file)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Runs = args
			if o.Out == "" {
				return errext.Usagef("submit prepare needs --out DIR")
			}
			if err := g.setDataDir(s, &o.DataDir); err != nil {
				return err
			}
			if o.Opts.Date == "" {
				o.Opts.Date = time.Now().Format(time.DateOnly)
			} else if _, err := time.Parse(time.DateOnly, o.Opts.Date); err != nil {
				return errext.Usagef("--date %q: want a date YYYY-MM-DD", o.Opts.Date)
			}
			o.Opts.Harness = Version
			return runF(cmd.Context(), s, o)
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
	f.BoolVar(&o.Opts.Custom, "custom", false, "submit runs that are never standard (offline backbones, NL assertions not judged) as a custom entry, marked as such")
	f.BoolVar(&o.Opts.Force, "force", false, "replace an existing submission directory whole")
	f.BoolVar(&o.Opts.NoVerify, "no-verify", false, "skip upstream's trajectory checks before writing (as tau2 submit prepare --no-verify)")
	return cmd
}

func runSubmitPrepare(_ context.Context, s *Streams, o *submitPrepareOptions) error {
	var inputs []submit.Input
	for _, arg := range o.Runs {
		ins, err := submit.Inputs(arg, func(path, why string) {
			fmt.Fprintf(s.ErrOut, "note: %s: %s; nothing records its prompts, so it is submitted as custom with modified_prompts\n", path, why)
		})
		if err != nil {
			return err
		}
		for _, in := range ins {
			domain := ""
			if in.Run != nil {
				domain = in.Run.Manifest.Domain
			} else {
				meta, err := in.File.Meta()
				if err != nil {
					return fmt.Errorf("submit prepare %s: %w", in.Path, err)
				}
				domain = meta.Domain
			}
			where := in.Path
			if in.Run != nil {
				where = in.Run.Dir
			}
			load := domains.Load
			if in.Run != nil {
				load = manifestLoader(in.Run.Manifest)
			}
			dom, err := load(domain, o.DataDir)
			if err != nil {
				return fmt.Errorf("submit prepare %s: %w", where, err)
			}
			base, err := dom.Tasks().Select(tasks.Selection{Split: "base"})
			if err != nil {
				return fmt.Errorf("submit prepare %s: %w", where, err)
			}
			in.BaseTaskIDs = make([]string, len(base))
			for i, t := range base {
				in.BaseTaskIDs[i] = t.ID
			}
			if run := in.Run; run != nil {
				in.Records = sortedRecords(run.Records, run.Manifest.TaskIDs)
				in.Tasks, in.Policy = tasksByID(dom.Tasks(), run.Manifest.Split, run.Manifest.TaskIDs), dom.Policy()
			}
			inputs = append(inputs, in)
		}
	}
	o.Opts.Base = baseTasks(o.DataDir)
	p, err := submit.Prepare(o.Out, inputs, o.Opts)
	if err != nil {
		return err
	}
	sub := p.Submission
	fmt.Fprintf(s.Out, "wrote %s (%s submission)\n", p.Dir, sub.SubmissionType)
	for _, d := range submit.Domains() {
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

type submitValidateOptions struct {
	DataDir string
	Dir     string
}

func newCmdSubmitValidate(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *submitValidateOptions) error) *cobra.Command {
	if runF == nil {
		runF = runSubmitValidate
	}
	opts := &submitValidateOptions{}
	return &cobra.Command{
		Use:   "validate DIR",
		Short: "Check a leaderboard submission directory as tau2 submit validate does",
		Long: `Checks that submission.json and trajectories/ load; that each domain appears once
and every file has the same agent and user simulator settings; that each file holds
every task of the domain's base split (from the data directory), unchanged, each
run num_trials times, with at least 4 trials; that submission.json's metrics
equal those computed from the trajectories; and that a "standard" submission holds
no run on an offline backbone (gold, sim, replay:) and no reward whose NL assertions
were not judged. Exits 1 when a check fails; warnings (model or user simulator names
that differ from the trajectories', custom entries of such runs) are printed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			return runF(cmd.Context(), s, opts)
		},
	}
}

// baseTasks loads a domain's base split from the data directory (the tasks
// a submission must hold).
func baseTasks(dataDir string) submit.BaseTasks {
	return func(domain string) ([]tasks.Task, error) {
		dom, err := domains.Load(domain, dataDir)
		if err != nil {
			return nil, err
		}
		return dom.Tasks().Select(tasks.Selection{Split: "base"})
	}
}

func runSubmitValidate(_ context.Context, s *Streams, opts *submitValidateOptions) error {
	rep, err := submit.Validate(opts.Dir, baseTasks(opts.DataDir))
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
		return fmt.Errorf("submission %s is not valid", opts.Dir)
	}
	fmt.Fprintf(s.Out, "submission %s is valid\n", opts.Dir)
	return nil
}
