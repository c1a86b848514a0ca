package pyre

import (
	"context"
	"errors"
	"testing"
)

// TestFindAll: match spans as CPython 3.11's re.finditer printed them for
// the same patterns and texts (the oracle test compares many more).
func TestFindAll(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern string
		flags   Flags
		text    string
		want    []string
	}{
		{`a*`, 0, "baaab", []string{"", "aaa", "", ""}},
		{`\w*`, 0, "ab cd", []string{"ab", "", "cd", ""}},
		{`|a`, 0, "a", []string{"", "a", ""}},
		{`fee|charge`, IgnoreCase, "Fee charges FEE", []string{"Fee", "charge", "FEE"}},
		{`x{,2}`, 0, "xxxxx", []string{"xx", "xx", "x", ""}},
		{`(?<=a)b`, 0, "abab", []string{"b", "b"}},
		{`a++b`, 0, "aaab", []string{"aaab"}},
		{`\bcard\b`, 0, "card cards card", []string{"card", "card"}},
		{`(a|b)*\1`, 0, "abab", nil},
		{`k`, IgnoreCase, "K k \u212a", []string{"K", "k", "\u212a"}},
		{`s`, IgnoreCase, "s S \u017f", []string{"s", "S", "\u017f"}},
		{`^\w+$`, Multiline, "ab\ncd\n", []string{"ab", "cd"}},
		{`\d+`, 0, "a٣4b", []string{"٣4"}},
		{`(?i:A)b`, 0, "ab Ab aB", []string{"ab", "Ab"}},
	} {
		re, err := Compile(tc.pattern, tc.flags)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tc.pattern, err)
		}
		ms, err := re.FindAll(context.Background(), tc.text)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range ms {
			s, _ := m.Group(0)
			got = append(got, s)
		}
		if len(got) != len(tc.want) {
			t.Errorf("finditer(%q, %q) = %q; want %q", tc.pattern, tc.text, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("finditer(%q, %q) = %q; want %q", tc.pattern, tc.text, got, tc.want)
				break
			}
		}
	}
}

// TestCompileErrors: what re.compile rejects, with re.error's texts, and
// the exceptions it raises that are not re.error.
func TestCompileErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ pattern, want string }{
		{`(`, "missing ), unterminated subpattern at position 0"},
		{`a**`, "multiple repeat at position 2"},
		{`[z-a]`, "bad character range z-a at position 1"},
		{`\q`, `bad escape \q at position 0`},
		{`(?i)x(?i)`, "global flags not at the start of the expression at position 5"},
		{`a{3,2}`, "min repeat greater than max repeat at position 2"},
		{`(?<=a+)b`, "look-behind requires fixed-width pattern"},
		{`\N{BOGUS}`, "undefined character name 'BOGUS' at position 0"},
		{`x)`, "unbalanced parenthesis at position 1"},
	} {
		_, err := Compile(tc.pattern, 0)
		var e *Error
		if !errors.As(err, &e) || err.Error() != tc.want {
			t.Errorf("Compile(%q) = %v; want re.error %q", tc.pattern, err, tc.want)
		}
	}
	for _, p := range []string{`a{99999999999}`, `(?a)(?u)x`} {
		_, err := Compile(p, 0)
		var e *PyError
		if !errors.As(err, &e) {
			t.Errorf("Compile(%q) = %v; want an exception other than re.error", p, err)
		}
	}
	for _, p := range []string{`\N{EM DASH}`, `(?P<n>a)(?P=n)`, `a{,}`, `[]a]`, `(?x) a b # c`} {
		if _, err := Compile(p, 0); err != nil {
			t.Errorf("Compile(%q): %v", p, err)
		}
	}
}

func TestEscapeAndSub(t *testing.T) {
	t.Parallel()
	if got := Escape("a.b*c (d)-~#&\t"); got != `a\.b\*c\ \(d\)\-\~\#\&\	` {
		t.Errorf("Escape = %q", got)
	}
	re := MustCompile(`'[^']*'`, 0)
	if got := re.ReplaceLiteral(`cat 'a b' x 'y'`, `""`); got != `cat "" x ""` {
		t.Errorf("sub = %q", got)
	}
	re = MustCompile(`(\w+)=(\d+)`, 0)
	got := re.Sub("a=1, b=22", func(m *Match) string {
		k, _ := m.Group(1)
		v, _ := m.Group(2)
		return v + ":" + k
	})
	if got != "1:a, 22:b" {
		t.Errorf("sub with a function = %q", got)
	}
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	re := MustCompile(`(a*)*b`, 0)
	text := []rune("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := re.CountAll(ctx, text); !errors.Is(err, ErrCanceled) {
		t.Errorf("canceled: %v", err)
	}
}

// FuzzCompile: any pattern compiles or fails with an error, and matching
// it on a short text ends.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{`a*`, `(?P<x>a|b)(?P=x)`, `[\w-]+`, `(?<=\$)\d+`, `((a)|b)*\2`, `(?(1)a|b)`, `\N{DASH`, `(?x)a # b`} {
		f.Add(s, "aab$12 ba")
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 60 || len(text) > 40 {
			return
		}
		re, err := Compile(pattern, IgnoreCase)
		if err != nil {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, _ = re.CountAll(ctx, []rune(text))
	})
}
