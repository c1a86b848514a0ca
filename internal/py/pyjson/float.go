// Package pyjson writes values the way Python's json.dumps and repr do.
//
// Tool outputs are part of the benchmark: upstream serialises results with
// json.dumps (", " and ": " separators, ASCII escapes, Python float repr), so a
// port must produce the same bytes. The package also decodes JSON while keeping
// object key order, as Python dicts do.
//
// It is a top-level package, not internal, because the domains' database
// types implement pyjson's encoder interface in their exported methods.
package pyjson

import (
	"math"
	"strconv"
	"strings"
)

// Float formats f as Python's repr(float) does: the shortest digits that round
// trip, a ".0" on integral values, and exponent form below 1e-4 or from 1e16.
func Float(f float64) string {
	return string(AppendFloat(nil, f))
}

// AppendFloat appends Float(f) to b.
func AppendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	neg := false
	if s[0] == '-' {
		neg = true
		s = s[1:]
	}
	// s looks like d[.ddd]e±XX
	epos := strings.IndexByte(string(s), 'e')
	mant, expPart := s[:epos], s[epos+1:]
	exp, _ := strconv.Atoi(string(expPart))
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	// trim trailing zeros (shortest repr may still end with zeros for 0)
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if neg {
		b = append(b, '-')
	}
	decpt := exp + 1
	if digits[0] == '0' { // zero
		return append(b, "0.0"...)
	}
	if decpt <= -4 || decpt > 16 {
		b = append(b, digits[0])
		if len(digits) > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		e := decpt - 1
		if e < 0 {
			b = append(b, '-')
			e = -e
		} else {
			b = append(b, '+')
		}
		if e < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(e), 10)
	}
	n := len(digits)
	switch {
	case decpt <= 0:
		b = append(b, "0."...)
		for i := 0; i < -decpt; i++ {
			b = append(b, '0')
		}
		b = append(b, digits...)
	case decpt >= n:
		b = append(b, digits...)
		for i := 0; i < decpt-n; i++ {
			b = append(b, '0')
		}
		b = append(b, ".0"...)
	default:
		b = append(b, digits[:decpt]...)
		b = append(b, '.')
		b = append(b, digits[decpt:]...)
	}
	return b
}

// Round rounds x to n decimal places the way Python's round(x, n) does for
// the values the benchmark handles: correctly rounded, half to even on the
// binary value.
func Round(x float64, n int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	s := strconv.FormatFloat(x, 'f', n, 64)
	r, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return x
	}
	return r
}

// FormatFixed formats x like Python's f"{x:.nf}" (inf, -inf and nan as
// Python writes them).
func FormatFixed(x float64, n int) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "nan"
	}
	return strconv.FormatFloat(x, 'f', n, 64)
}
