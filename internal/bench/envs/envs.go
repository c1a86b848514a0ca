// Package envs declares what a domain provides to the rest of ledgerbench.
// Each domain lives in its own subpackage (internal/bench/envs/airline, internal/bench/envs/retail,
// internal/bench/envs/telecom, internal/bench/envs/telehealth) and knows nothing about agents; the
// orchestrator, the evaluator and the agents see domains only through these
// interfaces.
package envs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Domain is a loaded domain: immutable data shared by all its simulations.
type Domain interface {
	// Name is the domain's name as the CLI knows it (e.g. "airline").
	Name() string
	// Policy is the agent's policy text as upstream composes it.
	Policy() string
	// AgentTools lists the agent's tools in upstream order.
	AgentTools() []tool.Info
	// UserTools lists the simulated user's tools (nil when the user has none).
	UserTools() []tool.Info
	// Tasks returns the domain's task set.
	Tasks() *tasks.Set
	// NewEnv returns a fresh environment state for one simulation.
	NewEnv() Env
}

// Env is the mutable state of one simulation.
type Env interface {
	// Call runs a tool for a requestor, without the post-call sync
	// (upstream's make_tool_call). The error is the exception text.
	Call(ctx context.Context, requestor message.Requestor, name string, args json.RawMessage) (any, error)
	// RunFunction calls an environment function by name (tools and non-tool
	// functions such as initialisation actions and assertions) on one side,
	// then syncs (upstream's run_env_function_call).
	RunFunction(ctx context.Context, side message.Requestor, name string, args json.RawMessage) (any, error)
	// Sync mirrors shared state between the two sides (telecom); a no-op
	// elsewhere.
	Sync()
	// SameDB compares this state's databases with another state of the same
	// domain: the agent-side database and the user-side one (true when the
	// domain has none).
	SameDB(other Env) (agent, user bool)
	// DumpDB returns the databases as values that encode to upstream's JSON
	// (user is nil when the domain has no user database).
	DumpDB() (agent, user any)
}

// Terminator is implemented by domains whose tools can end an episode
// (τ-Trait's transfer_to_human_support).
type Terminator interface {
	Terminates(toolName string) bool
}

// ReplyOutputs is implemented by domains whose communicate check reads only
// the agent's replies to the user: τ-bench v1's outputs check looks at its
// respond actions, and a message that calls a tool is a tool action there,
// whatever text it carries.
type ReplyOutputs interface {
	OutputsInReplies()
}

// Describer is implemented by domains that read their tools' model-facing
// descriptions from upstream's source on first use instead of at load (a
// job that only replays tools, such as verify, never needs them). Describe
// reads them once and returns the error naming the source file and symbol
// when it is bad; AgentTools and UserTools need them and panic with that
// error, so whoever shows tools to a model calls Describe (envs.Describe)
// first.
type Describer interface {
	Describe() error
}

// Describe loads a domain's tool descriptions when it reads them lazily
// (Describer); other domains have them from load.
func Describe(d Domain) error {
	if x, ok := d.(Describer); ok {
		return x.Describe()
	}
	return nil
}

// Preparer is implemented by domains whose tools need resources a job
// must have before it starts (banking_knowledge's retrieval pipelines:
// embeddings endpoints and their document vectors, sandboxes). Prepare
// builds them and returns the error naming what is missing; a job that
// shows tools to a model calls it (envs.Prepare) after Describe, before the
// first simulation. Whoever prepared a domain closes it (envs.Close) when
// the job ends.
type Preparer interface {
	Prepare(ctx context.Context) error
}

// Prepare builds a domain's job resources when it has any (Preparer).
func Prepare(ctx context.Context, d Domain) error {
	if x, ok := d.(Preparer); ok {
		return x.Prepare(ctx)
	}
	return nil
}

