package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type counter struct{ n int }

type addArgs struct {
	Key   string   `json:"key" desc:"which counter"`
	By    int      `json:"by"`
	Note  string   `json:"note,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Level string   `json:"level,omitempty" enum:"low,high"`
}

func testSet() *Set[*counter] {
	add := New("add", Write, "Add to a counter.", func(_ context.Context, c *counter, a addArgs) (any, error) {
		if a.By < 0 {
			return nil, errors.New("negative")
		}
		c.n += a.By
		return map[string]any{"n": c.n}, nil
	})
	get := New("get", Read, "Read it.", func(_ context.Context, c *counter, _ struct{}) (any, error) {
		return "n is " + string(rune('0'+c.n)), nil
	})
	return NewSet("CounterTools", add, get)
}

func TestCallErrorsMatchPython(t *testing.T) {
	t.Parallel()
	s := testSet()
	cases := []struct {
		name, tool, args, want string
	}{
		{"unknown tool", "mul", `{}`, "Tool 'mul' not found."},
		{"unexpected kwarg", "add", `{"key":"a","by":1,"zzz":2}`, "CounterTools.add() got an unexpected keyword argument 'zzz'"},
		{"unexpected before missing", "add", `{"zzz":2}`, "CounterTools.add() got an unexpected keyword argument 'zzz'"},
		{"missing one", "add", `{"key":"a"}`, "CounterTools.add() missing 1 required positional argument: 'by'"},
		{"missing two", "add", `{}`, "CounterTools.add() missing 2 required positional arguments: 'key' and 'by'"},
		{"not a mapping", "add", `[1]`, "CounterTools.add() argument after ** must be a mapping, not list"},
		{"string args", "add", `"{bad json"`, "CounterTools.add() argument after ** must be a mapping, not str"},
		{"wrong type", "add", `{"key":"a","by":"x"}`, "argument 'by' must be int, not str"},
		{"tool error", "add", `{"key":"a","by":-1}`, "negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Call(context.Background(), &counter{}, tc.tool, json.RawMessage(tc.args))
			if err == nil || err.Error() != tc.want {
				t.Errorf("Call(%s, %s) error = %v; want %q", tc.tool, tc.args, err, tc.want)
			}
		})
	}
	if _, err := s.Call(context.Background(), &counter{}, "mul", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown tool error does not wrap ErrNotFound")
	}
}

func TestMissingThreeArgs(t *testing.T) {
	t.Parallel()
	type three struct {
		A string `json:"a"`
		B string `json:"b"`
		C string `json:"c"`
	}
	info := New("f", Read, "", func(context.Context, *counter, three) (any, error) { return nil, nil }).Info
	err := CheckArgs("K", info, json.RawMessage(`{}`))
	if want := "K.f() missing 3 required positional arguments: 'a', 'b', and 'c'"; err == nil || err.Error() != want {
		t.Errorf("got %v; want %q", err, want)
	}
}

func TestContentAndSchema(t *testing.T) {
	t.Parallel()
	s := testSet()
	c := &counter{}
	out, err := s.CallContent(context.Background(), c, "add", json.RawMessage(`{"key":"a","by":2}`))
	if err != nil || out != `{"n": 2}` {
		t.Errorf("CallContent = %q, %v", out, err)
	}
	out, _ = s.CallContent(context.Background(), c, "get", nil)
	if out != "n is 2" {
		t.Errorf("string result = %q", out)
	}
	info, ok := s.Lookup("add")
	if !ok || !info.Mutates() {
		t.Fatalf("add should be a mutating tool")
	}
	want := `{"type":"object","properties":{"key":{"type":"string","description":"which counter"},"by":{"type":"integer"},"note":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"level":{"type":"string","enum":["low","high"]}},"required":["key","by"]}`
	if string(info.Parameters) != want {
		t.Errorf("schema =\n%s\nwant\n%s", info.Parameters, want)
	}
	var fn struct {
		Function struct{ Name string } `json:"function"`
	}
	if err := json.Unmarshal(info.OpenAISchema(), &fn); err != nil || fn.Function.Name != "add" {
		t.Errorf("OpenAISchema = %s (%v)", info.OpenAISchema(), err)
	}
	names := []string{}
	for _, i := range s.Infos() {
		names = append(names, i.Name)
	}
	if strings.Join(names, ",") != "add,get" {
		t.Errorf("Infos order = %v", names)
	}
}

func FuzzCheckArgs(f *testing.F) {
	s := testSet()
	f.Add(`{"key":"a","by":1}`)
	f.Add(`{"key":"a","by":1,"tags":["x"],"level":"low"}`)
	f.Add(`[]`)
	f.Add(`{"key":{"nested":[1,{"by":2}]},"by":1}`)
	f.Fuzz(func(t *testing.T, args string) {
		_, _ = s.Call(context.Background(), &counter{}, "add", json.RawMessage(args))
	})
}

// TestObjectKeysFastPath: for valid objects the scanner path lists the same
// keys, in order and with duplicates, as the token decoder it skips.
func TestObjectKeysFastPath(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{}`, ` {"b": 1, "a": {"b": [1, {"c": 2}]}, "b": "}"} `, `{"\u00e9": null, "k\"q": [[]]}`} {
		got, err := objectKeys(json.RawMessage(in))
		if err != nil {
			t.Fatalf("objectKeys(%s): %v", in, err)
		}
		dec := json.NewDecoder(strings.NewReader(in))
		var want []string
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		for dec.More() {
			k, _ := dec.Token()
			want = append(want, k.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("objectKeys(%s) = %q; want %q", in, got, want)
		}
	}
	for _, in := range []string{`{"a": tru}`, `{"a": 1`, `"s"`} {
		if _, err := objectKeys(json.RawMessage(in)); err == nil {
			t.Errorf("objectKeys(%s): no error", in)
		}
	}
}

