package pyjson

import (
	"strings"
	"unicode"
)

// Python's str methods where upstream's code applies them to values the
// ports compare or print.

// IsSpace is str.isspace for one character: Unicode whitespace plus the
// ASCII information separators U+001C to U+001F.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// Strip is str.strip().
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// Lower is str.lower(). Go's per-rune mapping agrees with Python's full case
// mapping except that Python lowers U+0130 (İ) to "i̇" (two runes); the
// final-sigma rule (Python lowers a word-final Σ to ς) is not applied.
func Lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || (c >= 'A' && c <= 'Z') {
			return lower(s)
		}
	}
	return s // nothing to lower: no copy
}

func lower(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		if r == 'İ' {
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Title is str.title(): a cased character after an uncased one is
// upper-cased (title-cased), the others lower-cased ("2nd" → "2Nd").
func Title(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	prevCased := false
	for _, r := range s {
		if prevCased {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToTitle(r))
		}
		prevCased = unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)
	}
	return b.String()
}
