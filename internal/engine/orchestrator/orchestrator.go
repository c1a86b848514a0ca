// Package orchestrator runs one simulation: τ²-bench's half-duplex loop
// between an agent, a simulated user and the environment, with its stop
// rules, followed by evaluation. It knows roles, not models: agents and user
// simulators are the interfaces declared here.
package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Agent produces the agent side of one conversation. Next receives the
// messages addressed to the agent since its last turn (a user message, or the
// results of its tool calls, in order) and returns its next message: text for
// the user, or tool calls. Usage and Cost on the returned message account for
// the model calls made. A returned error ends the simulation: wrap
// fault.ErrInfrastructure for API failures.
type Agent interface {
	Next(ctx context.Context, incoming []message.Message) (message.Message, error)
}

// User is the simulated user of one conversation. Next receives the agent's
// text message (or the results of the user's own tool calls) and returns the
// user's next message.
type User interface {
	Next(ctx context.Context, incoming []message.Message) (message.Message, error)
}

// Stopper lets an agent end the conversation (solo-style agents).
type Stopper interface {
	IsStop(m message.Message) bool
}

// Reporter lets an agent or user add its own data to the record.
type Reporter interface {
	Report() any
}

// callCounter is implemented by participants that count their model calls
// (helper calls included).
type callCounter interface {
	ModelCalls() int
}

// Stop tokens of the user simulator.
func StopTokens() []string { return []string{"###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"} }

// IsUserStop reports whether a user message ends the conversation.
func IsUserStop(m message.Message) bool {
	if m.IsToolCall() {
		return false
	}
	for _, t := range StopTokens() {
		if strings.Contains(m.Content, t) {
			return true
		}
	}
	return false
}

// Config bounds a simulation.
type Config struct {
	MaxSteps  int           // default 200
	MaxErrors int           // default 10 (total tool errors)
	Timeout   time.Duration // wall-clock limit; 0 = none
	// Judge evaluates NL assertions; nil leaves them not evaluated.
	Judge evaluator.Judge
	// Now returns the time (for tests); nil = time.Now.
	Now func() time.Time
	// Greeting is the agent's fixed first message, sent to the user and
	// kept as the first message of the agent's history (upstream's
	// DEFAULT_FIRST_AGENT_MESSAGE, baseline.LoadPrompt). Empty:
	// DefaultGreeting (tests).
	Greeting string
	// Loop plays the conversation; nil is τ²-bench's half-duplex loop.
	// Another benchmark's loop (τ-Trait's, package tautrait) plugs in here
	// and shares the record keeping and evaluation of Run.
	Loop Loop
}

// Loop plays one conversation in env and reports how it ended. cfg has its
// defaults filled in.
type Loop func(ctx context.Context, dom envs.Domain, env envs.Env, agent Agent, user User, cfg Config) Outcome

// Outcome is how a conversation ended: the termination reason, the
// trajectory, the step and tool-error counts, and the error that ended it
// abnormally (agent, user or infrastructure).
type Outcome struct {
	Termination evaluator.Termination
	Messages    []message.Message
	Steps       int
	NumErrors   int
	Err         error
}

