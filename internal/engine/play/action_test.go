package play

import (
	"encoding/json"
	"strings"
	"testing"
)

func knownTools(names ...string) func(string) bool {
	return func(n string) bool {
		for _, x := range names {
			if x == n {
				return true
			}
		}
		return false
	}
}

// TestParseAction: a line is a tool call in upstream's forms (JSON tool
// call, functional with Python literals) or ours (name {JSON}), else text;
// a call that does not parse or names no tool is refused, never sent as
// text.
func TestParseAction(t *testing.T) {
	t.Parallel()
	known := knownTools("get_user_details", "find_user_id_by_name_zip", "calculate", "done")
	tests := []struct {
		name, line string
		text       string // want text
		call, args string // want a call
		err        string // want an error containing
	}{
		{name: "text", line: "  Hello, how can I help?  ", text: "Hello, how can I help?"},
		{name: "functional", line: "find_user_id_by_name_zip(first_name='Yusuf', last_name=\"Rossi\", zip='19122')",
			call: "find_user_id_by_name_zip", args: `{"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"}`},
		{name: "functional literals", line: "calculate(expression='1+2', n=-3, f=1.5, ok=True, none=None, xs=[1, (2, 3)], d={'a': 'b'})",
			call: "calculate", args: `{"expression": "1+2", "n": -3, "f": 1.5, "ok": true, "none": null, "xs": [1, [2, 3]], "d": {"a": "b"}}`},
		{name: "functional no arguments", line: "done()", call: "done", args: `{}`},
		{name: "functional spaced", line: "get_user_details (user_id='u')", call: "get_user_details", args: `{"user_id": "u"}`},
		{name: "name JSON", line: `get_user_details {"user_id": "u", "n": [1,2]}`, call: "get_user_details", args: `{"user_id": "u", "n": [1, 2]}`},
		{name: "JSON tool call", line: `{"name": "get_user_details", "arguments": {"user_id": "u"}}`, call: "get_user_details", args: `{"user_id": "u"}`},
		{name: "JSON tool call without arguments", line: `{"name": "done"}`, call: "done", args: `{}`},
		{name: "JSON unknown tool is still a call", line: `{"name": "nope", "arguments": {}}`, call: "nope", args: `{}`},
		{name: "JSON that is no tool call is text", line: `{"hello": 1}`, text: `{"hello": 1}`},
		{name: "backslash sends text", line: `\get_user_details(user_id='u')`, text: "get_user_details(user_id='u')"},
		{name: "parentheses in prose", line: "Sure (one moment)", text: "Sure (one moment)"},
		{name: "unknown tool refused", line: "get_usr_details(user_id='u')", err: `no tool "get_usr_details"`},
		{name: "unknown call-like name refused", line: "Thanks(ok)", err: `no tool "Thanks"`},
		{name: "positional refused", line: "get_user_details('u')", err: "given by name"},
		{name: "bad literal refused", line: "get_user_details(user_id=u)", err: "tool call get_user_details"},
		{name: "nested call refused", line: "get_user_details(user_id=str(1))", err: "is a call"},
		{name: "JSON arguments not an object", line: `{"name": "calculate", "arguments": [1]}`, err: "JSON object"},
		{name: "name JSON broken", line: `get_user_details {"user_id": }`, err: "not JSON"},
		{name: "empty", line: "   ", err: "empty"},
		{name: "lone backslash", line: `\ `, err: "nothing after"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseAction(tc.line, known)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("parseAction(%q) = %+v, %v; want error %q", tc.line, a, err, tc.err)
				}
			case err != nil:
				t.Fatalf("parseAction(%q): %v", tc.line, err)
			case tc.call != "":
				if a.call == nil || a.call.Name != tc.call || string(a.call.Arguments) != tc.args {
					t.Fatalf("parseAction(%q) = %+v; want call %s %s", tc.line, a, tc.call, tc.args)
				}
			default:
				if a.call != nil || a.text != tc.text {
					t.Fatalf("parseAction(%q) = %+v; want text %q", tc.line, a, tc.text)
				}
			}
		})
	}
}

// FuzzParseAction: any line is text, a call whose arguments are a JSON
// object, or an error; never a panic.
func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"hello", "done()", "calculate(expression='1+2')", `calculate {"expression": "2"}`,
		`{"name": "calculate", "arguments": {"expression": "2"}}`, `\x(y)`, "calculate(a=[1, {'b': (2,)}])", "calculate(a='\\u00e9')"} {
		f.Add(s)
	}
	known := knownTools("calculate", "done")
	f.Fuzz(func(t *testing.T, line string) {
		a, err := parseAction(line, known)
		if err != nil {
			return
		}
		if a.call == nil {
			if strings.TrimSpace(a.text) == "" {
				t.Fatalf("parseAction(%q): empty text", line)
			}
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(a.call.Arguments, &obj); err != nil || obj == nil {
			t.Fatalf("parseAction(%q): arguments %s are not a JSON object: %v", line, a.call.Arguments, err)
		}
	})
}
