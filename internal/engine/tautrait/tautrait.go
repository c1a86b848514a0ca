// Package tautrait is τ-Trait's conversation loop (collinear-ai/tau-trait,
// tau_trait/agents/tool_calling_agent.py and tau_trait/envs/base.py, i.e.
// τ-bench v1's), for the telehealth domain:
//
//   - the simulated user speaks first, answering upstream's greeting, which
//     is not part of the agent's conversation: the agent's starts
//     [system: the wiki, user: the first user message];
//   - each step is one agent generation; only the first tool call of a
//     reply is executed and kept (AgentGenerator truncates the reply before
//     the agent commits it), and its result goes back as
//     {role: tool, tool_call_id, name, content};
//   - a reply without tool calls is a respond action: its content, verbatim
//     (empty too), goes to the user, and the episode ends when the user's
//     answer contains ###STOP###;
//   - calling a terminate tool (transfer_to_human_support) ends the episode
//     after it runs, even when it fails;
//   - a name that is not a tool gets "Unknown action <name>" (the domain's
//     observation) and the episode goes on; tool errors do not count;
//   - at most MaxSteps (30) agent steps; then the reward is 0.
//
// The reward is τ-bench v1's (the final database against a replay of the
// gold actions; outputs, when a task has any, in the respond contents),
// which the evaluator computes for the domain's tasks. Run's record keeping
// and evaluation are the orchestrator's: Loop plugs into
// orchestrator.Config.Loop (runner.Makers.Loop).
package tautrait

import (
	"context"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
)

// Name labels the loop in manifests ("tau-trait"); orchestrator's loop is
// "tau2".
const Name = "tau-trait"

// MaxSteps is ToolCallingAgent.solve's max_num_steps.
const MaxSteps = 30

// StopToken ends the episode when the user's reply contains it (the only
// stop token of τ-bench v1's Env.step).
const StopToken = "###STOP###"

// Loop plays one τ-Trait episode (an orchestrator.Loop). cfg's MaxSteps and
// MaxErrors bound τ²-bench's loop, not this one: upstream's is 30 agent
// steps and no error limit.
func Loop(ctx context.Context, dom envs.Domain, env envs.Env, agent orchestrator.Agent, user orchestrator.User, cfg orchestrator.Config) orchestrator.Outcome {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	stamp := func(m *message.Message) {
		if m.Timestamp == "" {
			m.Timestamp = now().UTC().Format(time.RFC3339Nano)
		}
	}
	term, _ := dom.(envs.Terminator)
	o := orchestrator.Outcome{}
	end := func(t evaluator.Termination, err error) orchestrator.Outcome {
		o.Termination, o.Err = t, err
		return o
	}
	fail := func(role evaluator.Termination, err error) orchestrator.Outcome {
		return end(orchestrator.FailureTermination(ctx, cfg, role, err), err)
	}
	// env.reset: the user's first message, answering the greeting.
	first, err := user.Next(ctx, []message.Message{{Role: message.Assistant, Content: cfg.Greeting}})
	if err != nil {
		return fail(evaluator.UserError, err)
	}
	first = userMessage(first)
	stamp(&first)
	o.Messages = append(o.Messages, first)
	// Upstream does not look for the stop token in the first message.
	pending := []message.Message{first}
	for o.Steps < MaxSteps {
		if t, err := orchestrator.Interrupted(ctx, cfg); t != "" {
			return end(t, err)
		}
		msg, err := agent.Next(ctx, pending)
		if err != nil {
			return fail(evaluator.AgentError, err)
		}
		o.Steps++
		msg.Role = message.Assistant
		stamp(&msg)
		if len(msg.ToolCalls) > 1 {
			msg.ToolCalls = msg.ToolCalls[:1] // AgentGenerator did it for the agent's own history
		}
		for i := range msg.ToolCalls {
			msg.ToolCalls[i].Requestor = message.ByAssistant
		}
		o.Messages = append(o.Messages, msg)
		if !msg.IsToolCall() {
			// respond: the content goes to the user as it is.
			reply, err := user.Next(ctx, []message.Message{msg})
			if err != nil {
				return fail(evaluator.UserError, err)
			}
			reply = userMessage(reply)
			stamp(&reply)
			o.Messages = append(o.Messages, reply)
			if strings.Contains(reply.Content, StopToken) {
				return end(evaluator.UserStop, nil)
			}
			pending = []message.Message{reply}
			continue
		}
		tc := msg.ToolCalls[0]
		res := envs.Respond(ctx, env, tc)
		res.Name = tc.Name
		stamp(&res)
		if res.Error {
			o.NumErrors++
		}
		o.Messages = append(o.Messages, res)
		if term != nil && term.Terminates(tc.Name) {
			return end(evaluator.AgentStop, nil)
		}
		pending = []message.Message{res}
	}
	return end(evaluator.MaxSteps, nil)
}

// userMessage is a user simulator's reply as the trajectory keeps it: the
// τ-Trait user has no tools.
func userMessage(m message.Message) message.Message {
	m.Role = message.User
	m.ToolCalls = nil
	return m
}

var _ orchestrator.Loop = Loop
