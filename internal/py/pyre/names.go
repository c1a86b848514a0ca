package pyre

import (
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/runenames"
)

var (
	namesOnce sync.Once
	names     map[string]rune
)

// lookupName is unicodedata.lookup for one character: a character's name
// (any case), or CJK UNIFIED IDEOGRAPH-XXXX. Name aliases and Hangul
// syllable names are not known (CPython knows them).
func lookupName(name string) (rune, bool) {
	n := strings.ToUpper(name)
	if hex, ok := strings.CutPrefix(n, "CJK UNIFIED IDEOGRAPH-"); ok && (len(hex) == 4 || len(hex) == 5) {
		v, err := strconv.ParseUint(hex, 16, 32)
		if err == nil && unicode.Is(unicode.Ideographic, rune(v)) && unicode.Is(unicode.Lo, rune(v)) && strings.ToUpper(strconv.FormatUint(v, 16)) == strings.TrimLeft(hex, "0") {
			return rune(v), true
		}
		return 0, false
	}
	namesOnce.Do(func() {
		names = make(map[string]rune, 40000)
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if s := runenames.Name(r); s != "" && s[0] != '<' {
				names[s] = r
			}
		}
	})
	r, ok := names[n]
	return r, ok
}