// Close releases what a domain or an environment holds beyond memory (a
// prepared domain's sandboxes, a simulation's private sandbox copy) when
// it implements io.Closer; the orchestrator closes each simulation's
// environment when the simulation ends.
func Close(x any) error {
	if c, ok := x.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// ToolKinder is implemented by domains that find a tool's kind without
// their tool descriptions (see Describer).
type ToolKinder interface {
	ToolKind(requestor message.Requestor, name string) (tool.Kind, bool)
}

// ToolKind finds a tool's kind on the side that would run it, without
// needing the tools' descriptions where the domain can.
func ToolKind(d Domain, requestor message.Requestor, name string) (tool.Kind, bool) {
	if k, ok := d.(ToolKinder); ok {
		return k.ToolKind(requestor, name)
	}
	ti, ok := ToolInfo(d, requestor, name)
	return ti.Kind, ok
}

// ToolInfo finds a tool's info on the side that would run it.
func ToolInfo(d Domain, requestor message.Requestor, name string) (tool.Info, bool) {
	list := d.AgentTools()
	if requestor == message.ByUser {
		list = d.UserTools()
	}
	for _, t := range list {
		if t.Name == name {
			return t, true
		}
	}
	return tool.Info{}, false
}

// CheckTool returns an error naming the tool and the requestor's tools when
// the requestor ("assistant" or "user") has no tool of that name.
func CheckTool(d Domain, requestor message.Requestor, name string) error {
	var list []tool.Info
	switch requestor {
	case message.ByAssistant:
		list = d.AgentTools()
	case message.ByUser:
		list = d.UserTools()
	default:
		return fmt.Errorf("tool %q: requestor %q: want assistant or user", name, requestor)
	}
	names := make([]string, len(list))
	for i, t := range list {
		if t.Name == name {
			return nil
		}
		names[i] = t.Name
	}
	if len(names) == 0 {
		return fmt.Errorf("unknown tool %q: %s has no %s tools", name, d.Name(), requestor)
	}
	return fmt.Errorf("unknown tool %q for the %s (%s tools: %s)", name, requestor, d.Name(), strings.Join(names, ", "))
}

// Respond executes a tool call and returns the tool message (upstream's
// get_response): content is the formatted result, or "Error: " plus the
// exception text with Error set; the environment syncs after a successful
// call.
func Respond(ctx context.Context, e Env, call message.ToolCall) message.Message {
	msg, _ := respond(ctx, e, call)
	return msg
}

// RespondErr is Respond for a simulation loop: a call whose error is an
// infrastructure failure (a tool's endpoint or sandbox failed: the error
// wraps fault.ErrInfrastructure) or the context's end is returned as that
// error, with no tool message, so the simulation ends as an
// infrastructure error instead of showing the model a failure that is not
// its own.
func RespondErr(ctx context.Context, e Env, call message.ToolCall) (message.Message, error) {
	return respond(ctx, e, call)
}

func respond(ctx context.Context, e Env, call message.ToolCall) (message.Message, error) {
	req := call.Requestor
	if req == "" {
		req = message.ByAssistant
	}
	msg := message.Message{Role: message.Tool, ToolCallID: call.ID, Requestor: req}
	res, err := e.Call(ctx, req, call.Name, call.Arguments)
	if err != nil {
		var infra error
		if errors.Is(err, fault.ErrInfrastructure) || ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			infra = err
		}
		msg.Content = "Error: " + err.Error()
		msg.Error = true
		return msg, infra
	}
	msg.Content = tool.Content(res)
	e.Sync()
	return msg, nil
}

// Initializer is implemented by the states of domains whose tasks can patch
// the databases before the conversation (a task's initialization_data:
// agent_data and user_data, each upstream's update_db).
type Initializer interface {
	Initialize(agentData, userData json.RawMessage) error
}

// TaskEnver is implemented by domains whose fresh state depends on the task
// (banking_knowledge logs the discoverable reads its gold trajectory
// needs); NewTaskEnv replaces NewEnv wherever a task is known.
type TaskEnver interface {
	NewTaskEnv(task *tasks.Task) Env
}

// NewTaskEnv returns a fresh state for a task.
func NewTaskEnv(d Domain, task *tasks.Task) Env {
	if x, ok := d.(TaskEnver); ok && task != nil {
		return x.NewTaskEnv(task)
	}
	return d.NewEnv()
}

// TaskPolicier is implemented by domains whose agent policy can depend on
// the task (banking_knowledge's golden_retrieval inlines the task's
// documents); PolicyPerTask says whether it does for this domain value.
type TaskPolicier interface {
	TaskPolicy(task *tasks.Task) string
	PolicyPerTask() bool
}

// TaskPolicy is the policy the agent gets for a task.
func TaskPolicy(d Domain, task *tasks.Task) string {
	if x, ok := d.(TaskPolicier); ok && x.PolicyPerTask() {
		return x.TaskPolicy(task)
	}
	return d.Policy()
}

// PolicyPerTask reports whether the agent's policy depends on the task.
func PolicyPerTask(d Domain) bool {
	x, ok := d.(TaskPolicier)
	return ok && x.PolicyPerTask()
}

// StateMutator is implemented by domains where a tool's kind does not say
// whether it changes state (upstream's mutates_state: generic tools that
// mutate, hidden tools called by name).
type StateMutator interface {
	MutatesState(requestor message.Requestor, name string) (mutates, ok bool)
}

// Mutates reports whether a tool changes state (upstream's
// tool_mutates_state, which decides what an evaluation replays): the
// domain's answer, else whether it is a write tool.
func Mutates(d Domain, requestor message.Requestor, name string) (mutates, ok bool) {
	if x, ok := d.(StateMutator); ok {
		return x.MutatesState(requestor, name)
	}
	k, ok := ToolKind(d, requestor, name)
	return k == tool.Write, ok
}
