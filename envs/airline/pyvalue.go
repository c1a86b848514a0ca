package airline

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/pyjson"
)

// Upstream calls tools with the model's JSON arguments as Python keyword
// arguments and never checks them against the schema, so a tool sees whatever
// json.loads produced. The airline tools therefore take their arguments as
// decoded JSON values (see pyjson.Decode: *pyjson.Dict, []any, json.Number,
// string, bool, nil) and check them where and as upstream's Python would,
// with the same error texts. Package pyjson gives those values Python's type
// names, str(), repr(), hashing and iteration; the helpers below add the
// numbers upstream's arithmetic sees and pydantic's validation.

// numOf returns v as a Python number if it is one (bool is not accepted
// here).
func numOf(v any) (Num, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return Num{}, false
	}
	if !pyjson.IsInt(n) {
		return Float(pyjson.NumberFloat(n)), true
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil { // beyond int64: keep the magnitude as a float
		return Float(pyjson.NumberFloat(n)), true
	}
	return Int(i), true
}

// pydantic v2 validation errors, formatted like str(ValidationError) of
// pydantic 2.12 (upstream's locked version).

const pydanticURL = "https://errors.pydantic.dev/2.12/v/"

type lineError struct {
	loc   string // dotted location, e.g. "passengers.0.dob"
	kind  string // error type, e.g. "missing"
	msg   string
	input any
}

// validationError is a pydantic ValidationError for one model.
type validationError struct {
	title string
	lines []lineError
}

func (e *validationError) Error() string {
	var b strings.Builder
	n := len(e.lines)
	fmt.Fprintf(&b, "%d validation error", n)
	if n != 1 {
		b.WriteByte('s')
	}
	fmt.Fprintf(&b, " for %s\n", e.title)
	for i, l := range e.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if l.loc != "" {
			b.WriteString(l.loc)
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "  %s [type=%s, input_value=%s, input_type=%s]\n    For further information visit %s%s",
			l.msg, l.kind, truncateRepr(pyjson.Repr(l.input)), pyjson.TypeName(l.input), pydanticURL, l.kind)
	}
	return b.String()
}

// truncateRepr shortens long input reprs as pydantic-core does (more than 50
// bytes: the first 25 and the last 24, on character boundaries).
func truncateRepr(s string) string {
	if len(s) <= 50 {
		return s
	}
	head := 25
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - 24
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + "..." + s[tail:]
}

// validator collects line errors for one model.
type validator struct {
	prefix string // location prefix, "" or e.g. "passengers.0."
	lines  []lineError
}

func (v *validator) add(loc, kind, msg string, input any) {
	v.lines = append(v.lines, lineError{loc: v.prefix + loc, kind: kind, msg: msg, input: input})
}

func (v *validator) err(title string) error {
	if len(v.lines) == 0 {
		return nil
	}
	return &validationError{title: title, lines: v.lines}
}

// field fetches a required field of an input dict.
func (v *validator) field(d *pyjson.Dict, name string) (any, bool) {
	x, ok := d.Get(name)
	if !ok {
		v.add(name, "missing", "Field required", d)
	}
	return x, ok
}

// str validates a str field (lax mode still rejects non-strings).
func (v *validator) str(loc string, x any) string {
	s, ok := x.(string)
	if !ok {
		v.add(loc, "string_type", "Input should be a valid string", x)
	}
	return s
}

// int validates an int field in lax mode: ints, integral floats, bools and
// integer strings are accepted.
func (v *validator) int(loc string, x any) int {
	switch t := x.(type) {
	case bool:
		if t {
			return 1
		}
		return 0
	case json.Number:
		if pyjson.IsInt(t) {
			i, err := strconv.ParseInt(string(t), 10, 64)
			if err != nil {
				v.add(loc, "int_too_large", "ledgerbench supports integers within 64 bits only", x)
			}
			return int(i)
		}
		f := pyjson.NumberFloat(t)
		switch {
		case math.IsInf(f, 0) || math.IsNaN(f):
			v.add(loc, "finite_number", "Input should be a finite number", x)
		case f != math.Trunc(f):
			v.add(loc, "int_from_float", "Input should be a valid integer, got a number with a fractional part", x)
		case f >= 1<<63 || f < -(1<<63):
			v.add(loc, "int_parsing_size", "Unable to parse input string as an integer, exceeded maximum size", x)
		default:
			return int(f)
		}
		return 0
	case string:
		digits := strings.TrimSpace(t)
		if whole, frac, ok := strings.Cut(digits, "."); ok && strings.Trim(frac, "0") == "" {
			digits = whole // pydantic accepts "3.0" and "3.00"
		}
		i, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			v.add(loc, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", x)
		}
		return int(i)
	}
	v.add(loc, "int_type", "Input should be a valid integer", x)
	return 0
}

// float validates a float field in lax mode.
func (v *validator) float(loc string, x any) float64 {
	switch t := x.(type) {
	case bool:
		if t {
			return 1
		}
		return 0
	case json.Number:
		return pyjson.NumberFloat(t)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			v.add(loc, "float_parsing", "Input should be a valid number, unable to parse string as a number", x)
		}
		return f
	}
	v.add(loc, "float_type", "Input should be a valid number", x)
	return 0
}

// literal validates a Literal[...] of strings.
func (v *validator) literal(loc string, x any, allowed ...string) string {
	if s, ok := x.(string); ok {
		for _, a := range allowed {
			if s == a {
				return s
			}
		}
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = "'" + a + "'"
	}
	expected := quoted[len(quoted)-1]
	if len(quoted) > 1 {
		expected = strings.Join(quoted[:len(quoted)-1], ", ") + " or " + expected
	}
	v.add(loc, "literal_error", "Input should be "+expected, x)
	return ""
}

// Upstream's Literal types, in declaration order (it shows in messages).
var (
	flightTypes = []string{"round_trip", "one_way"}
	cabinTypes  = []string{"business", "economy", "basic_economy"}
	insurances  = []string{"yes", "no"}
)
