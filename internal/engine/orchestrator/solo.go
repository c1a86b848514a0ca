package orchestrator

import (
	"context"
	"errors"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// DummyUser is the user of a solo simulation (upstream's DummyUser): it
// never speaks. The solo loop does not call it; Next fails if anything does.
type DummyUser struct{}

// ErrDummyUser is returned when a solo simulation's user is asked to speak.
var ErrDummyUser = errors.New("dummy user: a solo simulation has no user turn")

// Next always fails.
func (DummyUser) Next(context.Context, []message.Message) (message.Message, error) {
	return message.Message{}, ErrDummyUser
}

// Report names the implementation (the record's user_info).
func (DummyUser) Report() any {
	return map[string]string{"implementation": results.DummyUserImplementation}
}

// soloLoop is upstream's half-duplex orchestrator with solo_mode set, as its
// initialize and step intend (upstream's run path crashes before the loop at
// the pinned commit, issue #486). There is no greeting and no user:
//
//   - the agent speaks first, with no incoming message (its request is the
//     system message alone);
//   - its tool calls go to the environment (requestor "assistant"; phone
//     tools are routed to the phone by the solo environment) and the results
//     come back to it;
//   - a message that the agent reports as a stop (Stopper: the done tool
//     turned into ###STOP###) ends the simulation with agent_stop; any
//     other message without tool calls ends it with agent_error (there is
//     no user to read it);
//   - after every step that does not wait for the environment, max_steps and
//     too_many_errors are checked, and override the stop reason as
//     upstream's _check_termination does after the final step. The first
//     agent turn is not a step (upstream generates it in initialize).
func soloLoop(ctx context.Context, env envs.Env, agent Agent, cfg Config) Outcome {
	s := &sim{cfg: cfg}
	stopper, ok := agent.(Stopper)
	if !ok {
		return s.end(evaluator.AgentError, errors.New("solo mode needs an agent that can stop (a solo agent)"))
	}
	var incoming []message.Message
	for first := true; ; first = false {
		if t, err := Interrupted(ctx, cfg); t != "" {
			return s.end(t, err)
		}
		msg, err := agent.Next(ctx, incoming)
		if err != nil {
			return s.fail(ctx, evaluator.AgentError, err)
		}
		msg.Role = message.Assistant
		stamp(&msg, cfg)
		if !msg.HasText() && !msg.IsToolCall() {
			return s.end(evaluator.AgentError, errors.New("agent message has neither text nor tool calls"))
		}
		for i := range msg.ToolCalls {
			msg.ToolCalls[i].Requestor = message.ByAssistant
		}
		s.add(msg)
		if !first {
			s.Steps++
			env.Sync()
		}
		if err := s.protocol("agent", msg); err != nil {
			// upstream checks after the step, before its termination
			// check, which skips a step whose message went to the
			// environment: no limit overrides the agent_error.
			return s.end(evaluator.AgentError, err)
		}
		stop := stopper.IsStop(msg)
		switch {
		case stop && first:
			return s.end(evaluator.AgentStop, nil)
		case stop:
			return s.end(s.limited(evaluator.AgentStop), nil)
		case !msg.IsToolCall():
			err := errors.New("solo agent sent a message without tool calls (there is no user to read it)")
			if first {
				return s.end(evaluator.AgentError, err)
			}
			return s.end(s.limited(evaluator.AgentError), err)
		}
		// The environment answers every call, then the agent has the turn.
		if incoming, err = s.respond(ctx, env, msg.ToolCalls); err != nil {
			if t, ierr := Interrupted(ctx, cfg); t != "" {
				return s.end(t, ierr)
			}
			return s.end(evaluator.InfrastructureError, fault.Infrastructure(err))
		}
		s.Steps++
		env.Sync()
		if term := s.limited(""); term != "" {
			return s.end(term, nil)
		}
	}
}