func (c Config) withDefaults() Config {
	if c.MaxSteps <= 0 {
		c.MaxSteps = 200
	}
	if c.MaxErrors <= 0 {
		c.MaxErrors = 10
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Greeting == "" {
		c.Greeting = DefaultGreeting
	}
	return c
}

// DefaultGreeting stands in for the agent's first message when
// Config.Greeting is empty (tests). Runs use upstream's, which
// baseline.LoadPrompt reads from the pulled orchestrator.py.
const DefaultGreeting = "Hello, what do you need?"

type role int

const (
	toAgent role = iota
	toUser
	toEnv
)

// Run plays one simulation of task and evaluates it. The returned record is
// complete even when the simulation ended early; the error is non-nil only
// when evaluation itself failed for a reason outside the simulation.
func Run(ctx context.Context, dom envs.Domain, task *tasks.Task, agent Agent, user User, cfg Config) (results.Record, error) {
	cfg = cfg.withDefaults()
	start := cfg.Now()
	rec := results.Record{TaskID: task.ID, Domain: dom.Name(), StartTime: start.UTC().Format(time.RFC3339Nano)}
	// Evaluation (the NL judge) is bound by the run's context only: a
	// conversation that ended within its wall-clock limit is judged however
	// long judging takes, but Ctrl-C and the end of --grace stop the judge
	// too (the record then waits to be judged again).
	run := ctx
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	env, err := evaluator.NewInitializedEnv(ctx, dom, task)
	if err != nil {
		return rec, fmt.Errorf("initial state: %w", err)
	}
	play := cfg.Loop
	if play == nil {
		play = loop
	}
	o := play(ctx, dom, env, agent, user, cfg)
	term, traj := o.Termination, o.Messages
	rec.Messages = traj
	rec.Steps, rec.NumErrors = o.Steps, o.NumErrors
	rec.TerminationReason = term
	if o.Err != nil {
		rec.Error = o.Err.Error()
		if term == evaluator.InfrastructureError {
			rec.Cause = o.Err
		}
	}
	for i := range rec.Messages {
		m := &rec.Messages[i]
		m.TurnIdx = i
		if m.Usage == nil {
			continue
		}
		switch m.Role {
		case message.Assistant:
			rec.AgentUsage = rec.AgentUsage.Add(*m.Usage)
			rec.AgentCost += m.Cost
		case message.User:
			rec.UserUsage = rec.UserUsage.Add(*m.Usage)
			rec.UserCost += m.Cost
		}
	}
	if c, ok := agent.(callCounter); ok {
		rec.AgentCalls = c.ModelCalls()
	}
	if c, ok := user.(callCounter); ok {
		rec.UserCalls = c.ModelCalls()
	}
	if r, ok := agent.(Reporter); ok {
		rec.AgentInfo = marshalReport(r.Report())
	}
	if r, ok := user.(Reporter); ok {
		rec.UserInfo = marshalReport(r.Report())
	}
	if term != evaluator.InfrastructureError {
		info, err := evaluator.Evaluate(run, dom, task, traj, term, evaluator.Options{Judge: cfg.Judge})
		var judgeErr *evaluator.JudgeError
		if err != nil {
			if errors.As(err, &judgeErr) {
				// Only judging failed: record what the judge cost and
				// leave the conversation to be judged again.
				rec.JudgePending = term
				rec.TerminationReason = evaluator.InfrastructureError
				rec.Error = err.Error()
				rec.Cause = err
				rec.JudgeUsage = judgeErr.Usage
				rec.JudgeCost = judgeErr.Cost
			} else if errors.Is(err, fault.ErrInfrastructure) {
				rec.TerminationReason = evaluator.InfrastructureError
				rec.Error = err.Error()
				rec.Cause = err
			} else {
				return rec, fmt.Errorf("evaluate: %w", err)
			}
		} else {
			rec.RewardInfo = &info
			if info.JudgeUsage != nil {
				rec.JudgeUsage = *info.JudgeUsage
				rec.JudgeCost = info.JudgeCost
			}
		}
	}
	end := cfg.Now()
	rec.EndTime = end.UTC().Format(time.RFC3339Nano)
	rec.Duration = end.Sub(start).Seconds()
	return rec, nil
}

func marshalReport(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"report_error": err.Error()})
	}
	return b
}

// sim is the state of one conversation while a loop plays it: the outcome
// so far (trajectory, step and tool-error counts) and the bounds it is
// played under.
type sim struct {
	Outcome
	cfg Config
}

// end is the outcome of a conversation that ended with t (and err, when it
// ended abnormally).
func (s *sim) end(t evaluator.Termination, err error) Outcome {
	s.Termination, s.Err = t, err
	return s.Outcome
}

