package pyliteral

import (
	"errors"
	"strings"
	"testing"
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
