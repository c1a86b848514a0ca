package pyjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
)

// pythonValue is one line of testdata/pyvalues.jsonl: a JSON text and
// type(v).__name__, str(v) and repr(v) of json.loads of it, as CPython 3
// printed them (testdata/pyvalues.py).
type pythonValue struct {
	JSON, Type, Str, Repr string
}

func readPythonValues(t *testing.T, b []byte) []pythonValue {
	t.Helper()
	var out []pythonValue
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var row [4]string
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("pyvalues line %q: %v", sc.Text(), err)
		}
		out = append(out, pythonValue{row[0], row[1], row[2], row[3]})
	}
	if len(out) == 0 {
		t.Fatal("no python values")
	}
	return out
}

func checkPythonValues(t *testing.T, cases []pythonValue) {
	t.Helper()
	for _, tc := range cases {
		v, err := Decode([]byte(tc.JSON))
		if err != nil {
			t.Fatalf("Decode(%s): %v", tc.JSON, err)
		}
		if got := TypeName(v); got != tc.Type {
			t.Errorf("TypeName(%s) = %q; want %q", tc.JSON, got, tc.Type)
		}
		if got := Str(v); got != tc.Str {
			t.Errorf("Str(%s) = %q; want %q", tc.JSON, got, tc.Str)
		}
		if got := Repr(v); got != tc.Repr {
			t.Errorf("Repr(%s) = %q; want %q", tc.JSON, got, tc.Repr)
		}
	}
}

// TestPythonValues: TypeName, Str and Repr of decoded JSON agree with what
// CPython printed for the same texts (testdata/pyvalues.jsonl).
func TestPythonValues(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/pyvalues.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	checkPythonValues(t, readPythonValues(t, b))
}

// TestPythonValuesOracle runs testdata/pyvalues.py on the same texts with
// the interpreter LEDGERBENCH_PYJSON_ORACLE names (e.g. python3), so the
// expectations are checked against a live Python as well as the recorded
// ones; it skips when the variable is unset.
func TestPythonValuesOracle(t *testing.T) {
	t.Parallel()
	py := os.Getenv("LEDGERBENCH_PYJSON_ORACLE")
	if py == "" {
		t.Skip("LEDGERBENCH_PYJSON_ORACLE not set (e.g. LEDGERBENCH_PYJSON_ORACLE=python3)")
	}
	b, err := os.ReadFile("testdata/pyvalues.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range readPythonValues(t, b) {
		texts = append(texts, c.JSON)
	}
	// More texts than the recorded ones: nested and odd values.
	texts = append(texts, `[[], {}, [{}]]`, `{"k": {"k": [1e5, -1.25e-9]}}`, `"\u00ff\u0100"`, `-123.456e78`, `5e-324`, `1.7976931348623157e308`)
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	out := oracletest.Output(t, py+" testdata/pyvalues.py", in, os.Stderr)
	live := readPythonValues(t, out)
	if len(live) != len(texts) {
		t.Fatalf("oracle answered %d lines for %d texts", len(live), len(texts))
	}
	if !bytes.HasPrefix(out, b) {
		t.Errorf("the recorded testdata/pyvalues.jsonl differs from this Python's output:\n%s", strings.TrimPrefix(string(out), string(b)))
	}
	checkPythonValues(t, live)
}

// TestGoValues: the Go values ports build print as the Python values they
// stand for.
func TestGoValues(t *testing.T) {
	t.Parallel()
	s := "it's"
	var none *string
	for _, tc := range []struct {
		name           string
		v              any
		typ, str, repr string
	}{
		{"optional str", &s, "str", "it's", `"it's"`},
		{"optional None", none, "NoneType", "None", "None"},
		{"str list", []string{"a", "b'"}, "list", `['a', "b'"]`, `['a', "b'"]`},
		{"bool", false, "bool", "False", "False"},
		{"int", 3, "int", "3", "3"},
		{"float", 2.0, "float", "2.0", "2.0"},
		{"ordered dict", func() *Dict { d := &Dict{}; d.Set("b", 1); d.Set("a", nil); return d }(), "dict", "{'b': 1, 'a': None}", "{'b': 1, 'a': None}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := TypeName(tc.v); got != tc.typ {
				t.Errorf("TypeName = %q; want %q", got, tc.typ)
			}
			if got := Str(tc.v); got != tc.str {
				t.Errorf("Str = %q; want %q", got, tc.str)
			}
			if got := Repr(tc.v); got != tc.repr {
				t.Errorf("Repr = %q; want %q", got, tc.repr)
			}
		})
	}
}

// TestPythonLookups: DictKey, KeyError, Iterate and Len raise and yield what
// Python does (texts as CPython 3 words them).
func TestPythonLookups(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		json    string
		key     string
		ok      bool
		keyErr  string
		iter    string // Repr(list(v)) or the TypeError
		keyText string // str(KeyError(v))
		length  string // len(v) or the TypeError
	}{
		{`"ab"`, "ab", true, "", "['a', 'b']", "'ab'", "2"},
		{`"é"`, "é", true, "", "['é']", "'é'", "1"},
		{`1`, "", false, "", "'int' object is not iterable", "1", "object of type 'int' has no len()"},
		{`null`, "", false, "", "'NoneType' object is not iterable", "None", "object of type 'NoneType' has no len()"},
		{`[1]`, "", false, "unhashable type: 'list'", "[1]", "[1]", "1"},
		{`{"x": 1, "y": 2}`, "", false, "unhashable type: 'dict'", "['x', 'y']", "{'x': 1, 'y': 2}", "2"},
	} {
		v, err := Decode([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		k, ok, err := DictKey(v)
		if k != tc.key || ok != tc.ok || errText(err) != tc.keyErr {
			t.Errorf("DictKey(%s) = %q, %v, %v; want %q, %v, %q", tc.json, k, ok, err, tc.key, tc.ok, tc.keyErr)
		}
		items, err := Iterate(v)
		got := errText(err)
		if err == nil {
			got = Repr(items)
		}
		if got != tc.iter {
			t.Errorf("Iterate(%s) = %s; want %s", tc.json, got, tc.iter)
		}
		if got := KeyError(v).Error(); got != tc.keyText {
			t.Errorf("KeyError(%s) = %s; want %s", tc.json, got, tc.keyText)
		}
		n, err := Len(v)
		if got := errText(err); err == nil && fmt.Sprint(n) != tc.length || err != nil && got != tc.length {
			t.Errorf("Len(%s) = %d, %v; want %s", tc.json, n, err, tc.length)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
