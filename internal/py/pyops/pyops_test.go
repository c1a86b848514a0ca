package pyops

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// apply runs one case through pyops (as the oracle script names ops).
func apply(op string, a, b any) (any, error) {
	switch op {
	case "add":
		return Add(a, b, false)
	case "iadd":
		return Add(a, b, true)
	case "sub":
		return Sub(a, b, false)
	case "isub":
		return Sub(a, b, true)
	case "mul":
		return Mul(a, b)
	case "<", "<=", ">", ">=":
		return Compare(op, a, b)
	case "eq":
		return Eq(a, b), nil
	case "neg":
		return Neg(a)
	case "abs":
		return Abs(a)
	case "round2":
		return Round(a, 2)
	case "sum":
		return Sum(a)
	case "max2":
		return Max2(a, b)
	case "contains":
		return Contains(a, b)
	case "getitem":
		return GetItem(a, b)
	case "len":
		n, err := Len(a)
		return json.Number(fmt.Sprint(n)), err
	case "count":
		n, err := Count(a, b)
		return json.Number(fmt.Sprint(n)), err
	case "lower":
		return Lower(a)
	case "sorted":
		v, err := Sorted(a)
		if err != nil {
			return nil, err
		}
		return v, nil
	case "int":
		return ParseInt(a)
	case "slice_from":
		n, ok := b.(json.Number)
		if !ok {
			return nil, fmt.Errorf("slice bound")
		}
		i, _ := n.Int64()
		lo := int(i)
		return Slice(a, &lo, nil)
	}
	return nil, fmt.Errorf("unknown op %s", op)
}

// cases are the operations the v1 tools apply, on values of the types a
// model's arguments can take.
func cases() []map[string]any {
	vals := []string{`0`, `1`, `-3`, `2.5`, `0.1`, `100.0`, `true`, `null`, `"ab"`, `"x"`, `[1, "a"]`, `["b", "a"]`, `[]`, `{"k": 1}`, `12345678901234567890`}
	var out []map[string]any
	binary := []string{"add", "iadd", "sub", "isub", "mul", "<", ">=", "eq", "max2", "contains", "getitem", "count"}
	unary := []string{"neg", "abs", "round2", "sum", "len", "lower", "sorted", "int"}
	for _, op := range binary {
		for _, a := range vals {
			for _, b := range vals {
				out = append(out, map[string]any{"op": op, "a": json.RawMessage(a), "b": json.RawMessage(b)})
			}
		}
	}
	for _, op := range unary {
		for _, a := range append(vals, `"12"`, `" 7 "`, `"1_0"`, `"2024-05-07"`, `[3, 1, 2]`, `[1.5, 1]`, `1.005`, `2.675`, `-0.5`) {
			out = append(out, map[string]any{"op": op, "a": json.RawMessage(a)})
		}
	}
	for _, a := range []string{`"2024-05-07"`, `[1, 2, 3]`, `5`, `null`, `{"a": 1}`} {
		out = append(out, map[string]any{"op": "slice_from", "a": json.RawMessage(a), "b": json.RawMessage(`-2`)})
	}
	return out
}

// TestOracle compares every case with CPython (opt-in):
//
//	LEDGERBENCH_PYOPS_ORACLE="python3 testdata/pyops_oracle.py" go test ./internal/py/pyops -run Oracle
func TestOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_PYOPS_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_PYOPS_ORACLE not set")
	}
	cs := cases()
	var want []struct {
		Value json.RawMessage `json:"value"`
		Error []string        `json:"error"`
	}
	oracletest.JSON(t, cmdline, cs, &want)
	if len(want) != len(cs) {
		t.Fatalf("%d answers for %d cases", len(want), len(cs))
	}
	equal := 0
	for i, c := range cs {
		a, _ := pyjson.Decode(c["a"].(json.RawMessage))
		var b any
		if raw, ok := c["b"].(json.RawMessage); ok {
			b, _ = pyjson.Decode(raw)
		}
		got, err := apply(c["op"].(string), a, b)
		w := want[i]
		switch {
		case w.Error != nil:
			if err == nil || err.Error() != w.Error[1] {
				t.Errorf("%s(%s, %s): got %.200s, %v; Python raises %s: %s", c["op"], c["a"], c["b"], pyjson.Repr(got), err, w.Error[0], w.Error[1])
				continue
			}
		case err != nil:
			t.Errorf("%s(%s, %s): error %v; Python gives %s", c["op"], c["a"], c["b"], err, w.Value)
			continue
		default:
			wv, _ := pyjson.Decode(w.Value)
			gb, _ := pyjson.Marshal(got)
			wb, _ := pyjson.Marshal(wv)
			if string(gb) != string(wb) {
				t.Errorf("%s(%s, %s) = %.200s; Python gives %.200s", c["op"], c["a"], c["b"], gb, wb)
				continue
			}
		}
		equal++
	}
	t.Logf("%d/%d cases equal to CPython's (values and exception texts)", equal, len(cs))
}

// TestPythonFacts: a few of CPython's results and texts the tools meet.
func TestPythonFacts(t *testing.T) {
	t.Parallel()
	num := func(s string) any { return json.Number(s) }
	tests := []struct {
		name string
		got  func() (any, error)
		want string // the value's json.dumps, or "!"+the exception text
	}{
		{"int+float", func() (any, error) { return Add(num("1"), num("0.5"), false) }, "1.5"},
		{"float rounding", func() (any, error) { return Add(num("0.1"), num("0.2"), false) }, "0.30000000000000004"},
		{"int+str aug", func() (any, error) { return Add(num("0"), "a", true) }, "!unsupported operand type(s) for +=: 'int' and 'str'"},
		{"str+int", func() (any, error) { return Add("a", num("1"), false) }, "!can only concatenate str (not \"int\") to str"},
		{"round int", func() (any, error) { return Round(num("5"), 2) }, "5"},
		{"round half", func() (any, error) { return Round(num("2.675"), 2) }, "2.67"},
		{"compare", func() (any, error) { return Compare("<", "a", num("1")) }, "!'<' not supported between instances of 'str' and 'int'"},
		{"key error", func() (any, error) { return GetItem(&pyjson.Dict{}, "x") }, "!'x'"},
		{"unhashable", func() (any, error) { return Contains(&pyjson.Dict{}, []any{}) }, "!unhashable type: 'list'"},
		{"str index", func() (any, error) { return GetItem("ab", "x") }, "!string indices must be integers, not 'str'"},
		{"repeat", func() (any, error) { return Mul(num("2"), "ab") }, `"abab"`},
		{"sorted mixed", func() (any, error) { return Sorted([]any{"b", num("1")}) }, "!'<' not supported between instances of 'int' and 'str'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.got()
			var got string
			if err != nil {
				got = "!" + err.Error()
			} else {
				b, _ := pyjson.Marshal(v)
				got = string(b)
			}
			if got != tc.want {
				t.Errorf("got %s; want %s", got, tc.want)
			}
		})
	}
}
