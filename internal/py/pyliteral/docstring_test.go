package pyliteral

import (
	"slices"
	"testing"
)

// TestParseDocstring compares with docstring_parser.parse (AUTO style); the
// expected values are what docstring_parser 0.18 returns for these inputs.
func TestParseDocstring(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text  string
		short, long string
		params      []DocParam
		meta        int
	}{
		{"empty", "", "", "", []DocParam{}, 0},
		{"short only", "Do a thing.", "Do a thing.", "", []DocParam{}, 0},
		{"short and long", "Do a thing.\n\n    More about it.\n    Even more.\n    ", "Do a thing.", "More about it.\nEven more.", []DocParam{}, 0},
		{"no blank line", "First.\nSecond line.\n", "First.", "Second line.", []DocParam{}, 0},
		{"leading newline", "\n    Starts on the second line.\n\n    Args:\n        x: An x.\n    ", "Starts on the second line.", "", []DocParam{{"x", "", "An x."}}, 1},
		{"args and returns", "Sum.\n\nArgs:\n    a: First number.\n    b (int): Second number,\n        on two lines.\n\nReturns:\n    The sum.\n\nRaises:\n    ValueError: Never.\n", "Sum.", "", []DocParam{{"a", "", "First number."}, {"b", "int", "Second number,\non two lines."}}, 4},
		{"optional type", "F.\n\nArgs:\n    a (str, optional): Maybe. Defaults to x.\n    b (int?): Also maybe.\n", "F.", "", []DocParam{{"a", "str", "Maybe. Defaults to x."}, {"b", "int", "Also maybe."}}, 2},
		{"arguments title", "F.\n\nArguments:\n    a: A.\n\nParameters:\n    b: B.\n", "F.", "", []DocParam{{"a", "", "A."}, {"b", "", "B."}}, 2},
		{"section ends at dedent", "F.\n\nArgs:\n    a: A.\nNot part of args.\n", "F.", "", []DocParam{{"a", "", "A."}}, 1},
		{"entry without colon", "F.\n\nArgs:\n    a: A.\n    b B.\n", "F.", "Args:\n    a: A.\n    b B.", []DocParam{}, 0},
		{"returns only", "F.\n\nReturns:\n    Something.\n", "F.", "", []DocParam{}, 1},
		{"empty param description", "F.\n\nArgs:\n    a:\n", "F.", "", []DocParam{{"a", "", ""}}, 1},
		{"title with trailing space", "F.\n\nArgs:   \n    a: A.\n", "F.", "", []DocParam{{"a", "", "A."}}, 1},
		{"tabs", "F.\n\n\tIndented with a tab.\n", "F.", "Indented with a tab.", []DocParam{}, 0},
		{"repeated section", "F.\n\nArgs:\n    a: A.\n\nArgs:\n    b: B.\n", "F.", "", []DocParam{{"b", "", "B."}}, 1},
		{"description after args entry", "F.\n\nArgs:\n    a: line one\n       line two\n\n       after blank\n", "F.", "", []DocParam{{"a", "", "line one\nline two\n\nafter blank"}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseDocstring(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if d.Short != tc.short || d.Long != tc.long {
				t.Errorf("short, long = %q, %q; want %q, %q", d.Short, d.Long, tc.short, tc.long)
			}
			if !slices.Equal(d.Params, tc.params) && !(len(d.Params) == 0 && len(tc.params) == 0) {
				t.Errorf("params = %q; want %q", d.Params, tc.params)
			}
			if d.Meta != tc.meta {
				t.Errorf("meta = %d; want %d", d.Meta, tc.meta)
			}
		})
	}
}

func TestDescription(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ short, long, want string }{
		{"Short.", "", "Short."},
		{"Short.", "Long\ntext.", "Short.\n\nLong\ntext."},
	} {
		if got := (Docstring{Short: tc.short, Long: tc.long}).Description(); got != tc.want {
			t.Errorf("Description(%q, %q) = %q; want %q", tc.short, tc.long, got, tc.want)
		}
	}
}

// TestCleanDoc follows inspect.cleandoc.
func TestCleanDoc(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"  one line  ", "one line  "},
		{"\n\n    a\n      b\n    c\n\n", "a\n  b\nc"},
		{"first\n    second\n   \n    third", "first\nsecond\n\nthird"},
		{"first\n        deep\n    shallow", "first\n    deep\nshallow"},
		{"x\n\ty", "x\ny"},
	} {
		if got := CleanDoc(tc.in); got != tc.want {
			t.Errorf("CleanDoc(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseDocstringOtherStyles(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"F.\n\n:param x: an x\n",
		"F.\n\n@param x: an x\n",
	} {
		if _, err := ParseDocstring(text); err == nil {
			t.Errorf("ParseDocstring(%q) succeeded; want an error (not Google style)", text)
		}
	}
}

// FuzzParseDocstring: any text parses or fails, never panics, and the
// description never holds more than the cleaned text.
func FuzzParseDocstring(f *testing.F) {
	f.Add("Sum.\n\nArgs:\n    a: First.\n    b (int): Second,\n        more.\n\nReturns:\n    The sum.\n")
	f.Add("F.\n\nArgs:\n    a: A.\n    b B.\n")
	f.Fuzz(func(t *testing.T, text string) {
		d, err := ParseDocstring(text)
		if err != nil {
			return
		}
		if len(d.Short)+len(d.Long) > len(CleanDoc(text)) {
			t.Errorf("description %q + %q longer than the text %q", d.Short, d.Long, text)
		}
	})
}
