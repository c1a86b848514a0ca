package pycalc

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

type kind uint8

const (
	kInt kind = iota
	kFloat
	kComplex
	kTuple // only the empty tuple can be written
	kEllipsis
)

// Value is a Python value an expression can produce: an int, a float, a
// complex, the empty tuple or Ellipsis.
type Value struct {
	kind kind
	i    *big.Int
	f    float64
	c    cplx
}

// cplx is a complex number, computed part by part as CPython does.
type cplx struct{ re, im float64 }

// Type is the name of the value's Python type.
func (v Value) Type() string {
	return [...]string{"int", "float", "complex", "tuple", "ellipsis"}[v.kind]
}

func (v Value) isNumber() bool { return v.kind <= kComplex }

// Float is Python's float(v).
func (v Value) Float() (float64, error) {
	switch v.kind {
	case kInt:
		return intToFloat(v.i)
	case kFloat:
		return v.f, nil
	}
	return 0, &Error{Type: "TypeError", Msg: "float() argument must be a string or a real number, not '" + v.Type() + "'"}
}

// String is Python's str(v). An int of more than 4300 digits has none
// (CPython raises ValueError); String then returns that error's text.
func (v Value) String() string {
	s, err := v.str()
	if err != nil {
		return err.Error()
	}
	return s
}

func (v Value) str() (string, error) {
	switch v.kind {
	case kInt:
		// 10**4300 < 2**14286: anything longer has too many digits.
		if v.i.BitLen() <= 14286 {
			if s := v.i.String(); len(strings.TrimPrefix(s, "-")) <= maxDigits {
				return s, nil
			}
		}
		return "", &Error{Type: "ValueError", Msg: "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"}
	case kFloat:
		return pyjson.Float(v.f), nil
	case kTuple:
		return "()", nil
	case kEllipsis:
		return "Ellipsis", nil
	}
	// complex_repr: repr of each part without a trailing ".0"; no real
	// part (and no parentheses) when it is +0.
	part := func(f float64) string { return strings.TrimSuffix(pyjson.Float(f), ".0") }
	re, im := v.c.re, v.c.im
	if re == 0 && !math.Signbit(re) {
		return part(im) + "j", nil
	}
	sign := "+"
	if !math.IsNaN(im) && math.Signbit(im) {
		sign = "-"
	}
	return "(" + part(re) + sign + part(math.Abs(im)) + "j)", nil
}

func intValue(i *big.Int) Value     { return Value{kind: kInt, i: i} }
func floatValue(f float64) Value    { return Value{kind: kFloat, f: f} }
func complexValue(c cplx) Value     { return Value{kind: kComplex, c: c} }
func errOverflow(msg string) *Error { return &Error{Type: "OverflowError", Msg: msg} }
func errZeroDiv(msg string) *Error  { return &Error{Type: "ZeroDivisionError", Msg: msg} }

// intToFloat is PyLong_AsDouble: round half to even, OverflowError past
// the float range.
func intToFloat(i *big.Int) (float64, error) {
	if i.IsInt64() {
		if n := i.Int64(); n > -(1<<53) && n < 1<<53 {
			return float64(n), nil
		}
	}
	f, _ := new(big.Float).SetInt(i).Float64()
	if math.IsInf(f, 0) {
		return 0, errOverflow("int too large to convert to float")
	}
	return f, nil
}

// asFloat converts an int or float operand.
func (v Value) asFloat() (float64, error) {
	if v.kind == kInt {
		return intToFloat(v.i)
	}
	return v.f, nil
}

// asComplex converts a number operand.
func (v Value) asComplex() (cplx, error) {
	if v.kind == kComplex {
		return v.c, nil
	}
	f, err := v.asFloat()
	return cplx{f, 0}, err
}

// literal is the value of a number token.
func literal(text string) Value {
	if strings.Contains(text, ".") {
		// Too large a literal is inf, as ParseFloat returns it (with
		// ErrRange); the tokenizer only lets valid literals through.
		f, _ := strconv.ParseFloat(text, 64)
		return floatValue(f)
	}
	i, _ := new(big.Int).SetString(text, 10)
	return intValue(i)
}
