package pyjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Python values. A JSON value decoded by Decode (nil, bool, string,
// json.Number, []any, *Dict) stands for what json.loads makes of it: a JSON
// number is an int unless its literal has a fraction or an exponent. TypeName,
// Str and Repr are Python's type(v).__name__, str(v) and repr(v) of such a
// value, and also of the Go values ports build (string, *string, bool, int,
// int64, float64, []string); every domain uses these, so one set of number
// rules holds everywhere.

// IsInt reports whether json.loads makes an int of the number literal n (no
// fraction, no exponent).
func IsInt(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }

// NumberFloat is the float json.loads makes of a float literal (an out of
// range literal is an infinity, as Python's float parser makes it), or the
// float nearest an int literal.
func NumberFloat(n json.Number) float64 {
	f, _ := strconv.ParseFloat(string(n), 64) // ±Inf on ErrRange, as Python
	return f
}

// intStr is str() of the int an int literal decodes to: its digits, with
// "-0" read as 0 (JSON has no leading zeros, so nothing else changes).
func intStr(n json.Number) string {
	if n == "-0" {
		return "0"
	}
	return string(n)
}

// TypeName is type(v).__name__. Other Go types are named as %T formats them.
func TypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case *string:
		if x == nil {
			return "NoneType"
		}
		return "str"
	case json.Number:
		if IsInt(x) {
			return "int"
		}
		return "float"
	case float64:
		return "float"
	case int, int64:
		return "int"
	case []any, []string:
		return "list"
	case *Dict:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// Str is Python's str(v): a string as it is, anything else as repr.
func Str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case *string:
		if x != nil {
			return *x
		}
	}
	return Repr(v)
}

// Repr is Python's repr(v): strings quoted as Python quotes them,
// True/False/None, ints with all their digits, floats in Python's shortest
// repr (Float), lists and dicts with ", " and ": ". Go values of other types
// are written as json.dumps would (String).
func Repr(v any) string {
	var b strings.Builder
	repr(&b, v)
	return b.String()
}

func repr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(ReprString(x))
	case *string:
		if x == nil {
			b.WriteString("None")
		} else {
			b.WriteString(ReprString(*x))
		}
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(Float(x))
	case json.Number:
		if IsInt(x) {
			b.WriteString(intStr(x))
		} else {
			b.WriteString(Float(NumberFloat(x)))
		}
	case []string:
		b.WriteByte('[')
		for i, s := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ReprString(s))
		}
		b.WriteByte(']')
	case []any:
		b.WriteByte('[')
		for i, el := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			repr(b, el)
		}
		b.WriteByte(']')
	case *Dict:
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ReprString(k))
			b.WriteString(": ")
			repr(b, x.Values[i])
		}
		b.WriteByte('}')
	default:
		b.WriteString(String(v))
	}
}

// DictKey prepares v for a lookup in a dict with str keys (`v in d`,
// `d.get(v)`, `d[v]`): a str is the key; other hashable values match no key
// (ok false); lists and dicts raise TypeError.
func DictKey(v any) (key string, ok bool, err error) {
	switch x := v.(type) {
	case string:
		return x, true, nil
	case []any, *Dict:
		return "", false, fmt.Errorf("unhashable type: '%s'", TypeName(v))
	}
	return "", false, nil
}

// KeyError is str(KeyError(v)): the key's repr.
func KeyError(v any) error { return errors.New(Repr(v)) }

// ReprString quotes s as Python's repr(str) does.
func ReprString(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\\':
			b = append(b, '\\', '\\')
		case r == rune(quote):
			b = append(b, '\\', quote)
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20 || r == 0x7f:
			b = append(b, '\\', 'x', hexDigits[r>>4], hexDigits[r&0xf])
		case r < utf8.RuneSelf:
			b = append(b, byte(r))
		case unicode.IsPrint(r):
			b = utf8.AppendRune(b, r)
		case r <= 0xff:
			b = append(b, '\\', 'x', hexDigits[r>>4], hexDigits[r&0xf])
		case r <= 0xffff:
			b = append(b, '\\', 'u')
			b = append(b, hexDigits[(r>>12)&0xf], hexDigits[(r>>8)&0xf], hexDigits[(r>>4)&0xf], hexDigits[r&0xf])
		default:
			b = append(b, '\\', 'U')
			for sh := 28; sh >= 0; sh -= 4 {
				b = append(b, hexDigits[(r>>sh)&0xf])
			}
		}
	}
	return string(append(b, quote))
}

// Len is Python's len() of a decoded JSON value: a list's items, a str's
// characters, a dict's keys; other values have no len().
func Len(v any) (int, error) {
	switch x := v.(type) {
	case []any:
		return len(x), nil
	case string:
		return utf8.RuneCountInString(x), nil
	case *Dict:
		return x.Len(), nil
	}
	return 0, fmt.Errorf("object of type '%s' has no len()", TypeName(v))
}

// Iterate lists what `for x in v` yields: a list's items, a string's
// characters, a dict's keys; anything else is not iterable.
func Iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case string:
		out := make([]any, 0, utf8.RuneCountInString(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	case *Dict:
		out := make([]any, len(x.Keys))
		for i, k := range x.Keys {
			out[i] = k
		}
		return out, nil
	}
	return nil, fmt.Errorf("'%s' object is not iterable", TypeName(v))
}
