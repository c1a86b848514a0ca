package pyjson

import "testing"

// TestTruthyToFloat: bool(json.loads(s)) and float(json.loads(s)) (repr, or
// "!" and the exception text) as CPython 3 printed them.
func TestTruthyToFloat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		json  string
		truth bool
		float string
	}{
		{"null", false, "!float() argument must be a string or a real number, not 'NoneType'"},
		{"true", true, "1.0"},
		{"false", false, "0.0"},
		{"0", false, "0.0"},
		{"-0", false, "0.0"},
		{"7", true, "7.0"},
		{"0.0", false, "0.0"},
		{"-0.0", false, "-0.0"},
		{"1e-400", false, "0.0"},
		{"\"\"", false, "!could not convert string to float: ''"},
		{"\" \"", true, "!could not convert string to float: ' '"},
		{"\"1_000.5\"", true, "1000.5"},
		{"\"  -2.5e3 \"", true, "-2500.0"},
		{"\"inf\"", true, "inf"},
		{"\"-Infinity\"", true, "-inf"},
		{"\"nan\"", true, "nan"},
		{"\"1__0\"", true, "!could not convert string to float: '1__0'"},
		{"\"_1\"", true, "!could not convert string to float: '_1'"},
		{"\"1e\"", true, "!could not convert string to float: '1e'"},
		{"\"abc\"", true, "!could not convert string to float: 'abc'"},
		{"\"\\u00a01.5\\u2003\"", true, "1.5"},
		{"[]", false, "!float() argument must be a string or a real number, not 'list'"},
		{"[0]", true, "!float() argument must be a string or a real number, not 'list'"},
		{"{}", false, "!float() argument must be a string or a real number, not 'dict'"},
		{"{\"a\": 1}", true, "!float() argument must be a string or a real number, not 'dict'"},
		{"1e400", true, "inf"},
		{"123456789012345678901234567890", true, "1.2345678901234568e+29"},
		{"10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000", true, "!int too large to convert to float"},
	} {
		v, err := Decode([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		if got := Truthy(v); got != tc.truth {
			t.Errorf("Truthy(%s) = %v; want %v", tc.json, got, tc.truth)
		}
		f, err := ToFloat(v)
		got := Float(f)
		if err != nil {
			got = "!" + err.Error()
		}
		if got != tc.float {
			t.Errorf("ToFloat(%.40s) = %s; want %s", tc.json, got, tc.float)
		}
	}
}
