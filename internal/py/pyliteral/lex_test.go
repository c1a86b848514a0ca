package pyliteral

import (
	"slices"
	"testing"
)

// TestLexOperators: each operator is read as Python's tokenizer reads it,
// the longest spelling first, with its column in characters.
func TestLexOperators(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"a**=b", []string{"a", "**=", "b"}},
		{"a//=b", []string{"a", "//=", "b"}},
		{"a>>=b", []string{"a", ">>=", "b"}},
		{"a<<=b", []string{"a", "<<=", "b"}},
		{"a**b//c>>d<<e", []string{"a", "**", "b", "//", "c", ">>", "d", "<<", "e"}},
		{"f(...)", []string{"f", "(", "...", ")"}},
		{"a..b", []string{"a", ".", ".", "b"}},
		{"a.b", []string{"a", ".", "b"}},
		{"def f()->int", []string{"def", "f", "(", ")", "->", "int"}},
		{"(a:=b)", []string{"(", "a", ":=", "b", ")"}},
		{"a==b!=c<=d>=e", []string{"a", "==", "b", "!=", "c", "<=", "d", ">=", "e"}},
		{"a+=1;b-=1;c*=1;d/=1;e%=1;f&=1;g|=1;h^=1;i@=m", []string{"a", "+=", "1", ";", "b", "-=", "1", ";", "c", "*=", "1", ";",
			"d", "/=", "1", ";", "e", "%=", "1", ";", "f", "&=", "1", ";", "g", "|=", "1", ";", "h", "^=", "1", ";", "i", "@=", "m"}},
		{"a<b>c*d/e-f+g%h&i|j^k@l=m:n", []string{"a", "<", "b", ">", "c", "*", "d", "/", "e", "-", "f", "+", "g", "%", "h", "&",
			"i", "|", "j", "^", "k", "@", "l", "=", "m", ":", "n"}},
		{"x*", []string{"x", "*"}},
	} {
		l, err := newLexer([]byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			tk, err := l.next()
			if err != nil {
				t.Fatalf("%q: %v", tc.src, err)
			}
			if tk.kind == tEOF || tk.kind == tNewline {
				break
			}
			got = append(got, tk.text)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q; want %q", tc.src, got, tc.want)
		}
	}
}

// TestLexColumns: columns count characters, through comments, runs of
// blanks and non-ASCII names and strings.
func TestLexColumns(t *testing.T) {
	t.Parallel()
	l, err := newLexer([]byte("é = 'ü'  # ç comment\n\t  ab\f= \"x\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	type pos struct {
		text      string
		line, col int
	}
	var got []pos
	for {
		tk, err := l.next()
		if err != nil {
			t.Fatal(err)
		}
		if tk.kind == tEOF {
			break
		}
		got = append(got, pos{tk.text, tk.line, tk.col})
	}
	want := []pos{{"é", 1, 1}, {"=", 1, 3}, {"'ü'", 1, 5}, {"", 1, 21}, {"ab", 2, 4}, {"=", 2, 7}, {`"x"`, 2, 9}, {"", 2, 12}}
	if !slices.Equal(got, want) {
		t.Errorf("%v; want %v", got, want)
	}
}
