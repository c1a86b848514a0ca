package oracletest

import (
	"reflect"
	"testing"
)

// TestJSONRoundTrip: cat as the oracle answers with its input.
func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := map[string]any{"sequences": []any{[]any{map[string]any{"name": "get_user", "arguments": map[string]any{"id": "x"}}}}}
	var out map[string]any
	JSON(t, "cat", in, &out)
	if !reflect.DeepEqual(out, in) {
		t.Errorf("cat answered %v; want %v", out, in)
	}
}

// TestOutputArgs: args follow the command line's own fields; no stdin is
// an empty one.
func TestOutputArgs(t *testing.T) {
	t.Parallel()
	if got := string(Output(t, "echo -n a", nil, nil, "b", "c")); got != "a b c" {
		t.Errorf("output %q; want %q", got, "a b c")
	}
	if got := Output(t, "cat", nil, nil); len(got) != 0 {
		t.Errorf("cat without stdin wrote %q", got)
	}
}

func TestEnvInt(t *testing.T) {
	t.Setenv("ORACLETEST_N", "")
	if got := EnvInt(t, "ORACLETEST_N", 7); got != 7 {
		t.Errorf("unset: %d; want the default 7", got)
	}
	t.Setenv("ORACLETEST_N", "42")
	if got := EnvInt(t, "ORACLETEST_N", 7); got != 42 {
		t.Errorf("42: %d", got)
	}
}
