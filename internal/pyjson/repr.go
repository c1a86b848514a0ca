package pyjson

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TypeName is type(v).__name__ of a decoded value (or a Go string, bool,
// float64, int, []any, []string, *Dict): a JSON number is an int unless its
// literal has a fraction or an exponent, as json.loads decides. Other Go
// types are named as %T formats them.
func TypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "float"
		}
		return "int"
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

// Repr formats a decoded value (or a Go string, bool, number, []any, []string,
// *Dict) as Python's repr would: single-quoted strings, True/False/None.
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
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(Float(x))
	case json.Number:
		s := string(x)
		if strings.ContainsAny(s, ".eE") {
			f, _ := x.Float64()
			b.WriteString(Float(f))
		} else {
			b.WriteString(s)
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
