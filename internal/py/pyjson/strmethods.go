package pyjson

import (
	"strings"
	"unicode"
	"unicode/utf8"
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
// mapping except for U+0130 (İ), which Python lowers to "i̇" (two runes), and
// Σ, which Python lowers to ς in the Final_Sigma context (after a cased
// letter and not before one, case-ignorable characters skipped) and to σ
// elsewhere.
func Lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || (c >= 'A' && c <= 'Z') {
			return lower(s)
		}
	}
	return s // nothing to lower: no copy
}

func lower(s string) string {
	if !strings.ContainsRune(s, 'İ') && !strings.ContainsRune(s, 'Σ') {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s) + 2)
	for i, r := range rs {
		switch r {
		case 'İ':
			b.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(rs, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma is CPython's test for the Σ at rs[i]: a cased character before
// it and none after it, case-ignorable characters skipped both ways.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	for j = i + 1; j < len(rs) && caseIgnorable(rs[j]); j++ {
	}
	return j == len(rs) || !cased(rs[j])
}

// cased is Unicode's Cased property.
func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's Case_Ignorable property: marks, format
// characters, modifier letters and symbols, and the apostrophes, periods and
// colons Word_Break counts as MidLetter, MidNumLet or Single_Quote.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0x00B7, 0x0387, 0x055F, 0x05F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// Title is str.title(): a cased character after an uncased one is
// upper-cased (title-cased), the others lower-cased ("2nd" → "2Nd").
func Title(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	prevCased := false
	var rs []rune // s as runes, for a Σ's context
	for i, r := range s {
		if prevCased {
			if r == 'Σ' {
				if rs == nil {
					rs = []rune(s)
				}
				if finalSigma(rs, utf8.RuneCountInString(s[:i])) {
					r = 'ς'
				}
			}
			if r == 'İ' {
				b.WriteString("i\u0307")
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
		} else {
			b.WriteRune(unicode.ToTitle(r))
		}
		prevCased = unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)
	}
	return b.String()
}

// IsDigit is str.isdigit for one character under CPython 3.11 (Unicode
// 14.0): decimal digits and the other characters whose Numeric_Type is
// Digit (superscripts, circled digits, ...), which Go's unicode.IsDigit
// (Nd only) leaves out.
func IsDigit(r rune) bool {
	if r < 0x80 {
		return r >= '0' && r <= '9'
	}
	return unicode.Is(pyDigits, r)
}

// pyDigits lists the code points str.isdigit accepts (unicodedata 14.0.0).
var pyDigits = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x30, 0x39, 1},
		{0xB2, 0xB3, 1},
		{0xB9, 0xB9, 1},
		{0x660, 0x669, 1},
		{0x6F0, 0x6F9, 1},
		{0x7C0, 0x7C9, 1},
		{0x966, 0x96F, 1},
		{0x9E6, 0x9EF, 1},
		{0xA66, 0xA6F, 1},
		{0xAE6, 0xAEF, 1},
		{0xB66, 0xB6F, 1},
		{0xBE6, 0xBEF, 1},
		{0xC66, 0xC6F, 1},
		{0xCE6, 0xCEF, 1},
		{0xD66, 0xD6F, 1},
		{0xDE6, 0xDEF, 1},
		{0xE50, 0xE59, 1},
		{0xED0, 0xED9, 1},
		{0xF20, 0xF29, 1},
		{0x1040, 0x1049, 1},
		{0x1090, 0x1099, 1},
		{0x1369, 0x1371, 1},
		{0x17E0, 0x17E9, 1},
		{0x1810, 0x1819, 1},
		{0x1946, 0x194F, 1},
		{0x19D0, 0x19DA, 1},
		{0x1A80, 0x1A89, 1},
		{0x1A90, 0x1A99, 1},
		{0x1B50, 0x1B59, 1},
		{0x1BB0, 0x1BB9, 1},
		{0x1C40, 0x1C49, 1},
		{0x1C50, 0x1C59, 1},
		{0x2070, 0x2070, 1},
		{0x2074, 0x2079, 1},
		{0x2080, 0x2089, 1},
		{0x2460, 0x2468, 1},
		{0x2474, 0x247C, 1},
		{0x2488, 0x2490, 1},
		{0x24EA, 0x24EA, 1},
		{0x24F5, 0x24FD, 1},
		{0x24FF, 0x24FF, 1},
		{0x2776, 0x277E, 1},
		{0x2780, 0x2788, 1},
		{0x278A, 0x2792, 1},
		{0xA620, 0xA629, 1},
		{0xA8D0, 0xA8D9, 1},
		{0xA900, 0xA909, 1},
		{0xA9D0, 0xA9D9, 1},
		{0xA9F0, 0xA9F9, 1},
		{0xAA50, 0xAA59, 1},
		{0xABF0, 0xABF9, 1},
		{0xFF10, 0xFF19, 1},
	},
	R32: []unicode.Range32{
		{0x104A0, 0x104A9, 1},
		{0x10A40, 0x10A43, 1},
		{0x10D30, 0x10D39, 1},
		{0x10E60, 0x10E68, 1},
		{0x11052, 0x1105A, 1},
		{0x11066, 0x1106F, 1},
		{0x110F0, 0x110F9, 1},
		{0x11136, 0x1113F, 1},
		{0x111D0, 0x111D9, 1},
		{0x112F0, 0x112F9, 1},
		{0x11450, 0x11459, 1},
		{0x114D0, 0x114D9, 1},
		{0x11650, 0x11659, 1},
		{0x116C0, 0x116C9, 1},
		{0x11730, 0x11739, 1},
		{0x118E0, 0x118E9, 1},
		{0x11950, 0x11959, 1},
		{0x11C50, 0x11C59, 1},
		{0x11D50, 0x11D59, 1},
		{0x11DA0, 0x11DA9, 1},
		{0x16A60, 0x16A69, 1},
		{0x16AC0, 0x16AC9, 1},
		{0x16B50, 0x16B59, 1},
		{0x1D7CE, 0x1D7FF, 1},
		{0x1E140, 0x1E149, 1},
		{0x1E2F0, 0x1E2F9, 1},
		{0x1E950, 0x1E959, 1},
		{0x1F100, 0x1F10A, 1},
		{0x1FBF0, 0x1FBF9, 1},
	},
}
