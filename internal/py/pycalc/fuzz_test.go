package pycalc

import (
	"errors"
	"strconv"
	"testing"
)

var fuzzSeeds = []string{
	"2 + 2", "100 - 37.5", "(1200 - 300) * 0.1", "10 / 4", "7 // 2", "-7 // 2", "2 ** 10", "2 ** -1", "1 / 0",
	"1.0 / 0", "3 * (4 + 5", "", "  12.5 + 0.005", "2.675 * 1", "1e5", "abc", "01 + 2", "00 + 1",
	"10 ** 400 / 10 ** 399", "10 ** 400 * 1.0", "(-8) ** 0.5", "0 ** -1", "-2 ** 2", "5.", ".5 + .25", "1..2",
	"()", "2(3)", "3 - - 3", "((((1))))", "...", "1 ++ 2", "4 * * 2", "10.0 ** 308 * 10", "2.5 // 0.5",
	"(1 2", "2(*3)", "1.5 ** 10000", "9**9**9", "-7.5 // 2", "(60 * 0.45) + (30 * 0.30)", "1//0.1",
	"2**-1", "()*2", "...(1)", "(-10)**400.5", "((-1)**0.5)(**2)", "(*)", "1(*)", "5 % 3", "(1 .",
}

// FuzzTau2 and FuzzTau1: any input gives a float's repr or an error, and
// never panics.
func FuzzTau2(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		got, err := Tau2(expr)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Tau2(%q): error %v is not an *Error", expr, err)
			}
			return
		}
		if _, perr := strconv.ParseFloat(got, 64); perr != nil && got != "inf" && got != "-inf" && got != "nan" {
			t.Fatalf("Tau2(%q) = %q", expr, got)
		}
	})
}

func FuzzTau1(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if got := Tau1(expr); got == "" {
			t.Fatalf("Tau1(%q) is empty", expr)
		}
	})
}

// FuzzEval: the two releases agree except on syntax errors and nesting
// limits, and a value's str() never panics.
func FuzzEval(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		v11, err11 := Eval(expr, Py311)
		v12, err12 := Eval(expr, Py312)
		var e11, e12 *Error
		errors.As(err11, &e11)
		errors.As(err12, &e12)
		switch {
		case err11 == nil && err12 == nil:
			if v11.String() != v12.String() {
				t.Fatalf("Eval(%q): %s under 3.11, %s under 3.12", expr, v11, v12)
			}
		case e11 != nil && e12 != nil && e11.Type == e12.Type && e11.Msg == e12.Msg:
		case errors.Is(err11, ErrUnsupported) && errors.Is(err12, ErrUnsupported):
		case e11 != nil && isLimit(e11) || e12 != nil && isLimit(e12):
		default:
			t.Fatalf("Eval(%q): %v, %v under 3.11; %v, %v under 3.12", expr, v11, err11, v12, err12)
		}
	})
}

func isLimit(e *Error) bool {
	return e.Type == "SyntaxError" || e.Type == "MemoryError" || e.Type == "RecursionError"
}
