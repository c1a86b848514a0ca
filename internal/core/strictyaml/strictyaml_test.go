package strictyaml

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

type price struct {
	Input  float64 `yaml:"input"`
	Output float64 `yaml:"output"`
}

type entry struct {
	URL     string         `yaml:"url"`
	Retries *int           `yaml:"retries"`
	Timeout time.Duration  `yaml:"timeout"`
	Price   price          `yaml:"price"`
	Extra   map[string]any `yaml:"extra"`
	Tags    []string       `yaml:"tags"`
}

type block struct {
	Names []string `yaml:"names"`
	Limit *int     `yaml:"limit"`
}

type settings struct {
	Name    string           `yaml:"name"`
	Entries map[string]entry `yaml:"entries"`
	Grid    []block          `yaml:"grid"`
	Skip    string           `yaml:"-"`
	hidden  int
}

var opts = Options{Entries: map[string]string{"entries": "entry"}}

func TestDecode(t *testing.T) {
	t.Parallel()
	doc := "name: n\nentries:\n  a:\n    url: http://x\n    retries: 2\n    timeout: 90s\n    price: {input: 1.5, output: 2}\n    extra: {k: {deep: 1}}\n    tags: [t]\ngrid:\n  - names: [x, y]\n    limit: 3\n"
	var got settings
	lines, probs := Decode([]byte(doc), &got, opts)
	if len(probs) > 0 {
		t.Fatal(probs.Err(""))
	}
	two, three := 2, 3
	want := settings{Name: "n", Entries: map[string]entry{"a": {URL: "http://x", Retries: &two, Timeout: 90 * time.Second,
		Price: price{1.5, 2}, Extra: map[string]any{"k": map[string]any{"deep": 1}}, Tags: []string{"t"}}},
		Grid: []block{{Names: []string{"x", "y"}, Limit: &three}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode =\n%+v\nwant\n%+v", got, want)
	}
	for _, tc := range []struct {
		path []string
		want int
	}{
		{[]string{"name"}, 1}, {[]string{"entries", "a"}, 3}, {[]string{"entries", "a", "timeout"}, 6},
		{[]string{"entries", "a", "extra", "k", "deep"}, 8}, {[]string{"entries", "a", "model"}, 3},
		{[]string{"grid", "0", "limit"}, 12}, {[]string{"grid", "0"}, 11}, {[]string{"nothing"}, 0},
	} {
		if got := lines.Of(tc.path...); got != tc.want {
			t.Errorf("Of(%v) = %d; want %d", tc.path, got, tc.want)
		}
	}
}

// Values of the wrong type are said in the file's terms, never Go's.
func TestDecodeProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"duration", "entries:\n  a:\n    timeout: abc\n", []string{"line 3: entry \"a\": timeout: `abc` is not a duration such as 90s or 5m"}},
		{"whole number", "entries:\n  a:\n    retries: many\n    price: {input: x}\n", []string{
			"line 3: entry \"a\": retries: `many` is not a whole number", "line 4: entry \"a\": price.input: `x` is not a number"}},
		{"fraction for a whole number", "grid: [{limit: 1.5}]\n", []string{"line 1: grid[0]: limit: `1.5` is not a whole number"}},
		{"list for a struct", "entries:\n  a:\n    price: [1]\n", []string{"line 3: entry \"a\": price: want a mapping (input, output), found a list"}},
		{"scalar for an entry", "entries:\n  a: x\n", []string{"line 2: entry \"a\": want a mapping of its settings (url, retries, …), found `x`"}},
		{"scalar for the map", "entries: x\n", []string{"line 1: entries: want a mapping of entry names to their settings, found `x`"}},
		{"scalar for a list", "grid: x\nname: [1]\n", []string{"line 1: grid: want a list, found `x`", "line 2: name: a list is not a string"}},
		{"unknown keys", "nmae: x\nentries:\n  a:\n    price: {inptu: 1, zzz: 2}\n    colour: red\n", []string{
			`line 1: unknown key "nmae" (did you mean "name"?)`,
			`line 4: entry "a": price: unknown key "inptu" (did you mean "input"?)`,
			`line 4: entry "a": price: unknown key "zzz" (known keys: input, output)`,
			`line 5: entry "a": unknown key "colour" (known keys: url, retries, timeout, price, extra, tags)`}},
		{"not exported or skipped", "hidden: 1\nSkip: x\n", []string{`line 1: unknown key "hidden" (known keys: name, entries, grid)`,
			`line 2: unknown key "Skip" (known keys: name, entries, grid)`}},
		{"twice", "name: a\nentries:\n  a: {url: x}\n  a: {url: y}\nname: b\n", []string{
			`line 4: entries: key "a" given twice (first on line 3)`, `line 5: key "name" given twice (first on line 1)`}},
		{"root", "[1]\n", []string{"line 1: want a mapping with the keys name, entries and grid, found a list"}},
		{"empty", "", []string{"empty document"}},
		{"syntax", "name: a\nentries:\n  a:\n url: x\n", []string{"line 4: not valid YAML: did not find expected key"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s settings
			_, probs := Decode([]byte(tc.doc), &s, opts)
			got := probs.Err("")
			if got == nil || got.Error() != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\n%v\nwant:\n%s", got, strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestCovers(t *testing.T) {
	t.Parallel()
	var s settings
	_, probs := Decode([]byte("entries:\n  a:\n    modle: x\n    retries: x\n"), &s, opts)
	for _, tc := range []struct {
		path Path
		want bool
	}{
		{Path{"entries", "a", "model"}, false}, // no such key in the struct: no suggestion
		{Path{"entries", "a", "retries"}, true},
		{Path{"entries", "a"}, false},
		{Path{"entries", "a", "url"}, false},
	} {
		if got := probs.Covers(tc.path); got != tc.want {
			t.Errorf("Covers(%v) = %v; want %v (%v)", tc.path, got, tc.want, probs)
		}
	}
	_, probs = Decode([]byte("entries:\n  a:\n    rul: x\n"), &s, opts)
	if !probs.Covers(Path{"entries", "a", "url"}) {
		t.Errorf("a suggested key is not covered: %v", probs)
	}
	_, probs = Decode([]byte("- x"), &s, opts)
	if !probs.Covers(nil) || !probs.Covers(Path{"name"}) {
		t.Errorf("a document that is not a mapping covers everything: %v", probs)
	}
}

func TestErrFile(t *testing.T) {
	t.Parallel()
	ps := Problems{{Line: 3, Msg: "b"}, {Msg: "a"}, {Line: 1, Msg: "c"}}
	if got, want := ps.Err("f.yaml").Error(), "f.yaml: a\nf.yaml:1: c\nf.yaml:3: b"; got != want {
		t.Errorf("Err = %q; want %q", got, want)
	}
	if Problems(nil).Err("f") != nil {
		t.Error("no problems, an error")
	}
}

// FuzzDecode: any document decodes or has problems, each with a message;
// it never panics, and decoding again finds the same problems.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("name: n\nentries:\n  a:\n    url: http://x\n    price: {input: 1}\ngrid: [{names: [a], limit: 2}]\n"))
	f.Add([]byte("entries: {a: x, b: [1]}\ngrid: [x, {limit: 1.5}]\n"))
	f.Add([]byte("a: &x [1]\nb: *x\n"))
	f.Add([]byte("entries: {a: {price: {input: .nan}}}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s1, s2 settings
		_, p1 := Decode(b, &s1, opts)
		for _, p := range p1 {
			if p.Msg == "" {
				t.Fatalf("problem without a message at line %d", p.Line)
			}
		}
		_, p2 := Decode(b, &s2, opts)
		if !reflect.DeepEqual(p1, p2) {
			t.Fatalf("second decode differs: %v / %v", p1, p2)
		}
	})
}
