// Package pycalc evaluates the part of Python that upstream's calculate tools
// reach: they check that an expression only uses the characters in Chars and
// hand it to eval, so the arithmetic is CPython's. The alphabet still spells
// a fair part of the language: unbounded ints, floats, + - * / // ** and
// unary signs, parentheses, the empty tuple, Ellipsis ("..."), calls of
// things that are not callable (with * and ** arguments), complex results
// of negative bases raised to fractional powers, and CPython's syntax
// errors, including the limits of its tokenizer, parser and compiler. Eval
// also takes %, which the tools refuse.
//
// Two CPython releases are followed, as the benchmarks run on them:
// τ²-bench requires 3.12 (Tau2) and the τ-bench-style ports here were
// checked against 3.11 (Tau1). They differ only in a few syntax errors and
// in how deep an expression may nest. The tests compare both with the
// interpreters on thousands of expressions (testdata/).
//
// Known departures: an int result beyond 2^22 bits (over a million decimal
// digits) is refused with the OverflowError text float() would raise on it,
// where CPython computes on (for minutes, for 9**9**9) and an expression
// that divides it back down would still give a number; powers and the C
// library functions complex powers use are correctly rounded, as glibc's
// are in all but rare cases (its pow is one ulp off now and then); and how
// deep an expression may nest before CPython gives up depends a little on
// the caller's stack and on the rules its parser happens to try, so those
// limits are approximate.
package pycalc

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Chars are the characters upstream's calculate tools let through to eval.
const Chars = "0123456789+-*/(). "

// Version is the CPython release whose behaviour Eval follows.
type Version int

// The supported releases.
const (
	Py311 Version = iota
	Py312
)

// Error is a Python exception raised by an expression: Type is its class
// name ("ZeroDivisionError", "SyntaxError", ...) and Error() is its str(),
// which is what the tools show.
type Error struct {
	Type string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// ErrUnsupported is returned (wrapped) by Eval for a character outside the
// arithmetic subset; the tools' character check refuses those first.
var ErrUnsupported = errors.New("pycalc: character outside the arithmetic subset")

// Tau2 is τ²-bench's calculate tool (airline and retail): an expression
// with a character outside Chars fails with "Invalid characters in
// expression", anything else returns str(round(float(eval(expr)), 2)) or
// the exception eval, float or round raised, under CPython 3.12.
func Tau2(expr string) (string, error) {
	if !allowed(expr) {
		return "", &Error{Type: "ValueError", Msg: "Invalid characters in expression"}
	}
	return Calculate(expr, Py312)
}

// Tau2Value is τ²-bench's calculate tool on its argument as json.loads
// gave it (see pyjson.Decode): Tau2 for a string; any other value is
// iterated by the character check (a list's items and a dict's keys are
// tested as substrings of Chars) and what passes fails in eval.
func Tau2Value(v any) (string, error) {
	if expr, ok := v.(string); ok {
		return Tau2(expr)
	}
	items, err := pyjson.Iterate(v)
	if err != nil {
		return "", err
	}
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return "", fmt.Errorf("'in <string>' requires string as left operand, not %s", pyjson.TypeName(it))
		}
		if !strings.Contains(Chars, s) {
			return "", &Error{Type: "ValueError", Msg: "Invalid characters in expression"}
		}
	}
	return "", &Error{Type: "TypeError", Msg: "eval() arg 1 must be a string, bytes or code object"}
}

// Tau1 is the calculate tool of τ-bench and its descendants (τ-Trait's
// telehealth): the same computation under CPython 3.11, with every failure
// turned into text: "Error: invalid characters in expression" or
// "Error: " followed by the exception's str().
func Tau1(expr string) string {
	if !allowed(expr) {
		return "Error: invalid characters in expression"
	}
	s, err := Calculate(expr, Py311)
	if err != nil {
		return "Error: " + err.Error()
	}
	return s
}

