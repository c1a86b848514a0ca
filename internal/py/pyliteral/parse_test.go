package pyliteral

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// render writes a value back as Python source, for round-trip checks.
func render(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(pyjson.ReprString(x))
	case json.Number:
		b.WriteString(string(x))
	case float64:
		switch {
		case math.IsInf(x, 1):
			b.WriteString("1e999")
		case math.IsInf(x, -1):
			b.WriteString("-1e999")
		default:
			b.WriteString(pyjson.Float(x))
		}
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			render(b, e)
		}
		b.WriteByte(']')
	case Tuple:
		b.WriteByte('(')
		for _, e := range x {
			render(b, e)
			b.WriteString(", ")
		}
		b.WriteByte(')')
	case *pyjson.Dict:
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyjson.ReprString(k))
			b.WriteString(": ")
			render(b, x.Values[i])
		}
		b.WriteByte('}')
	case *Call:
		b.WriteString(x.Func)
		b.WriteByte('(')
		n := 0
		for _, a := range x.Args {
			if n > 0 {
				b.WriteString(", ")
			}
			render(b, a)
			n++
		}
		for i, k := range x.Kwargs.Keys {
			if n > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + "=")
			render(b, x.Kwargs.Values[i])
			n++
		}
		b.WriteByte(')')
	default:
		panic("render: unexpected value " + strconv.Quote(pyjson.String(v)))
	}
}

func show(v any) string {
	var b strings.Builder
	render(&b, v)
	return b.String()
}