// fail ends the conversation on the error a participant (role: agent_error
// or user_error) returned; see FailureTermination.
func (s *sim) fail(ctx context.Context, role evaluator.Termination, err error) Outcome {
	return s.end(FailureTermination(ctx, s.cfg, role, err), err)
}

// limited is upstream's _check_termination on the counts so far (see
// limited).
func (s *sim) limited(term evaluator.Termination) evaluator.Termination {
	return limited(term, s.Steps, s.NumErrors, s.cfg)
}

// add appends msgs to the trajectory.
func (s *sim) add(msgs ...message.Message) { s.Messages = append(s.Messages, msgs...) }

// respond runs the calls in env (respond) and counts the failed ones; an
// infrastructure failure of a call is returned (the calls before it keep
// their results).
func (s *sim) respond(ctx context.Context, env envs.Env, calls []message.ToolCall) ([]message.Message, error) {
	results, failed, err := respond(ctx, env, calls, s.cfg)
	s.NumErrors += failed
	s.add(results...)
	return results, err
}

// speaker is one side of the half-duplex conversation as the loop drives
// it: the user or the agent.
type speaker struct {
	name      string // in error texts
	next      func(context.Context, []message.Message) (message.Message, error)
	role      message.Role
	requestor message.Requestor     // of its tool calls
	failed    evaluator.Termination // when it errs or says nothing
	stopped   evaluator.Termination // when it ends the conversation
	isStop    func(message.Message) bool
}

// turn has sp answer pending and adds its message to the trajectory. It
// reports whether the message ended the conversation (s.Outcome then says
// how).
func (s *sim) turn(ctx context.Context, sp speaker, pending []message.Message) (message.Message, bool) {
	msg, err := sp.next(ctx, pending)
	if err != nil {
		s.fail(ctx, sp.failed, err)
		return msg, true
	}
	msg.Role = sp.role
	stamp(&msg, s.cfg)
	if !msg.HasText() && !msg.IsToolCall() {
		// Kept in the trajectory, as upstream's communication check sees
		// the message it ends the simulation for.
		s.add(msg)
		s.end(sp.failed, errors.New(sp.name+" message has neither text nor tool calls"))
		return msg, true
	}
	if sp.isStop(msg) {
		s.add(msg)
		s.Steps++
		s.end(s.limited(sp.stopped), nil)
		return msg, true
	}
	for i := range msg.ToolCalls {
		msg.ToolCalls[i].Requestor = sp.requestor
	}
	s.add(msg)
	return msg, false
}

