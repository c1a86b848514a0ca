package envs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Single is the shared part of a single-control domain: one toolkit, the
// agent's, over simulation states of type E, and no user tools (τ²-bench's
// airline and retail, τ-Trait's telehealth). A domain embeds it for the
// Domain methods every such domain has the same (Name, Policy, AgentTools,
// UserTools, Tasks) and its Env calls CallTool and RunToolFunction, which
// follow τ²-bench's Environment (src/tau2/environment/environment.py) with
// no user toolkit.
type Single[E any] struct {
	name   string
	policy string
	tasks  *tasks.Set
	tools  *tool.Set[E]
	infos  []tool.Info
}

// NewSingle builds the shared part of a single-control domain. ts may be nil
// (a domain built for tests without tasks).
func NewSingle[E any](name, policy string, ts *tasks.Set, tools *tool.Set[E]) Single[E] {
	return Single[E]{name: name, policy: policy, tasks: ts, tools: tools, infos: tools.Infos()}
}

// Name is the domain's name (Domain).
func (s *Single[E]) Name() string { return s.name }

// Policy is the agent's policy text (Domain).
func (s *Single[E]) Policy() string { return s.policy }

// AgentTools lists the agent's tools in upstream order (Domain).
func (s *Single[E]) AgentTools() []tool.Info { return s.infos }

// UserTools is nil: the simulated user has no tools (Domain).
func (s *Single[E]) UserTools() []tool.Info { return nil }

// Tasks returns the task set (Domain; nil for a domain built without tasks).
func (s *Single[E]) Tasks() *tasks.Set { return s.tasks }

// Toolset is the agent's toolkit.
func (s *Single[E]) Toolset() *tool.Set[E] { return s.tools }

// SetToolset replaces the toolkit, e.g. with one that shows upstream's
// descriptions (tool.Set.Described), while the domain is being loaded.
func (s *Single[E]) SetToolset(tools *tool.Set[E]) {
	s.tools, s.infos = tools, tools.Infos()
}

// ErrNoUserTools is what upstream's make_tool_call raises for a user call
// in a domain without user tools (its use_user_tool; the text is behaviour).
var ErrNoUserTools = errors.New("User tools not available")

// CallTool runs a tool for a requestor on state e, without syncing
// (upstream's make_tool_call): the assistant's calls go to the toolkit, the
// user's fail with ErrNoUserTools, and any other requestor (the empty one
// included: upstream's requestor has no empty value) is invalid.
func (s *Single[E]) CallTool(ctx context.Context, e E, requestor message.Requestor, name string, args json.RawMessage) (any, error) {
	switch requestor {
	case message.ByAssistant:
		return s.tools.Call(ctx, e, name, args)
	case message.ByUser:
		return nil, ErrNoUserTools
	}
	return nil, fmt.Errorf("Invalid requestor: %s", requestor)
}

// RunToolFunction calls a toolkit function by name on one side (upstream's
// run_env_function_call, which looks the name up with getattr on the side's
// toolkit and then syncs, a no-op with a single toolkit). Only the
// assistant side has a toolkit; every function a task of these domains can
// name is a tool. The AttributeError names the toolkit's Python class
// (tool.Set.Class).
func (s *Single[E]) RunToolFunction(ctx context.Context, e E, side message.Requestor, name string, args json.RawMessage) (any, error) {
	switch side {
	case message.ByAssistant:
		if _, ok := s.tools.Lookup(name); !ok {
			return nil, fmt.Errorf("'%s' object has no attribute '%s'", s.tools.Class(), name)
		}
		return s.tools.Call(ctx, e, name, args)
	case message.ByUser:
		return nil, fmt.Errorf("'NoneType' object has no attribute '%s'", name)
	}
	return nil, fmt.Errorf("Invalid environment type: %s", side)
}
