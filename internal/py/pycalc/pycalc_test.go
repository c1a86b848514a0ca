package pycalc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The expected values were printed by CPython (3.11 on Linux, and 3.12.7 for
// Tau2 where the releases differ); testdata/ holds thousands more.

func TestTau2(t *testing.T) {
	t.Parallel()
	cases := []struct {
		expr, want, err string
	}{
		{"2 + 2", "4.0", ""},
		{"3131.1 + 4777.75 + 367.38", "8276.23", ""},
		{"155.33 - 147.05 + 268.77 - 235.13", "41.92", ""},
		{"  (1200 - 300) * 0.1", "90.0", ""},
		{"2 * ((350 - 122) + (499 - 127))", "1200.0", ""},
		{"10/3", "3.33", ""},
		{"10 / 4", "2.5", ""},
		{"1 / 3", "0.33", ""},
		{"1 / 3 * 3", "1.0", ""},
		{"0.1 + 0.2", "0.3", ""},
		{"2.675 * 1", "2.67", ""},
		{"1.005 * 1000", "1005.0", ""},
		{"0.125", "0.12", ""},
		{"0.000001", "0.0", ""},
		{".5 + 5.", "5.5", ""},
		{"00 + 1", "1.0", ""},
		{"01.5", "1.5", ""},
		{"-0.0", "-0.0", ""},
		{"0 / -7", "-0.0", ""},
		{"7 // 2", "3.0", ""},
		{"-7 // 2", "-4.0", ""},
		{"-7.5 // 2", "-4.0", ""},
		{"7.5 // -2", "-4.0", ""},
		{"5.5 // 0.1", "54.0", ""},
		{"2 ** 10", "1024.0", ""},
		{"2 ** -2", "0.25", ""},
		{"-2 ** 2", "-4.0", ""},
		{"2 ** 3 ** 2", "512.0", ""},
		{"3 ** 2 ** 2", "81.0", ""},
		{"2 ** -2 ** 2", "0.06", ""},
		{"4 ** 0.5", "2.0", ""},
		{"--3", "3.0", ""},
		{"2 ** 1000", "1.0715086071862673e+301", ""},
		{"100000000000000000000000", "1e+23", ""},
		{"999999999999999999999 * 3", "3e+21", ""},
		{"(2**2000)/(2**1999)", "2.0", ""},
		{"10 ** 400 / 10 ** 399", "10.0", ""},
		{"10.0 ** 308 * 10", "inf", ""},
		{"(10.0 ** 308 * 10) - (10.0 ** 308 * 10)", "nan", ""},
		{"8.17 ** 113", "1.2052923168723425e+103", ""},
		{"2 + x", "", "Invalid characters in expression"},
		{"1e5", "", "Invalid characters in expression"},
		{"5 % 3", "", "Invalid characters in expression"},
		{"1/0", "", "division by zero"},
		{"1 / 0", "", "division by zero"},
		{"1.0 / 0", "", "float division by zero"},
		{"1 // 0", "", "integer division or modulo by zero"},
		{"(-8) ** 0.5", "", "float() argument must be a string or a real number, not 'complex'"},
		{"10.0 ** 400", "", "(34, 'Numerical result out of range')"},
		{"3)", "", "unmatched ')' (<string>, line 1)"},
		{"1.0/0", "", "float division by zero"},
		{"1//0", "", "integer division or modulo by zero"},
		{"1.0//0", "", "float floor division by zero"},
		{"0 ** -1", "", "0.0 cannot be raised to a negative power"},
		{"2 ** 1100", "", "int too large to convert to float"},
		{"10 ** 400 * 1.0", "", "int too large to convert to float"},
		{"(2**2000)/3", "", "integer division result too large for a float"},
		{"1.5 ** 10000", "", "(34, 'Numerical result out of range')"},
		{"(-8) ** (1/3)", "", "float() argument must be a string or a real number, not 'complex'"},
		{"(-10) ** 400.5", "", "complex exponentiation"},
		{"1/(0*(-1)**0.5)", "", "complex division by zero"},
		{"(0*(-1)**0.5)**-1", "", "0.0 to a negative or complex power"},
		{"(-1)**0.5 // 2", "", "unsupported operand type(s) for //: 'complex' and 'int'"},
		{"((-1)**0.5)(*1)", "", "(6.123233995736766e-17+1j) argument after * must be an iterable, not int"},
		{"()", "", "float() argument must be a string or a real number, not 'tuple'"},
		{"...", "", "float() argument must be a string or a real number, not 'ellipsis'"},
		{"() + 1", "", `can only concatenate tuple (not "int") to tuple`},
		{"() * ()", "", "can't multiply sequence by non-int of type 'tuple'"},
		{"() * 10**100", "", "cannot fit 'int' into an index-sized integer"},
		{"-()", "", "bad operand type for unary -: 'tuple'"},
		{"2(3)", "", "'int' object is not callable"},
		{"2(*3)", "", "2 argument after * must be an iterable, not int"},
		{"2(**())", "", "2 argument after ** must be a mapping, not tuple"},
		{"(10**5000)(*3)", "", "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"},
		{"", "", "invalid syntax (<string>, line 0)"},
		{"1 +", "", "invalid syntax (<string>, line 1)"},
		{"1 2", "", "invalid syntax (<string>, line 1)"},
		{"(1", "", "'(' was never closed (<string>, line 1)"},
		{"3 * (4 + 5", "", "'(' was never closed (<string>, line 1)"},
		{"1)", "", "unmatched ')' (<string>, line 1)"},
		{"01", "", "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"},
		{"(1 2)", "", "invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"},
		{"1 2 (", "", "'(' was never closed (<string>, line 1)"},
		{"(*3)", "", "cannot use starred expression here (<string>, line 1)"},
		{"2(*)", "", "Invalid star expression (<string>, line 1)"},
		{"(*)", "", "Invalid star expression (<string>, line 1)"},
		{strings.Repeat("1", 4301), "", "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals to avoid decimal conversion limits. (<string>, line 1)"},
		{strings.Repeat("(", 201) + "1" + strings.Repeat(")", 201), "", "too many nested parentheses (<string>, line 1)"},
		// 3.12 parses deeper than 3.11 compiles (see TestTau1).
		{strings.Repeat("-", 5000) + "1", "1.0", ""},
		{strings.Repeat("-", 5975) + "1", "", "Parser stack overflowed - Python source too complex to parse"},
		{strings.Repeat("0+", 9996) + "1", "", "maximum recursion depth exceeded during compilation"},
		// Beyond CPython: int results are bounded (see the package doc).
		{"9**9**9", "", "int too large to convert to float"},
		{"9 ** 9 ** 9", "", "int too large to convert to float"},
	}
	for _, tc := range cases {
		got, err := Tau2(tc.expr)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tc.want || gotErr != tc.err {
			t.Errorf("Tau2(%.40q) = %q, %q; want %q, %q", tc.expr, got, gotErr, tc.want, tc.err)
		}
	}
}

func TestTau1(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{"(60 * 0.45) + (30 * 0.30)", "36.0"},
		{"14.70 - 8.75", "5.95"},
		{"0.125", "0.12"},
		{"2**-1", "0.5"},
		{"abc", "Error: invalid characters in expression"},
		{"3 % 2", "Error: invalid characters in expression"},
		{"1/0", "Error: division by zero"},
		{"1 2", "Error: invalid syntax (<string>, line 1)"},
		{"", "Error: invalid syntax (<string>, line 0)"},
		{"2(*)", "Error: invalid syntax (<string>, line 1)"},
		{"(*)", "Error: invalid syntax (<string>, line 1)"},
		{"()*2.0", "Error: can't multiply sequence by non-int of type 'float'"},
		{strings.Repeat("-", 5000) + "1", "Error: maximum recursion depth exceeded during compilation"},
		{strings.Repeat("-", 5976) + "1", "Error: "}, // MemoryError, with no text in 3.11
	}
	for _, tc := range cases {
		if got := Tau1(tc.expr); got != tc.want {
			t.Errorf("Tau1(%.40q) = %q; want %q", tc.expr, got, tc.want)
		}
	}
}