// loop is the half-duplex conversation (a Loop).
func loop(ctx context.Context, dom envs.Domain, env envs.Env, agent Agent, user User, cfg Config) Outcome {
	if envs.IsSolo(dom) {
		return soloLoop(ctx, env, agent, cfg) // solo.go
	}
	s := &sim{cfg: cfg}
	s.add(message.Message{Role: message.Assistant, Content: cfg.Greeting, Timestamp: cfg.Now().UTC().Format(time.RFC3339Nano)})
	pending := []message.Message{s.Messages[0]} // messages addressed to the next role
	// The agent's history starts with its greeting (upstream's
	// get_init_state(message_history=[first_message])): it is handed to
	// the agent with what it receives first.
	greet := []message.Message{s.Messages[0]}
	agentStop := func(message.Message) bool { return false }
	if st, ok := agent.(Stopper); ok {
		agentStop = st.IsStop
	}
	speakers := [...]speaker{
		toUser: {name: "user", next: user.Next, role: message.User, requestor: message.ByUser,
			failed: evaluator.UserError, stopped: evaluator.UserStop, isStop: IsUserStop},
		toAgent: {name: "agent", next: agent.Next, role: message.Assistant, requestor: message.ByAssistant,
			failed: evaluator.AgentError, stopped: evaluator.AgentStop, isStop: agentStop},
	}
	to, caller := toUser, toAgent
	term, _ := dom.(envs.Terminator)
	for {
		if t, err := Interrupted(ctx, cfg); t != "" {
			return s.end(t, err)
		}
		switch to {
		case toUser, toAgent:
			if to == toAgent && greet != nil {
				pending = append(greet, pending...)
				greet = nil
			}
			msg, ended := s.turn(ctx, speakers[to], pending)
			if ended {
				return s.Outcome
			}
			pending = []message.Message{msg}
			switch {
			case msg.IsToolCall():
				to, caller = toEnv, to
			case to == toUser:
				to = toAgent
			default:
				to = toUser
			}
		case toEnv:
			calls := pending[0].ToolCalls
			results, err := s.respond(ctx, env, calls)
			if err != nil {
				if t, ierr := Interrupted(ctx, cfg); t != "" {
					return s.end(t, ierr)
				}
				return s.end(evaluator.InfrastructureError, fault.Infrastructure(err))
			}
			stop := false
			for i, tc := range calls {
				if term != nil && !results[i].Error && term.Terminates(tc.Name) {
					stop = true
				}
			}
			pending = results
			to = caller
			if stop {
				s.Steps++
				return s.end(evaluator.AgentStop, nil)
			}
		}
		s.Steps++
		env.Sync()
		if to != toEnv {
			if t := s.limited(""); t != "" {
				return s.end(t, nil)
			}
		}
	}
}

// limited applies upstream's _check_termination after a step that does not
// wait for the environment: reaching max_steps, then max_errors, replaces
// the termination the step set (so a stop on the last allowed step is
// max_steps, and too_many_errors wins over max_steps, as the later of
// upstream's two assignments). term is returned when neither limit is hit.
func limited(term evaluator.Termination, steps, numErrors int, cfg Config) evaluator.Termination {
	if numErrors >= cfg.MaxErrors {
		return evaluator.TooManyErrors
	}
	if steps >= cfg.MaxSteps {
		return evaluator.MaxSteps
	}
	return term
}

// respond runs the calls in env in order and returns their results
// (stamped) and how many of them failed; it stops at a call that failed
// for the infrastructure (envs.RespondErr) and returns that error.
func respond(ctx context.Context, env envs.Env, calls []message.ToolCall, cfg Config) ([]message.Message, int, error) {
	results := make([]message.Message, 0, len(calls))
	failed := 0
	for _, tc := range calls {
		res, err := envs.RespondErr(ctx, env, tc)
		if err != nil {
			return results, failed, err
		}
		stamp(&res, cfg)
		if res.Error {
			failed++
		}
		results = append(results, res)
	}
	return results, failed, nil
}

// Interrupted is how a loop ends when ctx is done before a turn: timeout
// when the simulation's wall-clock limit (cfg.Timeout) passed, else an
// infrastructure error (wrapping fault.ErrInfrastructure) it returns too. It is
// "" while ctx is live.
func Interrupted(ctx context.Context, cfg Config) (evaluator.Termination, error) {
	err := ctx.Err()
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, context.DeadlineExceeded) && cfg.Timeout > 0:
		return evaluator.Timeout, nil
	}
	return evaluator.InfrastructureError, fault.Infrastructure(err)
}

// FailureTermination classifies the error a participant (role: agent_error
// or user_error) returned: a timeout when the simulation's wall-clock limit
// passed, an infrastructure error for backend and context failures, else
// role.
func FailureTermination(ctx context.Context, cfg Config, role evaluator.Termination, err error) evaluator.Termination {
	if cfg.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return evaluator.Timeout
	}
	if errors.Is(err, fault.ErrInfrastructure) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return evaluator.InfrastructureError
	}
	return role
}

func stamp(m *message.Message, cfg Config) {
	if m.Timestamp == "" {
		m.Timestamp = cfg.Now().UTC().Format(time.RFC3339Nano)
	}
}
