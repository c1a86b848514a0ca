package banking

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyops"
)

// Python semantics over the values records and arguments hold: nil, bool,
// string, int, float64, json.Number (an int literal is an int, others a
// float), []any and *pyjson.Dict. The tools of this domain take raw JSON
// values (upstream passes json.loads' result to the method), so every
// operation here does what CPython does with such a value, errors included.

// str is str(v).
func str(v any) string { return pyjson.Str(v) }

// repr is repr(v).
func repr(v any) string { return pyjson.Repr(v) }

// typeName is type(v).__name__.
func typeName(v any) string { return pyjson.TypeName(v) }

// number is v as a Python number: ok when v is a bool, an int or a float.
func number(v any) (f float64, isInt, ok bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true, true
		}
		return 0, true, true
	case int:
		return float64(x), true, true
	case int64:
		return float64(x), true, true
	case float64:
		return x, false, true
	case json.Number:
		return pyjson.NumberFloat(x), pyjson.IsInt(x), true
	}
	return 0, false, false
}

// truthy is bool(v).
func truthy(v any) bool {
	if f, _, ok := number(v); ok {
		return f != 0
	}
	return pyjson.Truthy(v)
}

// Equality, ordering, membership and exceptions are CPython's, as pyops
// has them for every ported environment.
var (
	eq       = pyops.Eq
	contains = pyops.Contains
)

// compare is the ordering v OP w for OP one of < <= > >=, or the TypeError
// Python raises.
func compare(v, w any, op string) (bool, error) { return pyops.Compare(op, v, w) }

func typeErr(format string, a ...any) error { return pyops.TypeError(format, a...) }

func valueErr(format string, a ...any) error { return pyops.ValueError(fmt.Sprintf(format, a...)) }

// isTypeError reports whether err is a Python TypeError.
func isTypeError(err error) bool { return pyops.IsType(err, "TypeError") }

// toFloat is float(v).
func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	}
	f, err := pyjson.ToFloat(v)
	if err != nil {
		if strings.HasPrefix(err.Error(), "could not convert") {
			return 0, valueErr("%s", err.Error())
		}
		return 0, typeErr("%s", err.Error())
	}
	return f, nil
}

// toInt is int(v) for a number (a float is truncated toward zero) or a
// string of an integer.
func toInt(v any) (int64, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case float64:
		if math.IsInf(x, 0) {
			return 0, &pyops.Error{Type: "OverflowError", Msg: "cannot convert float infinity to integer"}
		}
		if math.IsNaN(x) {
			return 0, valueErr("cannot convert float NaN to integer")
		}
		return int64(x), nil
	case json.Number:
		if pyjson.IsInt(x) {
			n, err := strconv.ParseInt(string(x), 10, 64)
			if err == nil {
				return n, nil
			}
		}
		return toInt(pyjson.NumberFloat(x))
	case string:
		t := strings.ReplaceAll(strings.TrimFunc(x, pyjson.IsSpace), "_", "")
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return n, nil
		}
		return 0, valueErr("invalid literal for int() with base 10: %s", repr(x))
	}
	return 0, typeErr("int() argument must be a string, a bytes-like object or a real number, not '%s'", typeName(v))
}

// fixed is f"{v:.Nf}".
func fixed(v any, n int) (string, error) {
	f, _, ok := number(v)
	if !ok {
		return "", valueErr("Unknown format code 'f' for object of type '%s'", typeName(v))
	}
	return pyjson.FormatFixed(f, n), nil
}

// mustFixed is fixed for a value known to be a number.
func mustFixed(f float64, n int) string { return pyjson.FormatFixed(f, n) }

// isDigit is str.isdigit() for the characters a JSON string can hold
// (Unicode decimal and digit characters; ASCII digits in practice).
func isDigit(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			if r < utf8.RuneSelf {
				return false
			}
			if !unicode.IsDigit(r) {
				return false
			}
		}
	}
	return true
}

// strLen is len(s) in characters.
func strLen(s string) int { return utf8.RuneCountInString(s) }

// title is str.title().
func title(s string) string { return pyjson.Title(s) }

// jsonIndent is json.dumps(v, indent=2).
func jsonIndent(v any) string {
	b, err := pyjson.MarshalOptions(v, pyjson.Options{Indent: 2})
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

// pyList is repr of a list of strings.
func pyList(items []string) string { return pyjson.Repr(items) }
