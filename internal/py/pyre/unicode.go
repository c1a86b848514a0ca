package pyre

import (
	"slices"
	"sync"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Case tables. sre lowers with the first code point of a character's full
// lowercase mapping and uppers with the first of its full uppercase one
// (SpecialCasing's unconditional entries, else the simple mapping). Go's
// unicode.ToLower agrees with the former on every code point; the
// uppercase differs where SpecialCasing maps a character to several (ß →
// SS): specialUpper holds those first code points. _EXTRA_CASES
// (re/_casefix.py) maps each lowered character to the other lowered
// characters of the group of characters sharing one full uppercase.
var (
	caseOnce     sync.Once
	specialUpper map[rune]rune
	extra        map[rune][]rune
)

func initCases() {
	specialUpper = map[rune]rune{}
	extra = map[rune][]rune{}
	up := cases.Upper(language.Und)
	groups := map[string][]rune{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		lo, su := unicode.ToLower(r), unicode.ToUpper(r)
		full := string(su)
		if unicode.IsLower(r) || unicode.IsTitle(r) {
			if f := up.String(string(r)); f != string(su) {
				full = f
				if first := []rune(f)[0]; first != su {
					specialUpper[r] = first
				}
			}
		}
		if lo == r && su == r && full == string(r) {
			continue // uncased
		}
		groups[full] = append(groups[full], r)
	}
	for _, g := range groups {
		var lows []rune
		for _, r := range g {
			if l := unicode.ToLower(r); !slices.Contains(lows, l) {
				lows = append(lows, l)
			}
		}
		if len(lows) < 2 {
			continue
		}
		slices.Sort(lows)
		for _, l := range lows {
			for _, o := range lows {
				if o != l {
					extra[l] = append(extra[l], o)
				}
			}
		}
	}
}

// extraCases is _EXTRA_CASES.get(lo, ()).
func extraCases(lo rune) []rune {
	caseOnce.Do(initCases)
	return extra[lo]
}

// inCategory is sre_category: \d \s \w and their negations, Unicode or
// ASCII.
func inCategory(c category, uni bool, ch rune) bool {
	switch c {
	case catDigit:
		return isDigitCat(uni, ch)
	case catNotDigit:
		return !isDigitCat(uni, ch)
	case catSpace:
		return isSpaceCat(uni, ch)
	case catNotSpace:
		return !isSpaceCat(uni, ch)
	case catWord:
		return isWord(uni, ch)
	case catNotWord:
		return !isWord(uni, ch)
	}
	return false
}

func isDigitCat(uni bool, ch rune) bool {
	if ch < 128 || !uni {
		return ch >= '0' && ch <= '9'
	}
	return unicode.Is(unicode.Nd, ch)
}

func isSpaceCat(uni bool, ch rune) bool {
	if ch < 128 || !uni {
		switch ch {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return true
		}
		return uni && ch >= 0x1c && ch <= 0x1f
	}
	return pyjson.IsSpace(ch)
}

// isWord is SRE_UNI_IS_WORD (str.isalnum or '_') or SRE_IS_WORD (ASCII).
func isWord(uni bool, ch rune) bool {
	if ch < 128 {
		return ch == '_' || ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
	}
	return uni && (unicode.IsLetter(ch) || unicode.IsNumber(ch))
}
