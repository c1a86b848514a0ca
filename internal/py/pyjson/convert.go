package pyjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Python's bool() and float() of decoded values.

// Truthy is bool(v).
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		if IsInt(x) {
			return strings.Trim(strings.TrimPrefix(string(x), "-"), "0") != ""
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f != 0
	case []any:
		return len(x) > 0
	case *Dict:
		return x.Len() > 0
	}
	return true
}

// ToFloat is float(v), with its errors.
func ToFloat(v any) (float64, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case json.Number:
		if IsInt(x) {
			var b big.Int
			b.SetString(string(x), 10)
			f, _ := new(big.Float).SetInt(&b).Float64()
			if math.IsInf(f, 0) {
				return 0, errors.New("int too large to convert to float")
			}
			return f, nil
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f, nil
	case string:
		if f, ok := parseFloat(x); ok {
			return f, nil
		}
		return 0, fmt.Errorf("could not convert string to float: %s", ReprString(x))
	}
	return 0, fmt.Errorf("float() argument must be a string or a real number, not '%s'", TypeName(v))
}

// parseFloat parses a string the way float(str) does: surrounding
// whitespace, a sign, inf/infinity/nan, underscores between digits.
func parseFloat(s string) (float64, bool) {
	t := strings.TrimFunc(s, IsSpace)
	body := t
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	if body == "" {
		return 0, false
	}
	// Digits with single underscores between them, an optional fraction
	// and exponent; at least one digit in the mantissa.
	clean := make([]byte, 0, len(t))
	digits := 0
	prevDigit := false
	state := 0 // 0 int part, 1 fraction, 2 exponent sign, 3 exponent digits
	expDigits := 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= '0' && c <= '9':
			clean = append(clean, c)
			prevDigit = true
			if state < 2 {
				digits++
			} else {
				state = 3
				expDigits++
			}
		case c == '_':
			if !prevDigit || i+1 >= len(body) || body[i+1] < '0' || body[i+1] > '9' {
				return 0, false
			}
			prevDigit = false
		case c == '.' && state == 0:
			clean = append(clean, c)
			state, prevDigit = 1, false
		case (c == 'e' || c == 'E') && state < 2 && digits > 0:
			clean = append(clean, 'e')
			state, prevDigit = 2, false
			if i+1 < len(body) && (body[i+1] == '+' || body[i+1] == '-') {
				clean = append(clean, body[i+1])
				i++
			}
		default:
			return 0, false
		}
	}
	if digits == 0 || (state >= 2 && expDigits == 0) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(clean), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	if strings.HasPrefix(t, "-") {
		f = -f
	}
	return f, true
}