func TestParseExpr(t *testing.T) {
	t.Parallel()
	// want is the value rendered back as Python source; each was checked
	// against CPython 3.11's ast.literal_eval (or the ast for calls).
	cases := []struct {
		name, src, want string
	}{
		{"int", "42", "42"},
		{"negative", "-7", "-7"},
		{"double sign", "-+-3", "3"},
		{"big int", "123456789012345678901234567890", "123456789012345678901234567890"},
		{"underscores", "1_000_000", "1000000"},
		{"hex", "0xFF", "255"},
		{"octal", "0o17", "15"},
		{"binary", "0b101", "5"},
		{"zeros", "000", "0"},
		{"float", "2.80", "2.8"},
		{"float no frac", "5.", "5.0"},
		{"float no int", ".5", "0.5"},
		{"exponent", "1e5", "100000.0"},
		{"exponent dot", "1.e-3", "0.001"},
		{"float overflow", "1e999", "1e999"},
		{"true", "True", "True"},
		{"none", "None", "None"},
		{"single", `'a"b'`, `'a"b'`},
		{"double", `"it's"`, `"it's"`},
		{"escapes", `"a\tb\nc\\d\'e\"f\x41\u00e9\U0001F600\101\0"`, `'a\tb\nc\\d\'e"fAé😀A\x00'`},
		{"unknown escape kept", `"\d\q"`, `'\\d\\q'`},
		{"line continuation in string", "\"ab\\\ncd\"", `'abcd'`},
		{"raw", `r"a\nb\"c"`, `'a\\nb\\"c'`},
		{"unicode prefix", `u"x"`, `'x'`},
		{"triple", "\"\"\"\n  line1\n  line2 \"quoted\" \n\"\"\"", `'\n  line1\n  line2 "quoted" \n'`},
		{"triple single", "'''a'b''c'''", `"a'b''c"`},
		{"concatenation", "\"a\" 'b'\n", `'ab'`},
		{"concatenation in parens", "(\"a\"\n  # comment\n  \"b\")", `'ab'`},
		{"empty list", "[]", "[]"},
		{"list trailing comma", "[1, 'a', None,]", "[1, 'a', None]"},
		{"nested", "[[1, [2]], {}]", "[[1, [2]], {}]"},
		{"dict order", `{"b": 1, "a": 2}`, `{'b': 1, 'a': 2}`},
		{"dict repeated key", `{"a": 1, "b": 2, "a": 3}`, `{'a': 3, 'b': 2}`},
		{"tuple", "(1, 2)", "(1, 2, )"},
		{"one tuple", "(1,)", "(1, )"},
		{"empty tuple", "()", "()"},
		{"parenthesised", "((3))", "3"},
		{"call", `Task(a=1, b=[Action(name="x", kwargs={"k": 2.5})])`, `Task(a=1, b=[Action(name='x', kwargs={'k': 2.5})])`},
		{"call positional", `f(1, "x", k=None)`, `f(1, 'x', k=None)`},
		{"dotted call", `types.Task()`, `types.Task()`},
		{"comments", "# head\n[1, # one\n 2] # tail\n", "[1, 2]"},
		{"crlf", "[1,\r\n2]\r\n", "[1, 2]"},
		{"bom", "\ufeff[1]", "[1]"},
		{"backslash continuation", "[1,\\\n 2]", "[1, 2]"},
		{"strip", "\"\"\"\n  a {x}\n\"\"\".strip()", `'a {x}'`},
		{"lstrip rstrip chained", "' a '.lstrip().rstrip()", `'a'`},
		{"strip python whitespace", "'\\x1c\\x0b a\\u3000'.strip()", `'a'`},
		{"strip in list", "[' a '.strip(), 1]", "['a', 1]"},
		{"join tuple", "\"\".join((\"a\", 'b' 'c',\n \"d\"))", `'abcd'`},
		{"join list with separator", "', '.join(['x', 'y']).strip()", `'x, y'`},
		{"join empty", "'-'.join(())", `''`},
		{"join in dict", `{"d": "".join(("Options: ", "A"))}`, `{'d': 'Options: A'}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ParseExpr([]byte(tc.src))
			if err != nil {
				t.Fatalf("ParseExpr(%q) error: %v", tc.src, err)
			}
			if got := show(v); got != tc.want {
				t.Errorf("ParseExpr(%q) = %s; want %s", tc.src, got, tc.want)
			}
		})
	}
}

func TestParseExprErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		line, col int
		msg       string
	}{
		{"name", "[1, foo]", 1, 5, "name foo is not a literal"},
		{"binary op", "1 + 2", 1, 3, `unexpected "+" after the literal`},
		{"f-string", `f"x"`, 1, 1, "f-strings are not supported"},
		{"bytes", `b"x"`, 1, 1, "bytes literals are not supported"},
		{"set", "{1, 2}", 1, 2, "set literals are not supported"},
		{"int key", "{1: 2}", 1, 2, "dict keys must be strings"},
		{"complex", "1j", 1, 1, "complex literals are not supported"},
		{"leading zero", "[\n 012]", 2, 2, "leading zeros"},
		{"bad underscore", "1__0", 1, 1, "invalid decimal literal"},
		{"unterminated", "'abc", 1, 1, "unterminated string literal"},
		{"unterminated triple", "[1,\n'''abc", 2, 1, "unterminated triple-quoted"},
		{"newline in string", "'ab\ncd'", 1, 1, "unterminated string literal"},
		{"unclosed", "[1, 2", 1, 6, "unclosed bracket"},
		{"unmatched", "1)", 1, 2, "unmatched ')'"},
		{"missing comma", "[1 2]", 1, 4, "expected ',' or ']'"},
		{"positional after keyword", "f(a=1, 2)", 1, 8, "positional argument follows keyword argument"},
		{"repeated keyword", "f(a=1, a=2)", 1, 8, "keyword argument repeated"},
		{"unpacking", "f(*x)", 1, 3, "argument unpacking"},
		{"call on value", "[1](2)", 1, 4, `unexpected "("`},
		{"surrogate", `"\ud800"`, 1, 2, "surrogate"},
		{"truncated hex", `"ab\x4"`, 1, 4, `truncated \x escape`},
		{"named escape", `"\N{DASH}"`, 1, 2, `\N{...}`},
		{"unary on string", `-"a"`, 1, 1, "unary - is supported on numbers only"},
		{"invalid utf8", "[1,\n\xff]", 2, 1, "invalid UTF-8"},
		{"empty", "", 1, 1, "unexpected end of file"},
		{"column counts characters", "['é', x]", 1, 7, "name x"},
		{"strip with arguments", "'xa'.strip('x')", 1, 12, "str.strip with arguments"},
		{"other string method", "'a'.upper()", 1, 4, `unexpected "." after the literal`},
		{"join of a name", "''.join(x)", 1, 9, "name x"},
		{"join of a dict", "''.join({})", 1, 9, "str.join of dict"},
		{"join of a number", "''.join([1])", 1, 9, "sequence item 0: expected str instance, int found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseExpr([]byte(tc.src))
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("ParseExpr(%q) error = %v; want *Error", tc.src, err)
			}
			if pe.Line != tc.line || pe.Col != tc.col || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("ParseExpr(%q) error = %v; want line %d, column %d: ...%s...", tc.src, err, tc.line, tc.col, tc.msg)
			}
		})
	}
}

const module = `from datetime import datetime

from tau_trait.types import Task, Action


def _format_currency(value: float) -> str:
    """Return a 2-decimal string. TASKS_FAKE = [1]"""
    TASKS_INNER = [2]
    return f"{value:.2f}"

x = {"TASKS_TEST": 1}; y = (TASKS_TEST
  == 3)

TASKS_TEST = [
    Task(
        annotator="0",
        instruction="""
        multi
        line""",
        actions=[Action(name="a", kwargs={"x": 1.5})],
        outputs= [],
    ),
]

print(TASKS_TEST)
`

func TestAssignment(t *testing.T) {
	t.Parallel()
	isTasks := func(n string) bool { return strings.HasPrefix(n, "TASKS_") }
	a, err := Assignment([]byte(module), isTasks)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "TASKS_TEST" || a.Line != 14 || a.Col != 1 {
		t.Errorf("Assignment = %s at %d:%d; want TASKS_TEST at 14:1", a.Name, a.Line, a.Col)
	}
	want := `[Task(annotator='0', instruction='\n        multi\n        line', actions=[Action(name='a', kwargs={'x': 1.5})], outputs=[])]`
	if got := show(a.Value); got != want {
		t.Errorf("value = %s\nwant    %s", got, want)
	}

	annotated := "TASKS_DEV: list[Task] = [1]\n"
	if a, err := Assignment([]byte(annotated), isTasks); err != nil || show(a.Value) != "[1]" {
		t.Errorf("annotated assignment = %v, %v", a, err)
	}

	if _, err := Assignment([]byte("x = 1\n"), isTasks); !errors.Is(err, ErrNoAssignment) {
		t.Errorf("no assignment: err = %v; want ErrNoAssignment", err)
	}
	twice := "TASKS_A = []\nTASKS_B = []\n"
	if _, err := Assignment([]byte(twice), isTasks); err == nil || !strings.Contains(err.Error(), "more than once") {
		t.Errorf("two assignments: err = %v", err)
	}
	bad := "TASKS_A = [\n  Task(x=foo),\n]\n"
	_, err = Assignment([]byte(bad), isTasks)
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Col != 10 {
		t.Errorf("bad value: err = %v; want line 2, column 10", err)
	}
	trailing := "TASKS_A = [] + []\n"
	if _, err := Assignment([]byte(trailing), isTasks); err == nil {
		t.Error("expression with an operator: want an error")
	}
}

func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{
		"[1, 'a', None, True, 2.5, {'k': (1,)}]",
		`Task(annotator="0", actions=[Action(name="x", kwargs={"a": -1})], outputs=[])`,
		"\"\"\"\n x \\n \\x41 \\u00e9\"\"\" 'y'",
		"r'\\d' u\"x\" # c\n",
		"0x_1F + 1e-5", "1_000.5e+3", "[\n1,\\\n2]", "{'a': {'b': []}}", "((((1,),),),)",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		v, err := ParseExpr(src)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error is not *Error: %v", err)
			}
			return
		}
		// A parsed value round-trips through its Python rendering.
		text := show(v)
		v2, err := ParseExpr([]byte(text))
		if err != nil {
			t.Fatalf("re-parse of %q: %v", text, err)
		}
		if show(v2) != text {
			t.Fatalf("round trip: %q became %q", text, show(v2))
		}
	})
}

func FuzzAssignment(f *testing.F) {
	f.Add([]byte(module))
	f.Add([]byte("TASKS_X: int = 1\nTASKS_Y = 2"))
	f.Add([]byte("def f():\n    TASKS_Z = 1\nTASKS_Z = (1,\n)"))
	f.Fuzz(func(t *testing.T, src []byte) {
		a, err := Assignment(src, func(n string) bool { return strings.HasPrefix(n, "TASKS_") })
		if err == nil && a == nil {
			t.Fatal("nil assignment without error")
		}
	})
}

func BenchmarkParseExpr(b *testing.B) {
	src := []byte(module)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Assignment(src, func(n string) bool { return strings.HasPrefix(n, "TASKS_") }); err != nil {
			b.Fatal(err)
		}
	}
}
