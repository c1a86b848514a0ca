package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/banking"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/play"
)

// playOptions are play's flags: the run settings it shares with run, the
// side played and the task. The terminal and the domain loader are set by
// runPlay.
type playOptions struct {
	play.Options
	// Set names the flags given (--backbones given must exist).
	Set map[string]bool
}

func newCmdPlay(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *playOptions) error) *cobra.Command {
	if runF == nil {
		runF = runPlay
	}
	opts := &playOptions{}
	cmd := &cobra.Command{
		Use:   "play [--domain D] [--task ID] [--as agent|user] [--user-backbone U | --backbone B] [flags]",
		Short: "Play the agent (or the user) of one task yourself, recorded and scored as a run",
		Long: `Play one simulation of a task in the terminal, as τ²-bench's manual mode (tau2 play):
you are the agent, with the domain's tools and policy, against the user simulator
(--user-backbone: τ²-bench's default gpt-4.1-2025-04-14 from the backbones file, or
sim for the offline scripted user), or with --as user you are the customer, with
the task's scenario (and the user's tools), against an agent on --backbone.
Without --domain or --task, play lists them and asks (a number or the name).

Type a message, or call a tool: name(arg='value', n=1), name {"arg": "value"} or
{"name": ..., "arguments": {...}}; help lists the commands (tools, tool NAME, policy,
scenario, ticket, quit). The agent ends the conversation with done(), the user with
###STOP###, ###TRANSFER### or ###OUT-OF-SCOPE###, as in a run. quit, end of input
(Ctrl-D) and Ctrl-C end it unfinished: agent_error (or user_error) with the reason,
reward 0; Ctrl-C exits with status 130.

The simulation is recorded in a new run directory (manifest.json, simulations.jsonl;
agent or user backbone "human") and scored by the evaluator, so report, view and
export read it as any run.`,
		Example: `  ledgerbench play --domain retail --task 0 --user-backbone sim
  ledgerbench play --domain airline --task 5 --user-backbone gpt-4.1
  ledgerbench play --domain retail --task 0 --as user --backbone gold --out runs/me
  ledgerbench play --domain telecom --task '[mms_issue]...' --solo`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			opts.Run.DataDir = dir
			opts.Set = map[string]bool{}
			for _, name := range []string{"backbones"} {
				opts.Set[name] = cmd.Flags().Changed(name)
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	f := cmd.Flags()
	r := &opts.Run
	f.StringVar(&r.Domain, "domain", "", "domain (default: asked, from a list): "+strings.Join(domains.Names(), ", "))
	f.StringVar(&opts.Task, "task", "", "task id (default: asked, from a list)")
	f.StringVar(&opts.As, "as", agents.HumanAgent, "the side you play: agent or user")
	f.StringVar(&r.UserBackbone, "user-backbone", "", "user simulator backbone when you play the agent (default: τ²-bench's, gpt-4.1-2025-04-14 at temperature 0, from the backbones file; sim: the offline scripted user)")
	f.StringVar(&r.Backbone, "backbone", "", "agent backbone when you play the user (a name in the backbones file, or gold, sim, replay:FILE)")
	f.StringVar(&r.Agent, "agent", "baseline", "agent implementation when you play the user: "+strings.Join(agents.AgentNames(), ", "))
	f.StringVar(&r.JudgeBackbone, "judge-backbone", "", "NL-assertion judge backbone (default: judge: of the backbones file)")
	f.BoolVar(&r.NoJudge, "no-judge", false, "score a task with NL assertions without a judge (reports say so)")
	f.StringVar(&r.BackbonesFile, "backbones", defaultBackbonesFile, "backbones file")
	f.StringVar(&r.Split, "split", "", "task split the id is in (default: the domain's)")
	f.Int64Var(&r.Seed, "seed", 300, "master seed (the trial's seed follows τ²-bench)")
	f.IntVar(&r.MaxSteps, "max-steps", 200, "steps before the simulation ends with max_steps")
	f.IntVar(&r.MaxErrors, "max-errors", 10, "tool errors before the simulation ends with too_many_errors")
	f.DurationVar(&r.Timeout, "timeout", 0, "wall-clock limit, ending the simulation with timeout (0: none)")
	f.StringVar(&r.Out, "out", "", "run directory, new (default runs/<time>_<domain>_play-<as>_<task>)")
	f.BoolVar(&r.Solo, "solo", false, "τ²-bench's solo mode (telecom): no user; you hold the phone tools and work from the ticket")
	f.BoolVar(&r.EnforceProtocol, "enforce-communication-protocol", false, "end the simulation with agent_error or user_error when a message mixes text and tool calls (upstream's flag)")
	f.BoolVar(&r.AllowModifiedData, "allow-modified-data", false, allowModifiedUsage)
	f.StringVar(&r.RetrievalConfig, "retrieval-config", "", retrievalConfigUsage+strings.Join(banking.VariantNames(), ", "))
	f.StringVar(&r.RetrievalConfigKwargs, "retrieval-config-kwargs", "", retrievalKwargsUsage)
	_ = cmd.RegisterFlagCompletionFunc("as", cobra.FixedCompletions([]string{agents.HumanAgent, agents.HumanUser}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// runPlay plays and prints the conversation on stdout.
func runPlay(ctx context.Context, s *Streams, opts *playOptions) error {
	o := opts.Options
	o.In, o.Screen = s.In, s.Out
	r := &o.Run
	r.BackbonesOptional = !opts.Set["backbones"]
	r.LoadDomain = func(name string, solo bool, do domains.Options) (envs.Domain, map[string]string, error) {
		l := func(name, root string) (envs.Domain, error) { return domains.LoadWith(name, root, do) }
		if solo {
			l = domains.LoadSolo
		}
		return loadDomain(l, name, r.DataDir, r.AllowModifiedData, s.ErrOut) // datacheck.go
	}
	r.Getenv = s.Getenv
	r.HarnessVersion = Version
	r.LLM.Logf = stderrLogf(&lockedWriter{w: s.ErrOut}, s.ErrTTY)
	if s.In == nil {
		return errors.New("play reads the conversation from stdin: no input")
	}
	_, err := play.Run(ctx, o)
	return err
}