// TestNesting: deeply nested input is handled in time (CPython memoizes
// its parser's rules; a naive second pass would take exponential time).
func TestNesting(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{strings.Repeat("(", 199) + "1" + strings.Repeat(")", 199) + " 2", "invalid syntax (<string>, line 1)"},
		{strings.Repeat("(", 199) + "1 2" + strings.Repeat(")", 199), "invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"},
		{strings.Repeat("(-", 199) + "1" + strings.Repeat(")", 199) + "(*)", "Invalid star expression (<string>, line 1)"},
		{strings.Repeat("1(*", 199) + "()" + strings.Repeat(")", 199) + " +", "invalid syntax (<string>, line 1)"},
	}
	for _, tc := range cases {
		if _, err := Tau2(tc.expr); err == nil || err.Error() != tc.want {
			t.Errorf("Tau2(%.40q...) error = %v; want %q", tc.expr, err, tc.want)
		}
	}
}

// TestEval checks values beyond what the tools show, and %, which Eval
// takes and the tools refuse.
func TestEval(t *testing.T) {
	t.Parallel()
	cases := []struct {
		expr, typ, str, errType, err string
	}{
		{"2**70", "int", "1180591620717411303424", "", ""},
		{"-7 // 2", "int", "-4", "", ""},
		{"7 / 2", "float", "3.5", "", ""},
		{"10**16 / 1", "float", "1e+16", "", ""},
		{"(-1)**0.5", "complex", "(6.123233995736766e-17+1j)", "", ""},
		{"(-4)**0.5 * 0 + 0", "complex", "0j", "", ""},
		{"-((-1)**0.5)", "complex", "(-6.123233995736766e-17-1j)", "", ""},
		{"(-8)**(1/3)", "complex", "(1.0000000000000002+1.7320508075688772j)", "", ""},
		{"((-8)**0.5)**-1000", "complex", "0j", "", ""},
		{"() + ()", "tuple", "()", "", ""},
		{"() * 3", "tuple", "()", "", ""},
		{"...", "ellipsis", "Ellipsis", "", ""},
		{"5 % 3", "int", "2", "", ""},
		{"5 % -3", "int", "-1", "", ""},
		{"-5.5 % 2", "float", "0.5", "", ""},
		{"5.0 % -2", "float", "-1.0", "", ""},
		{"-0.0 % 5", "float", "0.0", "", ""},
		{"2 + 3 % 2 * 4", "int", "6", "", ""},
		{"1 % 0", "", "", "ZeroDivisionError", "integer modulo by zero"},
		{"5.0 % -0.0", "", "", "ZeroDivisionError", "float modulo"},
		{"(-1)**0.5 % 2", "", "", "TypeError", "unsupported operand type(s) for %: 'complex' and 'int'"},
		{"() % 2", "", "", "TypeError", "unsupported operand type(s) for %: 'tuple' and 'int'"},
		{"1 +", "", "", "SyntaxError", "invalid syntax (<string>, line 1)"},
		{"2 ** 1100 * 1.0", "", "", "OverflowError", "int too large to convert to float"},
		{"(-10) ** 400.5", "", "", "OverflowError", "complex exponentiation"},
		{"1(2)", "", "", "TypeError", "'int' object is not callable"},
		{strings.Repeat("-", 5975) + "1", "", "", "MemoryError", "Parser stack overflowed - Python source too complex to parse"},
		{strings.Repeat("0+", 9996) + "1", "", "", "RecursionError", "maximum recursion depth exceeded during compilation"},
	}
	for _, tc := range cases {
		v, err := Eval(tc.expr, Py312)
		if tc.err != "" {
			var pe *Error
			if !errors.As(err, &pe) || pe.Type != tc.errType || pe.Msg != tc.err {
				t.Errorf("Eval(%.40q) = %v, %#v; want %s(%q)", tc.expr, v, err, tc.errType, tc.err)
			}
			continue
		}
		if err != nil || v.Type() != tc.typ || v.String() != tc.str {
			t.Errorf("Eval(%.40q) = %s %q, %v; want %s %q", tc.expr, v.Type(), v.String(), err, tc.typ, tc.str)
		}
	}
}