// specs is a Source over fixed specs.
type specs struct {
	names []string
	by    map[string]Spec
}

func (s specs) Names() []string { return s.names }
func (s specs) Spec(name string) (Spec, error) {
	sp, ok := s.by[name]
	if !ok {
		return Spec{}, errors.New("no spec for " + name)
	}
	return sp, nil
}

func TestDescribed(t *testing.T) {
	t.Parallel()
	addParams := `{"properties": {"key": {}, "by": {}, "note": {}, "tags": {}, "level": {}}, "required": ["key", "by"], "title": "parameters", "type": "object"}`
	getParams := `{"properties": {}, "title": "parameters", "type": "object"}`
	good := func() specs {
		return specs{names: []string{"add", "get"}, by: map[string]Spec{
			"add": {Kind: Write, Description: "Adds.", Parameters: json.RawMessage(addParams)},
			"get": {Kind: Read, Description: "Gets.", Parameters: json.RawMessage(getParams)},
		}}
	}
	t.Run("ok", func(t *testing.T) {
		orig := testSet()
		s, err := orig.Described(good())
		if err != nil {
			t.Fatal(err)
		}
		info, _ := s.Lookup("add")
		if info.Description != "Adds." || string(info.Parameters) != addParams {
			t.Errorf("add = %q, %s", info.Description, info.Parameters)
		}
		if before, _ := orig.Lookup("add"); before.Description != "Add to a counter." {
			t.Errorf("Described changed the original set: %q", before.Description)
		}
		// Dispatch is unchanged.
		if _, err := s.Call(context.Background(), &counter{}, "add", json.RawMessage(`{"key":"a"}`)); err == nil ||
			!strings.Contains(err.Error(), "missing 1 required positional argument: 'by'") {
			t.Errorf("Call after Described: %v", err)
		}
	})
	for _, tc := range []struct {
		name   string
		change func(*specs)
		want   string
	}{
		{"extra tool here", func(s *specs) { s.names = []string{"add"} }, "CounterTools.get: no such tool upstream"},
		{"tool missing here", func(s *specs) { s.names = append(s.names, "mul") }, "CounterTools.mul: upstream tool missing here"},
		{"order", func(s *specs) { s.names = []string{"get", "add"} }, "upstream tool order"},
		{"kind", func(s *specs) { sp := s.by["get"]; sp.Kind = Write; s.by["get"] = sp }, "CounterTools.get: upstream kind write, ours read"},
		{"required", func(s *specs) {
			sp := s.by["add"]
			sp.Parameters = json.RawMessage(strings.Replace(addParams, `["key", "by"]`, `["key"]`, 1))
			s.by["add"] = sp
		}, "CounterTools.add: upstream parameters"},
		{"not a schema", func(s *specs) { sp := s.by["get"]; sp.Parameters = json.RawMessage(`[]`); s.by["get"] = sp }, "CounterTools.get: parameters schema"},
		{"spec error", func(s *specs) { delete(s.by, "get") }, "no spec for get"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := good()
			tc.change(&src)
			_, err := testSet().Described(src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Described error %v; want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestOpenAISchema(t *testing.T) {
	t.Parallel()
	info := Info{Name: "f", Description: "Uses <tags> & \"quotes\".",
		Parameters: json.RawMessage(`{"properties": {"x": {"default": 1.0, "title": "X", "type": "number"}}, "title": "parameters", "type": "object"}`)}
	want := `{"type":"function","function":{"name":"f","description":"Uses <tags> & \"quotes\".",` +
		`"parameters":{"properties":{"x":{"default":1.0,"title":"X","type":"number"}},"title":"parameters","type":"object"}}}`
	if got := string(info.OpenAISchema()); got != want {
		t.Errorf("OpenAISchema() =\n%s\nwant\n%s", got, want)
	}
	if got := string((Info{Name: "g"}).OpenAISchema()); got != `{"type":"function","function":{"name":"g","description":"","parameters":null}}` {
		t.Errorf("OpenAISchema() without parameters = %s", got)
	}
}

// TestDecode: Decode gives the argument struct the tool would run with, and
// exactly the errors Call returns before running it.
func TestDecode(t *testing.T) {
	t.Parallel()
	s := testSet()
	cases := []struct {
		name, tool, args string
		want             *addArgs // nil: an error, the one Call gives
	}{
		{"valid", "add", `{"key":"a","by":2,"tags":["x"]}`, &addArgs{Key: "a", By: 2, Tags: []string{"x"}}},
		{"repeated key: the last wins", "add", `{"key":"a","by":1,"key":"b"}`, &addArgs{Key: "b", By: 1}},
		{"null string", "add", `{"key":null,"by":1}`, &addArgs{By: 1}},
		{"unknown tool", "mul", `{}`, nil},
		{"unexpected kwarg", "add", `{"key":"a","by":1,"zzz":2}`, nil},
		{"missing", "add", `{"key":"a"}`, nil},
		{"not a mapping", "add", `[1]`, nil},
		{"wrong type", "add", `{"key":"a","by":"x"}`, nil},
		{"wrong element type", "add", `{"key":"a","by":1,"tags":[1]}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Decode(tc.tool, json.RawMessage(tc.args))
			_, callErr := s.Call(context.Background(), &counter{}, tc.tool, json.RawMessage(tc.args))
			if tc.want == nil {
				if err == nil || callErr == nil || err.Error() != callErr.Error() {
					t.Fatalf("Decode error %v; Call error %v", err, callErr)
				}
				return
			}
			a, ok := got.(*addArgs)
			if err != nil || !ok || a.Key != tc.want.Key || a.By != tc.want.By || strings.Join(a.Tags, ",") != strings.Join(tc.want.Tags, ",") {
				t.Fatalf("Decode = %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
}

type listArgs struct {
	ID      string    `json:"id"`
	Line    *string   `json:"line,omitempty"`
	IDs     []string  `json:"ids,omitempty"`
	More    *[]string `json:"more,omitempty"`
	Other   string    `json:"other,omitempty"`
	Raw     rawArg    `json:"raw,omitempty"`
	On      bool      `json:"on,omitempty"`
	MaybeOn *bool     `json:"maybe_on,omitempty"`
	Amount  float64   `json:"amount,omitempty"`
	Limit   *float64  `json:"limit,omitempty"`
}

// rawArg keeps any JSON value, as the domains' Python-value arguments do.
type rawArg struct{ B []byte }

func (r *rawArg) UnmarshalJSON(b []byte) error {
	r.B = append([]byte(nil), b...)
	return nil
}

// BenchmarkDecode measures a call's argument decoding (CheckArgs and
// encoding/json), which every tool call pays.
func BenchmarkDecode(b *testing.B) {
	s := NewSet("T", New("t", Write, "", func(_ context.Context, _ *counter, a listArgs) (any, error) { return nil, nil }))
	info, _ := s.Lookup("t")
	args := json.RawMessage(`{"id": "C1001", "line": "L1002", "ids": ["a", "b"], "on": true, "amount": 12.5}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.tools[0].decode("T", info, args); err != nil {
			b.Fatal(err)
		}
	}
}
