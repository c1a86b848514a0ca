package pyjson

import "testing"

// TestTypeName: type(json.loads(s)).__name__ as Python 3 gives it.
func TestTypeName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ json, want string }{
		{`null`, "NoneType"},
		{`true`, "bool"},
		{`"x"`, "str"},
		{`1`, "int"},
		{`-0`, "int"},
		{`123456789012345678901234567890`, "int"},
		{`1.0`, "float"},
		{`1e3`, "float"},
		{`2E-1`, "float"},
		{`[]`, "list"},
		{`{}`, "dict"},
	} {
		v, err := Decode([]byte(tc.json))
		if err != nil {
			t.Fatalf("Decode(%s): %v", tc.json, err)
		}
		if got := TypeName(v); got != tc.want {
			t.Errorf("TypeName(%s) = %q; want %q", tc.json, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v    any
		want string
	}{{2.5, "float"}, {3, "int"}, {[]string{"a"}, "list"}} {
		if got := TypeName(tc.v); got != tc.want {
			t.Errorf("TypeName(%#v) = %q; want %q", tc.v, got, tc.want)
		}
	}
}