func TestEvalUnsupported(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{"2^3", "1e5", "x", "1\t+1", "½"} {
		if _, err := Eval(expr, Py312); !errors.Is(err, ErrUnsupported) {
			t.Errorf("Eval(%q) error = %v; want ErrUnsupported", expr, err)
		}
	}
}

func TestValueString(t *testing.T) {
	t.Parallel()
	v, err := Eval("2**14285", Py311) // 4301 digits
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); !strings.HasPrefix(got, "Exceeds the limit (4300 digits)") {
		t.Errorf("String() of a 4301-digit int = %.60q", got)
	}
	if v, err = Eval("2**14284", Py311); err != nil || len(v.String()) != 4300 {
		t.Errorf("String() of 2**14284 has %d characters (err %v); want 4300", len(v.String()), err)
	}
	if _, err = v.Float(); err == nil || err.Error() != "int too large to convert to float" {
		t.Errorf("Float() of 2**14284: %v", err)
	}
}

func BenchmarkTau2(b *testing.B) {
	for _, expr := range []string{"2 * ((350 - 122) + (499 - 127))", "1.05 ** 12 * 3000", "(-8) ** (1/3)"} {
		b.Run(expr, func(b *testing.B) {
			for b.Loop() {
				_, _ = Tau2(expr)
			}
		})
	}
}

func ExampleTau2() {
	fmt.Println(Tau2("2 * ((350 - 122) + (499 - 127))"))
	fmt.Println(Tau2("10 / 0"))
	fmt.Println(Tau2("2 ^ 3"))
	// Output:
	// 1200.0 <nil>
	//  division by zero
	//  Invalid characters in expression
}

func ExampleTau1() {
	fmt.Println(Tau1("(60 * 0.45) + (30 * 0.30)"))
	fmt.Println(Tau1("(1 2)"))
	// Output:
	// 36.0
	// Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)
}

// TestTau2Value: calculate on arguments json.loads made of other JSON types
// than str (CPython 3.12 texts; the retail oracle compares them with
// upstream's tool).
func TestTau2Value(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		arg  any
		want string // the result or the error text
	}{
		{"1 + 1", "2.0"},
		{nil, "'NoneType' object is not iterable"},
		{true, "'bool' object is not iterable"},
		{[]any{"1", "+"}, "eval() arg 1 must be a string, bytes or code object"},
		{[]any{"12", true}, "'in <string>' requires string as left operand, not bool"},
		{[]any{"1", "a"}, "Invalid characters in expression"},
		{[]any{}, "eval() arg 1 must be a string, bytes or code object"},
	} {
		got, err := Tau2Value(tc.arg)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Tau2Value(%#v) = %q; want %q", tc.arg, got, tc.want)
		}
	}
}
