package banking

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
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

// eq is v == w.
func eq(v, w any) bool {
	if a, _, ok := number(v); ok {
		b, _, ok := number(w)
		return ok && a == b
	}
	switch x := v.(type) {
	case nil:
		return w == nil
	case string:
		y, ok := w.(string)
		return ok && x == y
	case []any:
		y, ok := w.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !eq(x[i], y[i]) {
				return false
			}
		}
		return true
	case *pyjson.Dict:
		y, ok := w.(*pyjson.Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i, k := range x.Keys {
			yv, ok := y.Get(k)
			if !ok || !eq(x.Values[i], yv) {
				return false
			}
		}
		return true
	}
	return false
}

// errType is a Python TypeError; errValue a ValueError.
type pyError struct {
	kind string
	msg  string
}

func (e *pyError) Error() string { return e.msg }

func typeErr(format string, a ...any) error {
	return &pyError{kind: "TypeError", msg: fmt.Sprintf(format, a...)}
}

func valueErr(format string, a ...any) error {
	return &pyError{kind: "ValueError", msg: fmt.Sprintf(format, a...)}
}

// isTypeError reports whether err is a Python TypeError.
func isTypeError(err error) bool {
	var pe *pyError
	return errors.As(err, &pe) && pe.kind == "TypeError"
}

// compare is the ordering v OP w for OP one of < <= > >= (cmp is -1, 0 or
// 1 meaning <, == or >), or the TypeError Python raises.
func compare(v, w any, op string) (bool, error) {
	c, err := order(v, w, op)
	if err != nil {
		return false, err
	}
	switch op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

func order(v, w any, op string) (int, error) {
	if a, _, ok := number(v); ok {
		if b, _, ok := number(w); ok {
			switch {
			case a < b:
				return -1, nil
			case a > b:
				return 1, nil
			case a == b:
				return 0, nil
			}
			return 2, nil // NaN: every comparison false
		}
	}
	switch x := v.(type) {
	case string:
		if y, ok := w.(string); ok {
			return strings.Compare(x, y), nil
		}
	case []any:
		if y, ok := w.([]any); ok {
			for i := 0; i < len(x) && i < len(y); i++ {
				if eq(x[i], y[i]) {
					continue
				}
				return order(x[i], y[i], op)
			}
			switch {
			case len(x) < len(y):
				return -1, nil
			case len(x) > len(y):
				return 1, nil
			}
			return 0, nil
		}
	}
	return 0, typeErr("'%s' not supported between instances of '%s' and '%s'", op, typeName(v), typeName(w))
}

// contains is `item in container`.
func contains(container, item any) (bool, error) {
	switch c := container.(type) {
	case string:
		s, ok := item.(string)
		if !ok {
			return false, typeErr("'in <string>' requires string as left operand, not %s", typeName(item))
		}
		return strings.Contains(c, s), nil
	case []any:
		for _, el := range c {
			if eq(el, item) {
				return true, nil
			}
		}
		return false, nil
	case *pyjson.Dict:
		k, ok, err := pyjson.DictKey(item)
		if err != nil {
			return false, typeErr("%s", err.Error())
		}
		if !ok {
			return false, nil
		}
		_, found := c.Get(k)
		return found, nil
	}
	return false, typeErr("argument of type '%s' is not iterable", typeName(container))
}

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
			return 0, &pyError{kind: "OverflowError", msg: "cannot convert float infinity to integer"}
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

// attrErr is the AttributeError of calling a str method on another type.
func attrErr(v any, method string) error {
	return &pyError{kind: "AttributeError", msg: fmt.Sprintf("'%s' object has no attribute '%s'", typeName(v), method)}
}

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
