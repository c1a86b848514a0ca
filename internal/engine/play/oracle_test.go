package play

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
)

// TestActionOracle compares parseAction with upstream's manual mode reading
// the same lines (testdata/action_oracle.py runs upstream's
// parse_functional_tool_call and parse_action_string). Opt in with
//
//	LEDGERBENCH_PLAY_ORACLE="python3 testdata/action_oracle.py" TAU2_SRC=<tau2-bench>/src go test ./internal/engine/play -run Oracle
//
// Every tool name counts as known here (upstream sends any name to the
// environment; refusing an unknown one is ours, tested in TestParseAction).
// Lines marked with a reason are where ours differs on purpose: the test
// checks that they do differ, so the list stays true.
func TestActionOracle(t *testing.T) {
	cmd := os.Getenv("LEDGERBENCH_PLAY_ORACLE")
	if cmd == "" || os.Getenv("TAU2_SRC") == "" {
		t.Skip("set LEDGERBENCH_PLAY_ORACLE (python3 testdata/action_oracle.py) and TAU2_SRC (a tau2-bench checkout's src) to compare with upstream's manual mode")
	}
	cases := []struct{ line, differs string }{
		{line: "Hello, how can I help you today?"},
		{line: "find_user_id_by_name_zip(first_name='Yusuf', last_name=\"Rossi\", zip='19122')"},
		{line: "calculate(expression='1+2', n=-3, f=1.5, big=12345678901234567890, ok=True, no=False, none=None)"},
		{line: "f(xs=[1, (2, 3), [4]], d={'a': 'b', 'c': [1]}, s='it\\'s', u='caf\\u00e9', e='')"},
		{line: "get_order_details(order_id='#W2378156')"},
		{line: "get_order_details (order_id='#W2378156')"},
		{line: "done()"},
		{line: "  done()  "},
		{line: "list_all_product_types( )"},
		{line: `{"name": "get_user_details", "arguments": {"user_id": "u", "n": [1, 2.5]}}`},
		{line: `{"id": "c1", "name": "done", "arguments": {}}`},
		{line: `{"hello": 1}`},
		{line: `{"name": "x", "arguments": "oops"}`, differs: "a JSON call with non-object arguments is refused (upstream: text)"},
		{line: "Sure (one moment)"},
		{line: "f(x=1"},
		{line: "f(x=1)(y=2)", differs: "a call of a call is refused (upstream: the outer call's keywords, {\"y\": 2})"},
		{line: "f(x=undefined_name)", differs: "a bare name is refused (upstream: the name as a string)"},
		{line: "f('positional')", differs: "positional arguments are refused (upstream: dropped)"},
		{line: "f(x=1, x=2)", differs: "a repeated keyword is refused (upstream: the last value)"},
		{line: "f(x=-1.5e3, y=+2)"},
		{line: "f(**kw)", differs: "unpacking is refused (upstream: {\"null\": \"kw\"})"},
		{line: `get_user_details {"user_id": "u"}`, differs: "name {JSON} is a call (upstream: text)"},
		{line: `\get_user_details(user_id='u')`, differs: "a leading backslash makes text (upstream: text with the backslash)"},
		{line: "Thanks! I'll check (and get back to you) soon."},
		{line: "###STOP###"},
		{line: "ok ###STOP###"},
	}
	lines := make([]string, len(cases))
	for i, c := range cases {
		lines[i] = c.line
	}
	var want []struct {
		Call *struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"call"`
		Text    *string `json:"text"`
		Refused *string `json:"refused"`
	}
	oracletest.JSON(t, cmd, map[string]any{"lines": lines}, &want)
	if len(want) != len(cases) {
		t.Fatalf("oracle answered %d of %d lines", len(want), len(cases))
	}
	agree := 0
	for i, c := range cases {
		got, err := parseAction(c.line, func(string) bool { return true })
		w := want[i]
		var same bool
		switch {
		case w.Refused != nil:
			same = err != nil
		case w.Call != nil:
			same = err == nil && got.call != nil && got.call.Name == w.Call.Name && string(got.call.Arguments) == w.Call.Arguments
		case w.Text != nil:
			same = err == nil && got.call == nil && got.text == strings.TrimSpace(*w.Text)
		}
		switch {
		case same && c.differs == "":
			agree++
		case same:
			t.Errorf("%q: ours agrees with upstream, but is listed as differing (%s)", c.line, c.differs)
		case c.differs == "":
			t.Errorf("%q: ours %+v (err %v); upstream's %+v", c.line, got, err, describe(w.Call, w.Text, w.Refused))
		}
	}
	t.Logf("%d of %d lines read as upstream's manual mode reads them; %d differ on purpose", agree, len(cases), len(cases)-agree)
}

func describe(call any, text, refused *string) string {
	switch {
	case text != nil:
		return "text " + *text
	case refused != nil:
		return "refused: " + *refused
	}
	return fmt.Sprintf("call %+v", call)
}