// Calculate returns str(round(float(eval(src)), 2)) without checking the
// characters first; an error is an *Error, or wraps ErrUnsupported.
func Calculate(src string, py Version) (string, error) {
	v, err := Eval(src, py)
	if err != nil {
		return "", err
	}
	f, err := v.Float()
	if err != nil {
		return "", err
	}
	return pyjson.Float(pyjson.Round(f, 2)), nil
}

// Eval evaluates src as eval(src) would: an expression over digits,
// spaces and + - * / % ( ) . An exception is returned as an *Error; a
// character outside that set gives an error wrapping ErrUnsupported.
func Eval(src string, py Version) (Value, error) {
	for _, r := range src {
		if !strings.ContainsRune("0123456789+-*/%(). ", r) {
			return Value{}, fmt.Errorf("%w: %q", ErrUnsupported, r)
		}
	}
	n, err := parse(src, py.dialect())
	if err != nil {
		return Value{}, err
	}
	return n.eval()
}

func allowed(expr string) bool {
	for _, r := range expr {
		if !strings.ContainsRune(Chars, r) {
			return false
		}
	}
	return true
}

// dialect holds what differs between the CPython releases.
type dialect struct {
	// levels are the parser's stack costs in its first and second pass.
	levels [2]levels
	// overflowMsg is the text of the MemoryError the parser raises when
	// its stack use reaches maxLevel.
	overflowMsg string
	// maxDepth is the deepest expression tree the compiler accepts (it
	// depends a little on the caller's own stack depth).
	maxDepth int
	// invalidStar: a lone * in call arguments or in parentheses is
	// "Invalid star expression" (3.12) rather than a generic syntax error.
	invalidStar bool
}

// maxLevel is where CPython's parser gives up (its MAXSTACK, in the units
// of levels).
const maxLevel = 5976

// levels is what CPython's parser stack holds at the start and what each
// nesting construct adds, in units where a unary operator costs 1 and a
// power 2, measured on each release: the cost is the depth of the rules
// CPython goes through to reach the construct's inside. *Min is the depth
// a construct reaches whatever it holds.
type levels struct {
	base, atom, paren, call, starCall, dstarCall int
	// dot: a '.' where an atom should be.
	dot int
	// open and openCall: before the token after a '(' is read; "()"
	// and "f()" look for an argument that is not there.
	open, openCall, emptyTuple, emptyCall int
	// A call's * or ** with nothing after it that parses.
	starCallEmpty, dstarCallEmpty int
	// (*x) and (**x), which only the second pass looks into.
	starGroup, starGroupMin, starGroupEmptyMin, dstarGroup, dstarGroupMin int
}

func (py Version) dialect() dialect {
	if py == Py312 {
		return dialect{
			levels: [2]levels{
				{base: 0, atom: 1, dot: 2, open: 4, openCall: 2, emptyTuple: 28, emptyCall: 24, paren: 28, call: 24, starCall: 27, dstarCall: 27, starCallEmpty: 27, dstarCallEmpty: 28, starGroup: 22},
				{base: 3, dot: -2, open: 4, openCall: 2, emptyTuple: 29, emptyCall: 23, paren: 30, call: 25, starCall: 27, dstarCall: 29, starCallEmpty: 27, dstarCallEmpty: 28, starGroup: 22, starGroupMin: 29, starGroupEmptyMin: 29, dstarGroup: 27, dstarGroupMin: 29},
			},
			overflowMsg: "Parser stack overflowed - Python source too complex to parse",
			maxDepth:    9992,
			invalidStar: true,
		}
	}
	return dialect{
		levels: [2]levels{
			{base: 0, open: 4, openCall: 2, emptyTuple: 28, emptyCall: 24, paren: 28, call: 24, starCall: 27, dstarCall: 27, starCallEmpty: 27, dstarCallEmpty: 28, starGroup: 22},
			{base: 3, dot: -2, open: 4, openCall: 2, emptyTuple: 28, emptyCall: 23, paren: 30, call: 25, starCall: 26, dstarCall: 28, starCallEmpty: 24, dstarCallEmpty: 26, starGroup: 22, starGroupMin: 27, starGroupEmptyMin: 28, dstarGroup: 27, dstarGroupMin: 28},
		},
		maxDepth: 2991,
	}
}
