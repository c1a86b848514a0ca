package tool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ledgerbench/ledgerbench/pyjson"
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
