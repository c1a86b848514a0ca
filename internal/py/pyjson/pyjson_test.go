package pyjson

import (
	"encoding/json"
	"testing"
)

// Expected values below were printed by CPython 3.11 (repr / json.dumps).
func TestFloat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   float64
		want string
	}{
		{0.1, "0.1"}, {2.0, "2.0"}, {1e-05, "1e-05"}, {100.0, "100.0"}, {1e16, "1e+16"},
		{1.5e300, "1.5e+300"}, {123456789012345.6, "123456789012345.6"}, {0.0001, "0.0001"},
		{0.00012, "0.00012"}, {1234567890123456.0, "1234567890123456.0"},
		{12345678901234567.0, "1.2345678901234568e+16"}, {65.0, "65.0"},
		{0.30000000000000004, "0.30000000000000004"}, {0, "0.0"}, {-2.5, "-2.5"},
	}
	for _, tc := range cases {
		if got := Float(tc.in); got != tc.want {
			t.Errorf("Float(%v) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestMarshalMatchesPython(t *testing.T) {
	t.Parallel()
	d := &Dict{}
	d.Set("a", "é\u2708\ufe0f 📶 \"q\" \\ \x7f")
	d.Set("b", []any{1, 2.5, nil, true})
	got := String(d)
	want := `{"a": "\u00e9\u2708\ufe0f \ud83d\udcf6 \"q\" \\ \u007f", "b": [1, 2.5, null, true]}`
	if got != want {
		t.Errorf("Marshal = %s; want %s", got, want)
	}
}

func TestStructOrderAndIndent(t *testing.T) {
	t.Parallel()
	type inner struct {
		X float64 `json:"x"`
		Y *string `json:"y"`
	}
	type outer struct {
		Name  string   `json:"name"`
		In    inner    `json:"in"`
		List  []string `json:"list"`
		Empty []int    `json:"empty"`
	}
	v := outer{Name: "n", In: inner{X: 3}, List: []string{"a"}}
	got := String(v)
	want := `{"name": "n", "in": {"x": 3.0, "y": null}, "list": ["a"], "empty": []}`
	if got != want {
		t.Errorf("got %s; want %s", got, want)
	}
	b, err := MarshalOptions(v, Options{Indent: 2, UnicodeOK: true})
	if err != nil {
		t.Fatal(err)
	}
	wantIndent := "{\n  \"name\": \"n\",\n  \"in\": {\n    \"x\": 3.0,\n    \"y\": null\n  },\n  \"list\": [\n    \"a\"\n  ],\n  \"empty\": []\n}"
	if string(b) != wantIndent {
		t.Errorf("indent got\n%s\nwant\n%s", b, wantIndent)
	}
}

func TestDecodeKeepsOrderAndReencodes(t *testing.T) {
	t.Parallel()
	in := `{"z": 1, "a": [1.0, 2, "x"], "m": {"b": null, "a": false}}`
	v, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := String(v); got != in {
		t.Errorf("round trip = %s; want %s", got, in)
	}
	w, _ := Decode([]byte(`{"a": [1, 2, "x"], "m": {"a": false, "b": null}, "z": 1.0}`))
	if !Equal(v, w) {
		t.Errorf("Equal should ignore key order and int/float")
	}
	if _, err := Decode([]byte(`{"a":1} x`)); err == nil {
		t.Errorf("trailing data accepted")
	}
}

func TestRepr(t *testing.T) {
	t.Parallel()
	if got, want := Repr([]string{"sms", "it's"}), `['sms', "it's"]`; got != want {
		t.Errorf("Repr = %s; want %s", got, want)
	}
	if got, want := ReprString(`a"b'c`), `'a"b\'c'`; got != want {
		t.Errorf("ReprString = %s; want %s", got, want)
	}
	if got, want := Repr([]any{json.Number("1"), nil, true, 2.0}), "[1, None, True, 2.0]"; got != want {
		t.Errorf("Repr = %s; want %s", got, want)
	}
}

func TestRound(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want float64 }{{2.675, 2.67}, {0.125, 0.12}, {1.005, 1.0}, {10.555, 10.55}}
	for _, tc := range cases {
		if got := Round(tc.in, 2); got != tc.want {
			t.Errorf("Round(%v) = %v; want %v", tc.in, got, tc.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"a": [1, 2.5e3, "\u00e9"], "b": {"c": null}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			return
		}
		out, err := Marshal(v)
		if err != nil {
			return
		}
		w, err := Decode(out)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", out, err)
		}
		if !Equal(v, w) {
			t.Fatalf("round trip changed value: %s", out)
		}
	})
}
