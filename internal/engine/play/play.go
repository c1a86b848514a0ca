package play

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/runplan"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
)

// Options are a play's settings: the run's (domain, the other side's
// backbone, judge, split, seed, limits, run directory, solo) and the side
// the person plays, the task and the terminal. An empty domain or task is
// asked on the terminal.
type Options struct {
	// Run holds the settings a play shares with `ledgerbench run`. Its
	// TaskIDs, Trials, Concurrency, Limit, Shard, Resume and Player are
	// set by Run; Out "" is runs/<time>_<domain>_play-<as>_<task>.
	Run runplan.Options
	// As is agents.HumanAgent (default) or agents.HumanUser.
	As string
	// Task is the task id.
	Task string
	// In is the person's input; Screen shows the conversation.
	In     io.Reader
	Screen io.Writer
}

// Result is a finished play: the run directory's contents after it and the
// simulation's record.
type Result struct {
	Dir    string
	Record results.Record
	// Interrupted is set when Ctrl-C ended the conversation.
	Interrupted bool
}

// Run plays one simulation of the task with a person on one side, records
// it in a new run directory and scores it with the evaluator, exactly as
// `ledgerbench run` records and scores its simulations. Ctrl-C (ctx's end)
// ends the person's turn: the simulation ends with the person's side's
// error (ErrInterrupted), is recorded and scored, and Run returns it with
// an error wrapping context.Canceled.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.As == "" {
		o.As = agents.HumanAgent
	}
	if o.As != agents.HumanAgent && o.As != agents.HumanUser {
		return nil, errext.Usagef("--as %q: play the %s or the %s", o.As, agents.HumanAgent, agents.HumanUser)
	}
	if o.In == nil || o.Screen == nil {
		return nil, errors.New("play: no terminal (In and Screen)")
	}
	po := o.Run
	if o.As == agents.HumanUser && po.Backbone == "" {
		return nil, errext.Usagef("playing the user needs the agent's backbone: pass --backbone NAME (a name in the backbones file, or gold, sim, replay:FILE)")
	}
	if o.As == agents.HumanUser && po.UserBackbone != "" {
		return nil, errext.Usagef("--user-backbone drives the user simulator, which you play: pass --backbone for the agent (or --as agent)")
	}
	if o.As == agents.HumanAgent && po.Agent != "" && po.Agent != "baseline" {
		return nil, errext.Usagef("--agent %s names the agent you play against (--as user); you play the agent", po.Agent)
	}
	if o.As == agents.HumanAgent && po.Backbone != "" {
		return nil, errext.Usagef("--backbone drives the agent, which you play: pass --user-backbone for the user simulator (or --as user)")
	}
	if o.As == agents.HumanUser && po.Agent == "" {
		po.Agent = "baseline"
	}
	lines := NewLines(o.In)
	defer lines.Close()
	// What the flags leave open is asked, as upstream's manual mode asks.
	o.Run = po
	if err := choose(ctx, &o, lines); err != nil {
		return nil, err
	}
	po = o.Run
	po.TaskIDs, po.Trials, po.Concurrency, po.Limit, po.Shard, po.Resume = []string{o.Task}, 1, 1, 0, "", false
	if po.Now == nil {
		po.Now = time.Now
	}
	if po.Out == "" {
		clean := strings.NewReplacer("/", "-", " ", "-", ":", "-").Replace(o.Task)
		po.Out = filepath.Join("runs", fmt.Sprintf("%s_%s_play-%s_%s", po.Now().Format("20060102_150405"), po.Domain, o.As, clean))
	}
	if ok, err := results.Exists(po.Out); err != nil {
		return nil, err
	} else if ok {
		return nil, fmt.Errorf("%s already holds a run; play records into a new directory (pass another --out)", po.Out)
	}
	loop, err := agents.LoopOf(po.Loop, po.Domain)
	if err != nil {
		return nil, errext.Usage(err)
	}
	stop, err := baseline.LoadSolo(po.DataDir)
	if err != nil {
		return nil, err
	}
	if loop != agents.LoopTau2 {
		// τ-Trait's (τ-bench v1's) loop has no agent stop: the user's
		// ###STOP### or a transfer ends it.
		stop = nil
	}
	newHuman := func(spec runner.Spec) (*Human, error) {
		side, err := sideOf(o.As, spec, po.Solo, stop)
		if err != nil {
			return nil, err
		}
		h := NewHuman(side, lines, o.Screen, ctx.Done())
		h.Intro()
		return h, nil
	}
	po.Player = &runplan.Player{Role: o.As,
		Agent: func(spec runner.Spec) (orchestrator.Agent, error) { return newHuman(spec) },
		User:  func(spec runner.Spec) (orchestrator.User, error) { return newHuman(spec) },
	}
	p, err := runplan.New(ctx, po)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	header(o.Screen, p, o)
	res, err := p.Execute(ctx, nil)
	if res == nil {
		return nil, err
	}
	out := &Result{Dir: p.Options.Out}
	if len(res.Records) > 0 {
		out.Record = res.Records[len(res.Records)-1]
		footer(o.Screen, out.Record, o.As, out.Dir)
	}
	if ctx.Err() != nil {
		out.Interrupted = true
		return out, fmt.Errorf("interrupted: the simulation is recorded in %s: %w", out.Dir, context.Cause(ctx))
	}
	return out, err
}

