// Package pydantic reproduces the pydantic v2 validation that upstream's
// tools run on their arguments when they build models from them
// (Passenger(**d), APNSettings(**d), ...): lax-mode coercion of decoded JSON
// values (see pyjson) and str(ValidationError) of pydantic 2.12, upstream's
// locked version, byte for byte. The expectations in the tests come from
// pydantic itself (testdata/probe.py).
package pydantic

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// URL is the documentation link pydantic appends to each line error (the
// error type follows it).
const URL = "https://errors.pydantic.dev/2.12/v/"

type LineError struct {
	Loc   string // dotted location, e.g. "passengers.0.dob"
	Kind  string // error type, e.g. "missing"
	Msg   string
	Input any
}

// ValidationError is a pydantic ValidationError for one model.
type ValidationError struct {
	Title string
	Lines []LineError
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	n := len(e.Lines)
	fmt.Fprintf(&b, "%d validation error", n)
	if n != 1 {
		b.WriteByte('s')
	}
	fmt.Fprintf(&b, " for %s\n", e.Title)
	for i, l := range e.Lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if l.Loc != "" {
			b.WriteString(l.Loc)
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "  %s [type=%s, input_value=%s, input_type=%s]\n    For further information visit %s%s",
			l.Msg, l.Kind, truncateRepr(pyjson.Repr(l.Input)), pyjson.TypeName(l.Input), URL, l.Kind)
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

// Validator collects the line errors of one model validation.
type Validator struct {
	// Prefix is prepended to every location: "" for a model validated on
	// its own, e.g. "passengers.0." for a nested one.
	Prefix string
	// Lines are the errors so far, in pydantic's order (the model's fields
	// in declaration order, then extra inputs).
	Lines []LineError
}

func (v *Validator) Add(loc, kind, msg string, input any) {
	v.Lines = append(v.Lines, LineError{Loc: v.Prefix + loc, Kind: kind, Msg: msg, Input: input})
}

func (v *Validator) Err(title string) error {
	if len(v.Lines) == 0 {
		return nil
	}
	return &ValidationError{Title: title, Lines: v.Lines}
}

// Field fetches a required field of an input dict (missing if absent).
func (v *Validator) Field(d *pyjson.Dict, name string) (any, bool) {
	x, ok := d.Get(name)
	if !ok {
		v.Add(name, "missing", "Field required", d)
	}
	return x, ok
}

// Str validates a str field (lax mode still rejects non-strings).
func (v *Validator) Str(loc string, x any) string {
	s, ok := x.(string)
	if !ok {
		v.Add(loc, "string_type", "Input should be a valid string", x)
	}
	return s
}

// Int validates an int field in lax mode: ints, integral floats, bools and
// integer strings are accepted.
func (v *Validator) Int(loc string, x any) int {
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
				v.Add(loc, "int_too_large", "ledgerbench supports integers within 64 bits only", x)
			}
			return int(i)
		}
		f := pyjson.NumberFloat(t)
		switch {
		case math.IsInf(f, 0) || math.IsNaN(f):
			v.Add(loc, "finite_number", "Input should be a finite number", x)
		case f != math.Trunc(f):
			v.Add(loc, "int_from_float", "Input should be a valid integer, got a number with a fractional part", x)
		case f >= 1<<63 || f < -(1<<63):
			v.Add(loc, "int_parsing_size", "Unable to parse input string as an integer, exceeded maximum size", x)
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
			v.Add(loc, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", x)
		}
		return int(i)
	}
	v.Add(loc, "int_type", "Input should be a valid integer", x)
	return 0
}

// Float validates a float field in lax mode.
func (v *Validator) Float(loc string, x any) float64 {
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
			v.Add(loc, "float_parsing", "Input should be a valid number, unable to parse string as a number", x)
		}
		return f
	}
	v.Add(loc, "float_type", "Input should be a valid number", x)
	return 0
}

// Literal validates a Literal[...] of strings.
func (v *Validator) Literal(loc string, x any, allowed ...string) string {
	return v.oneOf(loc, "literal_error", x, allowed)
}

// oneOf accepts a str among allowed, else reports kind.
func (v *Validator) oneOf(loc, kind string, x any, allowed []string) string {
	if s, ok := x.(string); ok && slices.Contains(allowed, s) {
		return s
	}
	v.Add(loc, kind, "Input should be "+expected(allowed), x)
	return ""
}

// OptStr validates an Optional[str] field: None or a str.
func (v *Validator) OptStr(loc string, x any) *string {
	if x == nil {
		return nil
	}
	s, ok := x.(string)
	if !ok {
		v.Add(loc, "string_type", "Input should be a valid string", x)
		return nil
	}
	return &s
}

// OptInt validates an Optional[int] field: None or an int (Int).
func (v *Validator) OptInt(loc string, x any) *int {
	if x == nil {
		return nil
	}
	n := len(v.Lines)
	i := v.Int(loc, x)
	if len(v.Lines) > n {
		return nil
	}
	return &i
}

// Bool validates a bool field in lax mode: bools, the ints 0 and 1, the
// floats 0.0 and 1.0, and the strings pydantic reads as booleans (any case,
// no surrounding space).
func (v *Validator) Bool(loc string, x any) bool {
	switch t := x.(type) {
	case bool:
		return t
	case json.Number:
		if pyjson.IsInt(t) {
			switch strings.TrimPrefix(string(t), "-") {
			case "0":
				return false
			case "1":
				if t[0] != '-' {
					return true
				}
			}
			v.Add(loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input", x)
			return false
		}
		switch pyjson.NumberFloat(t) {
		case 0:
			return false
		case 1:
			return true
		}
	case string:
		switch strings.ToLower(t) {
		case "0", "off", "f", "false", "n", "no":
			return false
		case "1", "on", "t", "true", "y", "yes":
			return true
		}
		v.Add(loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input", x)
		return false
	}
	v.Add(loc, "bool_type", "Input should be a valid boolean", x)
	return false
}

// Enum validates a field of a str Enum with the given values (in
// declaration order, which shows in the message): the value itself, not
// its name, and no coercion.
func (v *Validator) Enum(loc string, x any, values ...string) string {
	return v.oneOf(loc, "enum", x, values)
}

// Extra reports an input the model does not declare (extra="forbid");
// pydantic lists these after the declared fields' errors.
func (v *Validator) Extra(loc string, x any) {
	v.Add(loc, "extra_forbidden", "Extra inputs are not permitted", x)
}

// expected lists allowed values as pydantic does: 'a', 'b' or 'c'.
func expected(values []string) string {
	quoted := make([]string, len(values))
	for i, a := range values {
		quoted[i] = "'" + a + "'"
	}
	out := quoted[len(quoted)-1]
	if len(quoted) > 1 {
		out = strings.Join(quoted[:len(quoted)-1], ", ") + " or " + out
	}
	return out
}
