package telehealth

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Python's datetime.strptime turns its format into a regular expression
// and matches it at the start of the string, then complains about leftover
// text. The directives the tools use accept one-digit months, days and
// hours ("2025-9-3", "9:05"), a space before a one-digit day, and any run of
// whitespace where the format has a space. strptime reproduces that with the
// same alternatives, tried in the same order, with backtracking.

type strptimeField struct {
	lit  string   // a literal ("-", ":"), or
	ws   bool     // one or more whitespace characters, or
	alts []string // alternatives: 'd' is a digit, ' ' a space, others literal
	code byte     // Y m d H M
}

var (
	fieldY = strptimeField{alts: []string{"dddd"}, code: 'Y'}
	fieldm = strptimeField{alts: []string{"1[0-2]", "0[1-9]", "[1-9]"}, code: 'm'}
	fieldd = strptimeField{alts: []string{"3[01]", "[12]d", "0[1-9]", "[1-9]", " [1-9]"}, code: 'd'}
	fieldH = strptimeField{alts: []string{"2[0-3]", "[0-1]d", "d"}, code: 'H'}
	fieldM = strptimeField{alts: []string{"[0-5]d", "d"}, code: 'M'}
	dash   = strptimeField{lit: "-"}
	colon  = strptimeField{lit: ":"}
	space  = strptimeField{ws: true}
)

const (
	dateFormat     = "%Y-%m-%d"
	dateTimeFormat = "%Y-%m-%d %H:%M"
)

// The two formats as fields (read-only tables).
var (
	dateFields     = []strptimeField{fieldY, dash, fieldm, dash, fieldd}
	dateTimeFields = []strptimeField{fieldY, dash, fieldm, dash, fieldd, space, fieldH, colon, fieldM}
)

// fieldValues holds the numbers matched for Y, m, d, H, M.
type fieldValues [5]int

func slot(code byte) int { return strings.IndexByte("YmdHM", code) }

// strptime parses s with "%Y-%m-%d" or "%Y-%m-%d %H:%M". The error text is
// the ValueError's.
func strptime(s, format string) (time.Time, error) {
	fields := dateFields
	if format == dateTimeFormat {
		fields = dateTimeFields
	}
	var vals fieldValues
	end, ok := matchFields(s, 0, fields, &vals)
	if !ok {
		return time.Time{}, fmt.Errorf("time data %s does not match format %s", pyjson.ReprString(s), pyjson.ReprString(format))
	}
	if end != len(s) {
		return time.Time{}, fmt.Errorf("unconverted data remains: %s", s[end:])
	}
	y, m, d := vals[0], vals[1], vals[2]
	if y < 1 {
		return time.Time{}, fmt.Errorf("year %d is out of range", y)
	}
	if d > daysIn(y, m) {
		return time.Time{}, fmt.Errorf("day is out of range for month")
	}
	return time.Date(y, time.Month(m), d, vals[3], vals[4], 0, 0, time.UTC), nil
}

func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// matchFields matches fields at s[pos:], trying alternatives in order and
// backtracking, like the regular expression. It returns the end of the match.
func matchFields(s string, pos int, fields []strptimeField, vals *fieldValues) (int, bool) {
	if len(fields) == 0 {
		return pos, true
	}
	f, rest := fields[0], fields[1:]
	switch {
	case f.lit != "":
		if strings.HasPrefix(s[pos:], f.lit) {
			return matchFields(s, pos+len(f.lit), rest, vals)
		}
		return 0, false
	case f.ws:
		// Greedy \s+, giving back one character at a time.
		var ends [16]int
		n := 0
		for i := pos; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !pyjson.IsSpace(r) {
				break
			}
			i += size
			if n < len(ends) {
				ends[n] = i
				n++
			} else {
				ends[n-1] = i // a very long run: only its end matters here
			}
		}
		for k := n - 1; k >= 0; k-- {
			if end, ok := matchFields(s, ends[k], rest, vals); ok {
				return end, true
			}
		}
		return 0, false
	}
	for _, alt := range f.alts {
		n, v, ok := matchAlt(s[pos:], alt)
		if !ok {
			continue
		}
		if end, ok := matchFields(s, pos+n, rest, vals); ok {
			vals[slot(f.code)] = v
			return end, true
		}
	}
	return 0, false
}

// matchAlt matches one alternative at the start of s and returns the length
// matched and the number's value.
func matchAlt(s, alt string) (int, int, bool) {
	i, v := 0, 0
	for j := 0; j < len(alt); j++ {
		if i >= len(s) {
			return 0, 0, false
		}
		c := s[i]
		switch alt[j] {
		case 'd':
			if c < '0' || c > '9' {
				return 0, 0, false
			}
			v = v*10 + int(c-'0')
		case '[':
			k := strings.IndexByte(alt[j:], ']') + j
			lo, hi := alt[j+1], alt[k-1]
			if c < lo || c > hi {
				return 0, 0, false
			}
			v = v*10 + int(c-'0')
			j = k
		case ' ':
			if c != ' ' {
				return 0, 0, false
			}
		default:
			if c != alt[j] {
				return 0, 0, false
			}
			v = v*10 + int(c-'0')
		}
		i++
	}
	return i, v, true
}
