package airline

import (
	"strings"
	"testing"
)

// Expected values were printed by CPython (str(round(float(eval(e)), 2)) and
// the exception texts); testdata/tool_cases.golden.json checks more of them
// against upstream's own calculate.
func TestEvalExpression(t *testing.T) {
	cases := []struct {
		expr, want, err string
	}{
		{"2 + 2", "4.0", ""},
		{"2 * ((350 - 122) + (499 - 127))", "1200.0", ""},
		{"10/3", "3.33", ""},
		{"2.675 * 1", "2.67", ""},
		{"0.125", "0.12", ""},
		{"-7 // 2", "-4.0", ""},
		{"-7.5 // 2", "-4.0", ""},
		{"5.5 // 0.1", "54.0", ""},
		{"-2 ** 2", "-4.0", ""},
		{"2 ** -2 ** 2", "0.06", ""},
		{"3 ** 2 ** 2", "81.0", ""},
		{"2 ** 1000", "1.0715086071862673e+301", ""},
		{"100000000000000000000000", "1e+23", ""},
		{"(2**2000)/(2**1999)", "2.0", ""},
		{"-0.0", "-0.0", ""},
		{"01.5", "1.5", ""},
		{"1/0", "", "division by zero"},
		{"1.0/0", "", "float division by zero"},
		{"1//0", "", "integer division or modulo by zero"},
		{"1.0//0", "", "float floor division by zero"},
		{"0 ** -1", "", "0.0 cannot be raised to a negative power"},
		{"2 ** 1100", "", "int too large to convert to float"},
		{"(2**2000)/3", "", "integer division result too large for a float"},
		{"1.5 ** 10000", "", "(34, 'Numerical result out of range')"},
		{"(-8) ** (1/3)", "", "float() argument must be a string or a real number, not 'complex'"},
		{"()", "", "float() argument must be a string or a real number, not 'tuple'"},
		{"...", "", "float() argument must be a string or a real number, not 'ellipsis'"},
		{"() + 1", "", `can only concatenate tuple (not "int") to tuple`},
		{"2(3)", "", "'int' object is not callable"},
		{"2(*3)", "", "2 argument after * must be an iterable, not int"},
		{"", "", "invalid syntax (<string>, line 0)"},
		{"1 +", "", "invalid syntax (<string>, line 1)"},
		{"(1", "", "'(' was never closed (<string>, line 1)"},
		{"1)", "", "unmatched ')' (<string>, line 1)"},
		{"01", "", "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"},
		{"(1 2)", "", "invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"},
		{"1 2 (", "", "'(' was never closed (<string>, line 1)"},
		{"(*3)", "", "cannot use starred expression here (<string>, line 1)"},
		{strings.Repeat("(", 201) + "1" + strings.Repeat(")", 201), "", "too many nested parentheses (<string>, line 1)"},
		{strings.Repeat("-", 5000) + "1", "", "maximum recursion depth exceeded during compilation"},
		{"9**9**9", "", "ledgerbench: integer result too large to evaluate"},
	}
	for _, tc := range cases {
		got, err := evalExpression(tc.expr)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tc.want || gotErr != tc.err {
			t.Errorf("evalExpression(%.40q) = %q, %q; want %q, %q", tc.expr, got, gotErr, tc.want, tc.err)
		}
	}
}

func FuzzEvalExpression(f *testing.F) {
	for _, s := range []string{"2 + 2", "(1 2", "2(*3)", "1.5 ** 10000", "9**9**9", "((((1))))", "-7.5 // 2", "..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		res, err := evalExpression(expr)
		if err == nil && res == "" {
			t.Errorf("evalExpression(%q): empty result without error", expr)
		}
	})
}
