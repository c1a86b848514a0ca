package tauv1

import (
	"context"
	"fmt"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pycalc"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The calculate and think tools are the same file in τ-Trait's telehealth,
// telecom and retail (tools/calculate.py, tools/think.py): one port serves
// every domain's state type.

// CalculateArgs are calculate's arguments.
type CalculateArgs struct {
	Expression tool.StrValue `json:"expression"`
}

// ThinkArgs are think's arguments.
type ThinkArgs struct {
	Thought tool.StrValue `json:"thought"`
}

// Calculate is calculate.py's invoke: the character check, then
// str(round(float(eval(expression)), 2)) with every exception turned into
// "Error: <text>" (pycalc.Tau1). A non-str expression fails where Python's
// code does: iterating it for the character check, or eval refusing it.
func Calculate[S any](_ context.Context, _ S, a CalculateArgs) (any, error) {
	switch x := a.Expression.V.(type) {
	case string:
		return pycalc.Tau1(x), nil
	case []any, *pyjson.Dict:
		// Iterating a list checks each item as a substring of the allowed
		// characters; eval then refuses the list (inside the try).
		it, _ := pyjson.Iterate(x)
		for _, item := range it {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("'in <string>' requires string as left operand, not %s", pyjson.TypeName(item))
			}
			if !strings.Contains(pycalc.Chars, s) {
				return "Error: invalid characters in expression", nil
			}
		}
		return "Error: eval() arg 1 must be a string, bytes or code object", nil
	}
	return nil, fmt.Errorf("'%s' object is not iterable", pyjson.TypeName(a.Expression.V))
}

// Think is think.py's invoke: nothing happens, the answer is "".
func Think[S any](context.Context, S, ThinkArgs) (any, error) { return "", nil }
