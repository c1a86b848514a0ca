package envs

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

// SoloDomain is a domain in τ²-bench's solo mode (upstream's
// get_environment(solo_mode=True)): there is no user; the agent holds the
// user's tools as well as its own and works from the task's ticket.
//
//   - Policy is the domain's solo policy.
//   - AgentTools are the agent's tools followed by every user tool, in
//     upstream order (build_agent's tools + user_tools).
//   - UserTools still lists the user tools (gold actions keep their
//     requestor, and their kinds are looked up there).
//   - NewEnv returns a solo environment (SoloEnv).
//
// Base returns the same domain in normal mode: the gold environment is
// built from it, as upstream builds its gold environment without solo_mode.
type SoloDomain interface {
	Domain
	Base() Domain
}

// IsSolo reports whether d is a domain in solo mode.
func IsSolo(d Domain) bool {
	_, ok := d.(SoloDomain)
	return ok
}

// Base returns the normal-mode domain of a solo domain, or d itself.
func Base(d Domain) Domain {
	if s, ok := d.(SoloDomain); ok {
		return s.Base()
	}
	return d
}

// ErrUserToolInSolo is upstream's error for a user-requested tool call in
// solo mode (make_tool_call raises it; the text is behaviour).
var ErrUserToolInSolo = errors.New("User tool calls are not allowed in solo mode")

// SoloEnv wraps a normal environment in upstream's solo routing
// (Environment.make_tool_call with solo_mode set): an assistant call to a
// user tool runs the user tool, any other assistant call runs the agent
// tool, and user-requested calls are refused. Environment functions
// (RunFunction: initialisation actions, assertions) are not affected.
func SoloEnv(e Env, userTools []tool.Info) Env {
	names := make(map[string]bool, len(userTools))
	for _, t := range userTools {
		names[t.Name] = true
	}
	return &soloEnv{Env: e, user: names}
}

type soloEnv struct {
	Env
	user map[string]bool
}

func (s *soloEnv) Call(ctx context.Context, requestor message.Requestor, name string, args json.RawMessage) (any, error) {
	switch requestor {
	case message.ByUser:
		return nil, ErrUserToolInSolo
	case message.ByAssistant:
		if s.user[name] {
			return s.Env.Call(ctx, message.ByUser, name, args)
		}
	}
	return s.Env.Call(ctx, requestor, name, args)
}

// SameDB compares the wrapped states.
func (s *soloEnv) SameDB(other Env) (agent, user bool) {
	if o, ok := other.(*soloEnv); ok {
		other = o.Env
	}
	return s.Env.SameDB(other)
}

// Unwrap returns the wrapped environment.
func (s *soloEnv) Unwrap() Env { return s.Env }
