package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

type valueArgs struct {
	Name  StrValue `json:"name"`
	Limit IntValue `json:"limit,omitempty"`
}

// TestValue: Value arguments hold what json.loads makes of the argument
// (any JSON type, key order kept) and whether it was passed, so an optional
// parameter's default applies only when it was not; their schemas are the
// declared types.
func TestValue(t *testing.T) {
	t.Parallel()
	var got valueArgs
	tl := New("probe", Read, "", func(_ context.Context, _ struct{}, a valueArgs) (any, error) {
		got = a
		return nil, nil
	})
	s := NewSet("ProbeTools", tl)
	for _, tc := range []struct {
		args       string
		name       string // Repr of Name.V
		limit      string // Repr of Limit.Or(10)
		namePassed bool
	}{
		{`{"name": "x"}`, "'x'", "10", true},
		{`{"name": "caf\u00e9", "limit": null}`, "'café'", "None", true},
		{`{"name": 3, "limit": 2.5}`, "3", "2.5", true},
		{`{"name": {"b": [1, true], "a": null}}`, "{'b': [1, True], 'a': None}", "10", true},
	} {
		got = valueArgs{}
		if _, err := s.Call(context.Background(), struct{}{}, "probe", json.RawMessage(tc.args)); err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		if r := pyjson.Repr(got.Name.V); r != tc.name || got.Name.Passed != tc.namePassed {
			t.Errorf("%s: name %s (passed %v); want %s", tc.args, r, got.Name.Passed, tc.name)
		}
		if r := pyjson.Repr(got.Limit.Or(10)); r != tc.limit {
			t.Errorf("%s: limit %s; want %s", tc.args, r, tc.limit)
		}
	}
	want := `{"type": "object", "properties": {"name": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["name"]}`
	v, err := pyjson.Decode(tl.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	if g := pyjson.String(v); g != want {
		t.Errorf("schema %s; want %s", g, want)
	}
}

// listValue is a domain's own list type (rules check it).
type listValue struct{ Value }

type typedArgs struct {
	ID    StrValue     `json:"id"`
	IDs   StrListValue `json:"ids"`
	N     IntValue     `json:"n,omitempty"`
	X     NumValue     `json:"x,omitempty"`
	On    BoolValue    `json:"on,omitempty"`
	Extra DictValue    `json:"extra,omitempty"`
	Kind  StrValue     `json:"kind,omitempty" enum:"a,b"`
	Items listValue    `json:"items,omitempty"`
	Skip  IntValue     `json:"skip,omitempty"`
}

// TestCheckTypes: the gates' one argument check accepts the documented
// type (an int for a number, one of the enum's values), null only for an
// optional parameter, and names every field that is of another Python type
// or breaks a rule, as a Python TypeError would.
func TestCheckTypes(t *testing.T) {
	t.Parallel()
	rules := []Rule{NonNegative("n"), Positive("x"), Note("on", "any non-empty string counts as true"),
		Objects("items", true, Field{"sku", "str"}, Field{"qty", "int"})}
	rules = append(rules, Except("skip")...)
	for _, tc := range []struct{ args, want string }{
		{`{"id": "a", "ids": ["b", null], "n": 3, "x": 2, "on": true, "extra": {}, "kind": "b", "items": [{"sku": "s", "qty": 1}]}`, ""},
		{`{"id": "a", "ids": [], "n": null, "x": null, "on": null, "extra": null, "kind": null, "items": null, "skip": 5}`, ""},
		{`{"id": null, "ids": null, "x": 2.5}`, "argument 'id' must be str, not None; argument 'ids' must be list, not None"},
		{`{"id": 5, "ids": 1}`, "argument 'id' must be str, not int; argument 'ids' must be list, not int"},
		{`{"id": "a", "ids": ["b", 1.5]}`, "argument 'ids' must be str in every item, not float (item 1)"},
		{`{"id": "a", "ids": [], "n": 1.0}`, "argument 'n' must be int, not float"},
		{`{"id": "a", "ids": [], "n": -1}`, "argument 'n' must be a non-negative int, not -1"},
		{`{"id": "a", "ids": [], "x": "1"}`, "argument 'x' must be float, not str"},
		{`{"id": "a", "ids": [], "x": 0}`, "argument 'x' must be a positive number, not 0"},
		{`{"id": "a", "ids": [], "x": 1e999}`, "argument 'x' must be a positive number, not inf"},
		{`{"id": "a", "ids": [], "on": "no"}`, "argument 'on' must be bool, not str (any non-empty string counts as true)"},
		{`{"id": "a", "ids": [], "extra": []}`, "argument 'extra' must be dict, not list"},
		{`{"id": "a", "ids": [], "kind": "z"}`, "argument 'kind' must be one of ['a', 'b'], not 'z'"},
		{`{"id": "a", "ids": [], "items": []}`, "argument 'items' must be a non-empty list of objects with str sku, int qty, not []"},
		{`{"id": "a", "ids": [], "items": [{"sku": 1, "qty": 1}]}`, "argument 'items' must be a non-empty list of objects with str sku, int qty, not [{'sku': 1, 'qty': 1}]"},
		{`{"id": "a", "ids": [], "items": [{"sku": "s"}, null]}`, "argument 'items' needs sku, qty in every item"},
	} {
		var a typedArgs
		if err := json.Unmarshal([]byte(tc.args), &a); err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := CheckTypes(&a, rules...); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckTypes(%s) = %q; want %q", tc.args, got, tc.want)
		}
	}
}

// TestValueText: the gates' readings of a str and a list of str.
func TestValueText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw   string
		text  string
		texts []string
	}{
		{`"a"`, "a", nil},
		{`5`, "", nil},
		{`["a", 1, null]`, "", []string{"a", "", ""}},
	} {
		var v Value
		if err := v.UnmarshalJSON([]byte(tc.raw)); err != nil {
			t.Fatal(err)
		}
		if v.Text() != tc.text || fmt.Sprint(v.Texts()) != fmt.Sprint(tc.texts) {
			t.Errorf("%s: Text %q Texts %q; want %q %q", tc.raw, v.Text(), v.Texts(), tc.text, tc.texts)
		}
	}
}
