package pyjson

import "testing"

// TestStrMethods: Lower, Strip and Title against str.lower(), str.strip()
// and str.title() as CPython 3 printed them for the same inputs.
func TestStrMethods(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, lower, strip, title string }{
		{"ABC", "abc", "ABC", "Abc"},
		{"abc", "abc", "abc", "Abc"},
		{"İstanbul", "i̇stanbul", "İstanbul", "İstanbul"},
		{"Mixed Case ÉÀ", "mixed case éà", "Mixed Case ÉÀ", "Mixed Case Éà"},
		{"2nd  o'neil_x", "2nd  o'neil_x", "2nd  o'neil_x", "2Nd  O'Neil_X"},
		{"hello world", "hello world", "hello world", "Hello World"},
		{"\u001c a \u3000", "\u001c a \u3000", "a", "\u001c A \u3000"},
		{" \t\n", " \t\n", "", " \t\n"},
		{"ǆ x", "ǆ x", "ǆ x", "ǅ X"},
		// Σ lowers to ς at the end of a word (CPython's Final_Sigma), in
		// title() as in lower().
		{"ΣΑΣ", "σας", "ΣΑΣ", "Σας"},
		{"ΟΔΥΣΣΕΥΣ", "οδυσσευς", "ΟΔΥΣΣΕΥΣ", "Οδυσσευς"},
		{"Σ", "σ", "Σ", "Σ"},
		{"ΑΣ.", "ας.", "ΑΣ.", "Ας."},
		{"Α'Σ", "α'ς", "Α'Σ", "Α'Σ"},
		{"ΑΣ'Α", "ασ'α", "ΑΣ'Α", "Ασ'Α"},
		{"ΑΣ\u0301", "ας\u0301", "ΑΣ\u0301", "Ας\u0301"},
		{"ΑΣ\u0301Β", "ασ\u0301β", "ΑΣ\u0301Β", "Ασ\u0301Β"},
		{"1Σ", "1σ", "1Σ", "1Σ"},
		{"ΑΣ1", "ας1", "ΑΣ1", "Ας1"},
		{"word ΣΑΣ, ΑΣ!", "word σας, ας!", "word ΣΑΣ, ΑΣ!", "Word Σας, Ας!"},
		{"ǅΣ", "ǆς", "ǅΣ", "ǅς"},
		{"aΣb", "aσb", "aΣb", "Aσb"},
		{"İİ", "i̇i̇", "İİ", "İi̇"},
		{"ΑΣ\u00adΒ", "ασ\u00adβ", "ΑΣ\u00adΒ", "Ασ\u00adΒ"},
	} {
		if got := Lower(tc.in); got != tc.lower {
			t.Errorf("Lower(%q) = %q; want %q", tc.in, got, tc.lower)
		}
		if got := Strip(tc.in); got != tc.strip {
			t.Errorf("Strip(%q) = %q; want %q", tc.in, got, tc.strip)
		}
		if got := Title(tc.in); got != tc.title {
			t.Errorf("Title(%q) = %q; want %q", tc.in, got, tc.title)
		}
	}
}

func TestIsDigit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r    rune
		want bool
	}{{'0', true}, {'9', true}, {'a', false}, {'²', true}, {'①', true}, {'٣', true}, {'½', false}, {'Ⅻ', false}, {'𝟎', true}, {'-', false}} {
		if got := IsDigit(c.r); got != c.want {
			t.Errorf("IsDigit(%q) = %v; want %v", c.r, got, c.want)
		}
	}
}