// sideOf is what the person playing as sees of spec's task and domain;
// stop is the agent's stop tool (nil on a loop without an agent stop).
func sideOf(as string, spec runner.Spec, solo bool, stop *baseline.Solo) (Side, error) {
	dom, task := spec.Domain, spec.Task
	side := Side{Role: as, Policy: envs.TaskPolicy(dom, task)}
	if stop != nil {
		side.StopTool, side.StopToken = stop.StopTool.Name, stop.StopToken
	}
	if as == agents.HumanUser {
		side.Tools = usersim.UserTools(dom.UserTools(), task)
		side.Scenario = task.UserScenario.String()
		return side, nil
	}
	side.Tools = slices.Clone(dom.AgentTools()) // in solo mode the user's tools too
	if solo {
		t, err := agents.SoloTicket(task)
		if err != nil {
			return Side{}, err
		}
		side.Ticket = t
	}
	return side, nil
}

// header says what is played, against whom, and where it is recorded.
func header(w io.Writer, p *runplan.Plan, o Options) {
	m := p.Manifest
	other := "user " + m.UserBackbone
	switch {
	case m.Solo:
		other = "solo mode: no user"
	case o.As == agents.HumanUser:
		other = "agent " + m.Agent + " on " + m.Backbone
	}
	judge := m.JudgeBackbone
	if judge == "" {
		judge = "none"
	}
	fmt.Fprintf(w, "ledgerbench play: %s task %s · you play the %s · %s · judge %s\n", m.Domain, o.Task, o.As, other, judge)
	for _, d := range p.Defaults {
		fmt.Fprintf(w, "  default %s\n", d)
	}
	fmt.Fprintf(w, "  recording into %s\n", p.Options.Out)
}

// footer says how the conversation ended and its reward.
// The other side's last message, which the person has not seen when it
// ended the conversation, comes first.
func footer(w io.Writer, r results.Record, as, dir string) {
	if n := len(r.Messages); n > 0 {
		last := r.Messages[n-1]
		mine := last.Role == message.Assistant && as == agents.HumanAgent || last.Role == message.User && as == agents.HumanUser
		if !mine && last.Role != message.Tool && last.HasText() {
			who := map[message.Role]string{message.Assistant: "agent", message.User: "user"}[last.Role]
			fmt.Fprintf(w, "\n%s: %s\n", who, last.Content)
		}
	}
	fmt.Fprintf(w, "\nsimulation ended: %s", r.TerminationReason)
	if r.Error != "" {
		fmt.Fprintf(w, " (%s)", r.Error)
	}
	fmt.Fprintln(w)
	switch {
	case r.RewardInfo != nil:
		fmt.Fprintf(w, "reward %s", formatReward(r.RewardInfo.Reward))
		var parts []string
		for _, b := range r.RewardInfo.RewardBasis {
			if v, ok := r.RewardInfo.RewardBreakdown[b]; ok {
				parts = append(parts, fmt.Sprintf("%s %s", b, formatReward(v)))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
		}
		fmt.Fprintln(w)
		for _, n := range r.RewardInfo.Notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	case r.TerminationReason == evaluator.InfrastructureError:
		fmt.Fprintln(w, "not scored (an infrastructure error)")
	}
	fmt.Fprintf(w, "recorded in %s (ledgerbench report %s; ledgerbench view %s)\n", filepath.Join(dir, results.SimulationsFile), dir, dir)
}

func formatReward(v float64) string { return fmt.Sprintf("%.1f", v) }
