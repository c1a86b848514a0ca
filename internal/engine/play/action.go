package play

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
)

// A line the person types is one action, read as upstream's manual mode
// reads it (parse_action_string in src/tau2/utils/tools.py):
//
//   - a tool call as JSON, {"name": "get_user_details", "arguments": {...}};
//   - a tool call in functional form, get_user_details(user_id='x', n=1),
//     its keyword arguments Python literals (upstream's is_functional_tool_call
//     pattern: a word, then parentheses closing the line);
//   - a tool name followed by its arguments as a JSON object,
//     get_user_details {"user_id": "x"} (ours: JSON arguments as a model
//     sends them);
//   - anything else is text for the other side. A line starting with a
//     backslash is text whatever follows it (the backslash dropped).
//
// A functional call that does not parse is refused with a one-line reason,
// as upstream's manual mode refuses it; so is one naming no tool of the side
// (upstream sends it and the environment answers with an error), unless it
// reads as prose (callLike): a mistyped call must not reach the other side
// as a message (the offline user ends the conversation at any text).

var (
	functional = regexp.MustCompile(`^(\w+)\s*\((.*)\)$`)
	nameJSON   = regexp.MustCompile(`^(\w+)\s+(\{.*\})$`)
)

// action is one parsed line: text, or one tool call.
type action struct {
	text string
	call *message.ToolCall
}

// parseAction reads line as an action for a side whose tools are named by
// known. The call's ID is left for the caller.
func parseAction(line string, known func(string) bool) (action, error) {
	s := strings.TrimSpace(line)
	if s == "" {
		return action{}, errors.New("empty line")
	}
	if rest, ok := strings.CutPrefix(s, `\`); ok {
		if strings.TrimSpace(rest) == "" {
			return action{}, errors.New("nothing after the backslash")
		}
		return action{text: rest}, nil
	}
	if strings.HasPrefix(s, "{") {
		var tc struct {
			Name      *string         `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal([]byte(s), &tc) == nil && tc.Name != nil {
			args, err := jsonObject(tc.Arguments, true)
			if err != nil {
				return action{}, fmt.Errorf("tool call %s: %w", *tc.Name, err)
			}
			return action{call: &message.ToolCall{Name: *tc.Name, Arguments: args}}, nil
		}
		return action{text: s}, nil
	}
	if m := nameJSON.FindStringSubmatch(s); m != nil && known(m[1]) {
		args, err := jsonObject(json.RawMessage(m[2]), false)
		if err != nil {
			return action{}, fmt.Errorf("tool call %s: %w", m[1], err)
		}
		return action{call: &message.ToolCall{Name: m[1], Arguments: args}}, nil
	}
	if m := functional.FindStringSubmatch(s); m != nil && (known(m[1]) || callLike(s, m[1])) {
		if !known(m[1]) {
			return action{}, fmt.Errorf("no tool %q (type tools to list them; start the line with \\ to send it as text)", m[1])
		}
		args, err := keywordArgs(m[2])
		if err != nil {
			return action{}, fmt.Errorf("tool call %s: %w (example: %s(name='value', count=2))", m[1], err, m[1])
		}
		return action{call: &message.ToolCall{Name: m[1], Arguments: args}}, nil
	}
	return action{text: s}, nil
}

// callLike reports whether a line in the functional pattern whose name is
// no tool reads as a mistyped call (refused) rather than prose (sent): the
// name touches its parenthesis or is snake_case. "Sure (one moment)" is
// prose; upstream refuses it too (its arguments do not parse).
func callLike(line, name string) bool {
	return strings.Contains(name, "_") || strings.HasPrefix(line[len(name):], "(")
}

// jsonObject checks that raw is a JSON object and returns it compact in
// json.dumps' spelling; absent (when allowed) is {}.
func jsonObject(raw json.RawMessage, absentOK bool) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		if absentOK {
			return json.RawMessage("{}"), nil
		}
		return nil, errors.New("no arguments")
	}
	v, err := pyjson.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("arguments are not JSON: %w", err)
	}
	if _, ok := v.(*pyjson.Dict); !ok {
		return nil, errors.New("arguments must be a JSON object")
	}
	b, err := pyjson.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// keywordArgs parses the inside of a functional call's parentheses:
// keyword arguments whose values are Python literals (upstream evaluates
// them with ast); positional arguments are refused (upstream drops them).
func keywordArgs(inside string) (json.RawMessage, error) {
	if strings.TrimSpace(inside) == "" {
		return json.RawMessage("{}"), nil
	}
	v, err := pyliteral.ParseExpr([]byte("f(" + inside + ")"))
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	c, ok := v.(*pyliteral.Call)
	if !ok {
		return nil, errors.New("arguments: not a call")
	}
	if len(c.Args) > 0 {
		return nil, errors.New("arguments are given by name")
	}
	if err := noCalls(c.Kwargs); err != nil {
		return nil, err
	}
	b, err := pyjson.Marshal(c.Kwargs)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return b, nil
}

// noCalls refuses a call nested in an argument value (not a literal).
func noCalls(v any) error {
	switch x := v.(type) {
	case *pyliteral.Call:
		return fmt.Errorf("argument value %s(...) is a call, not a literal", x.Func)
	case *pyjson.Dict:
		for _, e := range x.Values {
			if err := noCalls(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := noCalls(e); err != nil {
				return err
			}
		}
	case pyliteral.Tuple:
		for _, e := range x {
			if err := noCalls(e); err != nil {
				return err
			}
		}
	}
	return nil
}
