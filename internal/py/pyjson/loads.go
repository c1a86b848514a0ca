package pyjson

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// LoadsOptions are json.loads' keyword arguments that change the values.
type LoadsOptions struct {
	// IntAsFloat is parse_int=float: every integer literal becomes a float
	// (a float64), as floats already do.
	IntAsFloat bool
}

// DecodeError is Python's json.JSONDecodeError: str() of it is
// "<msg>: line L column C (char P)", positions counted in characters.
type DecodeError struct {
	Msg       string
	Pos       int // character offset
	Line, Col int
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: line %d column %d (char %d)", e.Msg, e.Line, e.Col, e.Pos)
}

// Loads is json.loads(s) of CPython 3.11 (strict mode): the same values as
// Decode (objects *Dict with a repeated key's last value at its first
// place, arrays []any, strings, bools, nil; an integer literal json.Number,
// or float64 with IntAsFloat; a literal with a fraction or exponent, NaN,
// Infinity and -Infinity a float64) and, for text that is not JSON, the
// *DecodeError json.loads raises, with its message and position.
func Loads(s string, o LoadsOptions) (any, error) {
	p := &loader{s: s, o: o}
	i := p.ws(0)
	v, i, err := p.value(i)
	if err != nil {
		return nil, err
	}
	i = p.ws(i)
	if i != len(s) {
		return nil, p.fail("Extra data", i)
	}
	return v, nil
}

type loader struct {
	s string
	o LoadsOptions
}

// fail builds the error at byte offset i, converted to Python's character
// positions.
func (p *loader) fail(msg string, i int) error {
	pre := p.s[:i]
	pos := utf8.RuneCountInString(pre)
	line := strings.Count(pre, "\n") + 1
	col := pos + 1
	if nl := strings.LastIndexByte(pre, '\n'); nl >= 0 {
		col = pos - utf8.RuneCountInString(pre[:nl])
	}
	return &DecodeError{Msg: msg, Pos: pos, Line: line, Col: col}
}

func (p *loader) ws(i int) int {
	for i < len(p.s) {
		switch p.s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (p *loader) value(i int) (any, int, error) {
	if i >= len(p.s) {
		return nil, i, p.fail("Expecting value", i)
	}
	switch c := p.s[i]; {
	case c == '"':
		return p.str(i + 1)
	case c == '{':
		return p.object(i + 1)
	case c == '[':
		return p.array(i + 1)
	case strings.HasPrefix(p.s[i:], "null"):
		return nil, i + 4, nil
	case strings.HasPrefix(p.s[i:], "true"):
		return true, i + 4, nil
	case strings.HasPrefix(p.s[i:], "false"):
		return false, i + 5, nil
	case strings.HasPrefix(p.s[i:], "NaN"):
		return math.NaN(), i + 3, nil
	case strings.HasPrefix(p.s[i:], "Infinity"):
		return math.Inf(1), i + 8, nil
	case strings.HasPrefix(p.s[i:], "-Infinity"):
		return math.Inf(-1), i + 9, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if v, j, ok := p.number(i); ok {
			return v, j, nil
		}
	}
	return nil, i, p.fail("Expecting value", i)
}

// number matches -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)? at i.
func (p *loader) number(i int) (any, int, bool) {
	s, j := p.s, i
	if j < len(s) && s[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		return k
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		j = digits()
	default:
		return nil, i, false
	}
	isFloat := false
	if j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
		j++
		j = digits()
		isFloat = true
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			j = k
			j = digits()
			isFloat = true
		}
	}
	lit := s[i:j]
	if isFloat || p.o.IntAsFloat {
		f, _ := strconv.ParseFloat(lit, 64) // ±Inf on overflow, as float()
		return f, j, true
	}
	return json.Number(lit), j, true
}

// str reads a string whose opening quote is at i-1.
func (p *loader) str(i int) (string, int, error) {
	s := p.s
	start := i - 1
	var b strings.Builder
	for {
		j := i
		for j < len(s) && s[j] != '"' && s[j] != '\\' && s[j] >= 0x20 {
			j++
		}
		b.WriteString(s[i:j])
		if j >= len(s) {
			return "", j, p.fail("Unterminated string starting at", start)
		}
		switch c := s[j]; {
		case c == '"':
			return b.String(), j + 1, nil
		case c < 0x20:
			return "", j, p.fail("Invalid control character at", j)
		}
		// a backslash at j
		if j+1 >= len(s) {
			return "", j, p.fail("Unterminated string starting at", start)
		}
		esc := s[j+1]
		switch esc {
		case '"', '\\', '/':
			b.WriteByte(esc)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, k, err := p.unicode(j)
			if err != nil {
				return "", k, err
			}
			b.WriteRune(r)
			i = k
			continue
		default:
			return "", j, p.fail("Invalid \\escape", j)
		}
		i = j + 2
	}
}

// unicode reads \uXXXX at j (and a following low surrogate).
func (p *loader) unicode(j int) (rune, int, error) {
	hex := func(at int) (rune, bool) {
		if at+6 > len(p.s) || p.s[at] != '\\' || p.s[at+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(p.s[at+2:at+6], 16, 32)
		if err != nil || strings.ContainsAny(p.s[at+2:at+6], "+-xX_") {
			return 0, false
		}
		return rune(n), true
	}
	r, ok := hex(j)
	if !ok {
		return 0, j, p.fail("Invalid \\uXXXX escape", j+1)
	}
	if utf16.IsSurrogate(r) && r < 0xdc00 {
		if r2, ok := hex(j + 6); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
			return utf16.DecodeRune(r, r2), j + 12, nil
		}
	}
	if utf16.IsSurrogate(r) {
		r = utf8.RuneError // a lone surrogate: Python keeps it; Go strings cannot
	}
	return r, j + 6, nil
}

func (p *loader) object(i int) (any, int, error) {
	d := &Dict{}
	i = p.ws(i)
	if i < len(p.s) && p.s[i] == '}' {
		return d, i + 1, nil
	}
	for {
		if i >= len(p.s) || p.s[i] != '"' {
			return nil, i, p.fail("Expecting property name enclosed in double quotes", i)
		}
		k, j, err := p.str(i + 1)
		if err != nil {
			return nil, j, err
		}
		j = p.ws(j)
		if j >= len(p.s) || p.s[j] != ':' {
			return nil, j, p.fail("Expecting ':' delimiter", j)
		}
		j = p.ws(j + 1)
		v, j, err := p.value(j)
		if err != nil {
			return nil, j, err
		}
		d.Set(k, v)
		j = p.ws(j)
		if j < len(p.s) && p.s[j] == '}' {
			return d, j + 1, nil
		}
		if j >= len(p.s) || p.s[j] != ',' {
			return nil, j, p.fail("Expecting ',' delimiter", j)
		}
		i = p.ws(j + 1)
	}
}

func (p *loader) array(i int) (any, int, error) {
	out := []any{}
	i = p.ws(i)
	if i < len(p.s) && p.s[i] == ']' {
		return out, i + 1, nil
	}
	for {
		v, j, err := p.value(i)
		if err != nil {
			return nil, j, err
		}
		out = append(out, v)
		j = p.ws(j)
		if j < len(p.s) && p.s[j] == ']' {
			return out, j + 1, nil
		}
		if j >= len(p.s) || p.s[j] != ',' {
			return nil, j, p.fail("Expecting ',' delimiter", j)
		}
		i = p.ws(j + 1)
	}
}
