package pyliteral

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// lits shows literals compactly: target, value, fields (expr!conv:spec).
func showLits(ls []StringLit) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "%s:%q", l.Target, l.Value)
		if l.FString {
			var fs []string
			for _, f := range l.Specs {
				s := f.Expr
				if f.Conv != 0 {
					s += "!" + string(f.Conv)
				}
				if f.Spec != "" {
					s += ":" + f.Spec
				}
				fs = append(fs, s)
			}
			fmt.Fprintf(&b, " f%q %q", fs, l.Parts)
		}
	}
	return b.String()
}

func TestFuncStrings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, class, fn string
		want                 string // showLits, or "" for an error
		wantErr              error
	}{
		{"plain names", "def f(x):\n    y = f\"a {x} b\"\n    return y\n", "", "f",
			`y:"a {x} b" f["x"] ["a " " b"]`, nil},
		{"expressions, conversions and specs", "def f(a, c, d):\n" +
			"    return f\"{json.dumps({'k': a}, indent=2)} ${c:.2f} {card['last_4']}!{d!r} {', '.join(x)} {n:,}\"\n", "", "f",
			`return:"{json.dumps({'k': a}, indent=2)} ${c:.2f} {card['last_4']}!{d!r} {', '.join(x)} {n:,}" ` +
				`f["json.dumps({'k': a}, indent=2)" "c:.2f" "card['last_4']" "d!r" "', '.join(x)" "n:,"] ["" " $" " " "!" " " " " ""]`, nil},
		{"parenthesised concatenation across lines", "class K:\n    def m(self, a):\n        \"\"\"Doc.\"\"\"\n" +
			"        return (\n            f\"x {a}\\n\"  # comment\n            \"{lit}\\n\"\n            f\"y {{z}}\"\n        )\n", "K", "m",
			`:"Doc." | return:"x {a}\n{{lit}}\ny {{z}}" f["a"] ["x " "\n{lit}\ny {z}"]`, nil},
		{"a plain literal before an f-string keeps its braces", "def f(a):\n    s = (\"{\" f\"{a}\")\n", "", "f",
			`s:"{{{a}" f["a"] ["{" ""]`, nil},
		{"raise and nested defs", "def f(a):\n    def g():\n        return 'in g'\n    raise ValueError(f\"bad {a!s:>4}\")\nx = 'after'\n", "", "f",
			`return:"in g" | raise:"bad {a!s:>4}" f["a!s:>4"] ["bad " ""]`, nil},
		{"statements on separate lines stay apart", "def f():\n    a = 'x'\n    'y'\n", "", "f", `a:"x" | :"y"`, nil},
		{"nested spec field", "def f(x, w):\n    return f\"{x:{w}}\"\n", "", "f", `return:"{x:{w}}" f["x:{w}"] ["" ""]`, nil},
		{"!= inside an expression", "def f(a):\n    return f\"{a != 1}\"\n", "", "f", `return:"{a != 1}" f["a != 1"] ["" ""]`, nil},
		{"missing", "def g():\n    return 'x'\n", "", "f", "", ErrNoFunction},
		{"single closing brace", "def f():\n    return f\"a }\"\n", "", "f", "", nil},
		{"unclosed field", "def f():\n    return f\"{a\"\n", "", "f", "", nil},
		{"empty field", "def f():\n    return f\"{ }\"\n", "", "f", "", nil},
		{"bad conversion", "def f():\n    return f\"{a!x}\"\n", "", "f", "", nil},
		{"self-documenting field", "def f():\n    return f\"{a=}\"\n", "", "f", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ls, err := FuncStrings([]byte(tc.src), tc.class, tc.fn)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("FuncStrings = %s; want an error", showLits(ls))
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("error %v; want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := showLits(ls); got != tc.want {
				t.Errorf("FuncStrings =\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	ls, err := FuncStrings([]byte("def f(a, b):\n    return f\"<{a}>{{{b:.2f}}}\"\n"), "", "f")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		values []string
		want   string
		err    bool
	}{
		{"filled", []string{"1", "{2}"}, "<1>{{2}}", false},
		{"too few values", []string{"1"}, "", true},
		{"too many values", []string{"1", "2", "3"}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ls[0].Render(tc.values...)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("Render(%q) = %q, %v; want %q (error %v)", tc.values, got, err, tc.want, tc.err)
			}
		})
	}
	plain, _ := FuncStrings([]byte("def f():\n    return 'p {x}'\n"), "", "f")
	if got, err := plain[0].Render(); got != "p {x}" || err != nil {
		t.Errorf("plain Render = %q, %v", got, err)
	}
}

// TestAllFuncStrings: one pass gives what FuncStrings gives per function,
// methods under Class.name, the last of a name defined twice.
func TestAllFuncStrings(t *testing.T) {
	t.Parallel()
	src := []byte(`def top():
    return "t"

class A:
    X = "class var"

    def m(self):
        return f"a {self.x}"

    @staticmethod
    def n():
        def inner():
            return "inner"
        return "n"

class B(A):
    def m(self):
        raise E("b")

def top():
    return "last"
`)
	all, err := AllFuncStrings(src)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"top": `return:"last"`,
		"A.m": `return:"a {self.x}" f["self.x"] ["a " ""]`,
		"A.n": `return:"inner" | return:"n"`,
		"B.m": `raise:"b"`,
	}
	if len(all) != len(want) {
		t.Errorf("functions %d; want %d (%v)", len(all), len(want), all)
	}
	for name, w := range want {
		if got := showLits(all[name]); got != w {
			t.Errorf("%s = %s; want %s", name, got, w)
		}
		if name == "top" {
			continue
		}
		class, fn, _ := strings.Cut(name, ".")
		one, err := FuncStrings(src, class, fn)
		if err != nil || showLits(one) != showLits(all[name]) {
			t.Errorf("FuncStrings(%s) = %s, %v; AllFuncStrings %s", name, showLits(one), err, showLits(all[name]))
		}
	}
}

// FuzzFuncStrings: any source gives literals or an error, never a panic;
// every f-string's parts and fields agree, and AllFuncStrings agrees with
// FuncStrings on a module's only function.
func FuzzFuncStrings(f *testing.F) {
	f.Add([]byte("def f(a):\n    return (f\"x {json.dumps({'a': a}, indent=2)}\\n\"\n        \"y\")\n"))
	f.Add([]byte("def f():\n    raise X(f\"{a!r:>{w}} {b['k']}\")\n"))
	f.Add([]byte("def f(:\n    f\"{\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		ls, err := FuncStrings(src, "", "f")
		if err != nil {
			return
		}
		for _, l := range ls {
			if l.FString && (len(l.Parts) != len(l.Fields)+1 || len(l.Specs) != len(l.Fields)) {
				t.Fatalf("f-string %q: %d parts, %d fields, %d specs", l.Value, len(l.Parts), len(l.Fields), len(l.Specs))
			}
		}
		if bytes.Count(src, []byte("def")) != 1 || bytes.Contains(src, []byte("class")) {
			return // FuncStrings takes the first def f at any depth
		}
		all, err := AllFuncStrings(src)
		if err != nil {
			return // a fault after f: FuncStrings stops at f's end
		}
		if a, ok := all["f"]; ok && showLits(a) != showLits(ls) {
			t.Fatalf("AllFuncStrings f = %s; FuncStrings %s", showLits(a), showLits(ls))
		}
	})
}
