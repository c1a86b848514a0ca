package telehealth

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/pyjson"
)

// Upstream tools receive their arguments as json.loads produced them and use
// them by duck typing: nothing checks types, so a number where a string was
// expected shows up in a message, fails on a method call, or is stored as
// is. Arguments are therefore kept as decoded JSON values (nil, bool,
// string, json.Number, []any, *pyjson.Dict); package pyjson gives them
// Python's type names, str(), repr(), hashing and iteration, and the helpers
// below the rest of the Python rules and error texts upstream's code meets.

// truthy is bool(v).
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		if pyjson.IsInt(x) {
			return strings.Trim(strings.TrimPrefix(string(x), "-"), "0") != ""
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f != 0
	case []any:
		return len(x) > 0
	case *pyjson.Dict:
		return x.Len() > 0
	}
	return true
}

// attrError is the AttributeError for calling a str method on a non-str.
func attrError(v any, attr string) error {
	return fmt.Errorf("'%s' object has no attribute '%s'", pyjson.TypeName(v), attr)
}

// strArg returns v when it is a str, else the AttributeError the method
// call would raise.
func strArg(v any, method string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", attrError(v, method)
	}
	return s, nil
}

// equalStr is `s == v` for a str s.
func equalStr(s string, v any) bool {
	x, ok := v.(string)
	return ok && x == s
}

// applyLimit applies `if limit is not None and limit > 0: items = items[:limit]`
// to a length n and returns the new length.
func applyLimit(limit any, n int) (int, error) {
	switch x := limit.(type) {
	case nil:
		return n, nil
	case bool:
		if x && n > 1 {
			return 1, nil
		}
		return n, nil
	case json.Number:
		if !pyjson.IsInt(x) {
			f, _ := strconv.ParseFloat(string(x), 64)
			if f > 0 {
				return 0, errors.New("slice indices must be integers or None or have an __index__ method")
			}
			return n, nil
		}
		var b big.Int
		b.SetString(string(x), 10)
		if b.Sign() > 0 && b.Cmp(big.NewInt(int64(n))) < 0 {
			return int(b.Int64()), nil
		}
		return n, nil
	}
	return 0, fmt.Errorf("'>' not supported between instances of '%s' and 'int'", pyjson.TypeName(limit))
}

// pyFloat is float(v).
func pyFloat(v any) (float64, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case json.Number:
		if pyjson.IsInt(x) {
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
		if f, ok := parsePyFloat(x); ok {
			return f, nil
		}
		return 0, fmt.Errorf("could not convert string to float: %s", pyjson.ReprString(x))
	}
	return 0, fmt.Errorf("float() argument must be a string or a real number, not '%s'", pyjson.TypeName(v))
}

// parsePyFloat parses a string the way float(str) does: surrounding
// whitespace, a sign, inf/infinity/nan, underscores between digits.
func parsePyFloat(s string) (float64, bool) {
	t := strings.TrimFunc(s, pyjson.IsSpace)
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

// readable is value.replace('_', ' ').title().
func readable(s string) string { return pyjson.Title(strings.ReplaceAll(s, "_", " ")) }

// fixed2 is f"{x:.2f}".
func fixed2(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "nan"
	}
	return pyjson.FormatFixed(x, 2)
}
