package pyjson

import (
	"encoding/json"
	"math"
	"testing"
)

// TestLoadsErrors: json.loads' messages and positions (CPython 3.11, as
// measured by running it on each input).
func TestLoadsErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`{"a": "\q"}`, `Invalid \escape: line 1 column 8 (char 7)`},
		{`"\u12"`, `Invalid \uXXXX escape: line 1 column 3 (char 2)`},
		{`"ab`, `Unterminated string starting at: line 1 column 1 (char 0)`},
		{`{"a":1,}`, `Expecting property name enclosed in double quotes: line 1 column 8 (char 7)`},
		{`[1,]`, `Expecting value: line 1 column 4 (char 3)`},
		{``, `Expecting value: line 1 column 1 (char 0)`},
		{`  `, `Expecting value: line 1 column 3 (char 2)`},
		{`{"a" 1}`, `Expecting ':' delimiter: line 1 column 6 (char 5)`},
		{`[1 2]`, `Expecting ',' delimiter: line 1 column 4 (char 3)`},
		{"\"a\tb\"", `Invalid control character at: line 1 column 3 (char 2)`},
		{`1 2`, `Extra data: line 1 column 3 (char 2)`},
		{`{1:2}`, `Expecting property name enclosed in double quotes: line 1 column 2 (char 1)`},
		{`nul`, `Expecting value: line 1 column 1 (char 0)`},
		{`-`, `Expecting value: line 1 column 1 (char 0)`},
		{`01`, `Extra data: line 1 column 2 (char 1)`},
		{`1.`, `Extra data: line 1 column 2 (char 1)`},
		{`[1,2`, `Expecting ',' delimiter: line 1 column 5 (char 4)`},
		{`{"a":`, `Expecting value: line 1 column 6 (char 5)`},
		{`"\`, `Unterminated string starting at: line 1 column 1 (char 0)`},
		{"{\n\"é\": x}", `Expecting value: line 2 column 6 (char 7)`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			_, err := Loads(c.in, LoadsOptions{})
			if err == nil || err.Error() != c.want {
				t.Errorf("Loads(%q) error %v; want %s", c.in, err, c.want)
			}
		})
	}
}

func TestLoadsValues(t *testing.T) {
	t.Parallel()
	v, err := Loads(` {"b": [1, 2.5, -0, 1e3, true, null, "x\u00e9\ud83d\ude00"], "a": {}, "b": NaN} `, LoadsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := v.(*Dict)
	if len(d.Keys) != 2 || d.Keys[0] != "b" || d.Keys[1] != "a" {
		t.Fatalf("keys %v; want [b a] (a repeated key keeps its first place)", d.Keys)
	}
	if f, ok := d.Values[0].(float64); !ok || !math.IsNaN(f) {
		t.Errorf("b = %v; want the last value, NaN", d.Values[0])
	}
	l, err := Loads(`[1, 2.5, 1e3, "x\u00e9\ud83d\ude00"]`, LoadsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{json.Number("1"), 2.5, 1000.0, "xé😀"}
	for i, w := range want {
		if l.([]any)[i] != w {
			t.Errorf("item %d = %#v; want %#v", i, l.([]any)[i], w)
		}
	}
	f, err := Loads(`{"n": 33}`, LoadsOptions{IntAsFloat: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := f.(*Dict).Get("n"); n != 33.0 {
		t.Errorf("parse_int=float: %#v; want 33.0", n)
	}
}

// FuzzLoads: Loads never panics, and accepts what encoding/json accepts
// (up to Python's extensions, which encoding/json rejects).
func FuzzLoads(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x"]}`, `"\ud800"`, `[1,`, `{"a" 1}`, `NaN`, "\"\t\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := Loads(s, LoadsOptions{})
		if json.Valid([]byte(s)) && err != nil {
			t.Errorf("Loads(%q) = %v; encoding/json accepts it", s, err)
		}
	})
}
