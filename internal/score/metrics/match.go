package metrics

import (
	"encoding/json"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// call is a tool call of a trajectory with what happened to it.
type call struct {
	message.ToolCall
	args *pyjson.Dict
	// executed is true when the call got a tool message without an error
	// (or when no tool message for it is in the trajectory).
	executed bool
}

// calls lists every tool call of assistant and user messages in order, as
// the evaluator's action check sees them; each call's tool message is the
// one at its position after its own message (message.Exchanges), so reused
// ids never lend a call another call's outcome.
func calls(traj []message.Message) []call {
	exs := message.Exchanges(traj)
	out := make([]call, 0, len(exs))
	for _, ex := range exs {
		executed := !ex.Answered() || !traj[ex.Result].Error
		out = append(out, call{ToolCall: ex.Call, args: argsDict(ex.Call.Arguments), executed: executed})
	}
	return out
}

func argsDict(raw json.RawMessage) *pyjson.Dict {
	v, err := pyjson.Decode(raw)
	if err != nil {
		return &pyjson.Dict{}
	}
	if d, ok := v.(*pyjson.Dict); ok {
		return d
	}
	return &pyjson.Dict{}
}

// matches is τ²-bench's compare_with_tool_call: names equal, and the
// arguments equal over compare_args, or over the predicted call's own keys
// when compare_args is unset (an empty list matches on the name alone).
func matches(c call, a tasks.Action) bool {
	if c.Name != a.Name {
		return false
	}
	keys := c.args.Keys
	if a.CompareArgs != nil {
		keys = *a.CompareArgs
	}
	if len(keys) == 0 {
		return true
	}
	gold := argsDict(a.Arguments)
	for _, k := range keys {
		cv, cok := c.args.Get(k)
		gv, gok := gold.Get(k)
		if cok != gok || (cok && !pyjson.Equal(cv, gv)) {
			return false
		}
	}
	return true
}

// matchedActions reports for each gold action whether some call matches it.
func matchedActions(cs []call, gold []GoldAction) []bool {
	out := make([]bool, len(gold))
	for i, a := range gold {
		for _, c := range cs {
			if matches(c, a.Action) {
				out[i] = true
				break
			}
		}
	}
	return out
}
