package pyliteral

import (
	"errors"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

func TestParseTemplate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in     string
		parts  []string
		fields []string
		err    string
	}{
		{"plain", []string{"plain"}, nil, ""},
		{"a {x} b {y}", []string{"a ", " b ", ""}, []string{"x", "y"}, ""},
		{"{{lit}} {x}", []string{"{lit} ", ""}, []string{"x"}, ""},
		{`{ "k": 1 }`, nil, nil, "not a bare name"},
		{"{x!r}", nil, nil, "not a bare name"},
		{"{x", nil, nil, "unclosed"},
		{"x}", nil, nil, "single '}'"},
	}
	for _, tc := range cases {
		f, err := ParseTemplate(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseTemplate(%q) error = %v; want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(f.Parts, "|") != strings.Join(tc.parts, "|") || strings.Join(f.Fields, "|") != strings.Join(tc.fields, "|") {
			t.Errorf("ParseTemplate(%q) = %q %q, %v; want %q %q", tc.in, f.Parts, f.Fields, err, tc.parts, tc.fields)
		}
	}
	f, _ := ParseTemplate("<{a}>{b}")
	if s, err := f.Format(map[string]string{"a": "1", "b": "{2}"}); s != "<1>{2}" || err != nil {
		t.Errorf("Format = %q, %v", s, err)
	}
	if _, err := f.Format(map[string]string{"a": "1"}); err == nil {
		t.Errorf("Format without b: no error")
	}
	if err := f.Check("a"); err == nil || !strings.Contains(err.Error(), "{b}") {
		t.Errorf("Check(a) = %v; want an error naming {b}", err)
	}
}

const localSrc = `X = """
  top
""".strip()
Y = " a" "b ".strip()


class C:
    def other(self):
        p = "not this"

    def target(self, n):
        """Doc."""
        p = """
        kept as written
        """
        if n:
            q = f"""
        n={n} {{x}}
        """
        return p


def target2():
    p = 1
`

func TestLocalString(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fn, name string
		parts    []string
		fields   []string
		err      string
	}{
		{"target", "p", []string{"\n        kept as written\n        "}, nil, ""},
		{"target", "q", []string{"\n        n=", " {x}\n        "}, []string{"n"}, ""},
		{"other", "p", []string{"not this"}, nil, ""},
		{"target", "missing", nil, nil, "missing in function target"},
		{"absent", "p", nil, nil, "function absent"},
		{"target2", "p", nil, nil, "expected a string literal"},
	}
	for _, tc := range cases {
		f, err := LocalString([]byte(localSrc), tc.fn, tc.name)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("LocalString(%s, %s) error = %v; want %q", tc.fn, tc.name, err, tc.err)
			}
			if strings.Contains(tc.err, "function") && !errors.Is(err, ErrNoLocal) {
				t.Errorf("LocalString(%s, %s) error %v does not wrap ErrNoLocal", tc.fn, tc.name, err)
			}
			continue
		}
		if err != nil || strings.Join(f.Parts, "|") != strings.Join(tc.parts, "|") || strings.Join(f.Fields, "|") != strings.Join(tc.fields, "|") {
			t.Errorf("LocalString(%s, %s) = %q %q, %v", tc.fn, tc.name, f.Parts, f.Fields, err)
		}
	}
}

func TestStringAssignmentStrip(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"X": "top", "Y": "ab"} {
		if got, err := StringAssignment([]byte(localSrc), name); got != want || err != nil {
			t.Errorf("StringAssignment(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := StringAssignment([]byte("Z = 'a'.upper()\n"), "Z"); err == nil {
		t.Errorf("unsupported method: %v", err)
	}
	if _, err := StringAssignment([]byte("Z = 1\n"), "Z"); err == nil {
		t.Errorf("non-string: no error")
	}
	if _, err := StringAssignment([]byte("Z = 1\n"), "W"); !errors.Is(err, ErrNoAssignment) {
		t.Errorf("missing: %v", err)
	}
}

func FuzzParseTemplate(f *testing.F) {
	f.Add("a {x} {{b}}")
	f.Add("{")
	f.Add("}}{y}")
	f.Fuzz(func(t *testing.T, s string) {
		tp, err := ParseTemplate(s)
		if err != nil {
			return
		}
		if len(tp.Parts) != len(tp.Fields)+1 {
			t.Fatalf("%d parts, %d fields", len(tp.Parts), len(tp.Fields))
		}
		vals := map[string]string{}
		for _, n := range tp.Fields {
			vals[n] = "{" + n + "}"
		}
		out, err := tp.Format(vals)
		if err != nil {
			t.Fatal(err)
		}
		// Substituting each field by itself gives the template back, up to
		// the escaping of literal braces.
		back, err := ParseTemplate(strings.NewReplacer("{", "{{", "}", "}}").Replace(out))
		if err != nil || len(back.Fields) != 0 || back.Parts[0] != out {
			t.Fatalf("round trip of %q: %q %v", s, back.Parts, err)
		}
	})
}

func TestLocalLiteralsAndReturns(t *testing.T) {
	t.Parallel()
	src := []byte(`
def fmt(kind, model):
    if kind == "a":
        provider = "Alpha"
    elif kind == "b":
        provider = "Beta"
    else:
        provider = kind or "fallback"
    if not kind:
        return ""
    return (
        f"Uses **{provider}** with "
        f"` + "`{model}`" + `."
    )

class K:
    def tool(self, txn):
        table = {"x": {"fee": 15, "when": txn.get("date", "Unknown")}}
        other = [1, 2]
        return table
`)
	got, err := LocalLiterals(src, [][2]string{{"tool", "table"}, {"tool", "other"}})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := got[0].(*pyjson.Dict).Get("x")
	when, _ := x.(*pyjson.Dict).Get("when")
	if c, ok := when.(*Call); !ok || c.Func != "txn.get" || len(c.Args) != 2 {
		t.Errorf("table.x.when = %#v; want the call txn.get(\"date\", \"Unknown\")", when)
	}
	if l, ok := got[1].([]any); !ok || len(l) != 2 {
		t.Errorf("other = %#v", got[1])
	}
	if _, err := LocalLiterals(src, [][2]string{{"tool", "missing"}}); !errors.Is(err, ErrNoLocal) {
		t.Errorf("missing local: %v; want ErrNoLocal", err)
	}
	provs, err := LocalStrings(src, "fmt", "provider")
	if err != nil {
		t.Fatal(err)
	}
	if len(provs) != 2 || provs[0].Parts[0] != "Alpha" || provs[1].Parts[0] != "Beta" {
		t.Errorf("providers %+v; want Alpha, Beta (the third is not a literal)", provs)
	}
	rets, err := ReturnStrings(src, "fmt")
	if err != nil {
		t.Fatal(err)
	}
	if len(rets) != 2 {
		t.Fatalf("returns %+v; want two", rets)
	}
	s, err := rets[1].Format(map[string]string{"provider": "P", "model": "M"})
	if err != nil || s != "Uses **P** with `M`." {
		t.Errorf("second return = %q, %v", s, err)
	}
}
