package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Item 4: errors name the data's terms, never Go's types.
func TestHumane(t *testing.T) {
	tests := []struct{ in, want string }{
		{"line 6: cannot unmarshal !!str `abc` into time.Duration", "line 6: `abc` is not a duration such as 90s or 5m"},
		{"line 7: cannot unmarshal !!str `many` into int", "line 7: `many` is not a whole number"},
		{"line 2: cannot unmarshal !!seq into llm.Backbone", "line 2: a list where an object (a mapping of keys) was expected"},
		{"line 2: cannot unmarshal !!str `x` into llm.Backbone", "line 2: `x` is not an object (a mapping of keys)"},
		{"json: cannot unmarshal array into Go value of type results.Tau2File", "json: a list where an object (a mapping of keys) was expected"},
		{"json: cannot unmarshal string into Go struct field Tau2Simulation.simulations.trial of type int", "json: field simulations.trial: a string where a whole number was expected"},
		{`strconv.ParseInt: parsing "x": invalid syntax`, `"x" is not a whole number`},
		{`time: invalid duration "5"`, `"5" is not a duration such as 90s or 5m`},
	}
	for _, tc := range tests {
		if got := humane(tc.in); got != tc.want {
			t.Errorf("humane(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// The whole command line: a bad backbones file is reported at its lines,
// in words.
func TestBackbonesFileErrors(t *testing.T) {
	bb := filepath.Join(t.TempDir(), "backbones.yaml")
	os.WriteFile(bb, []byte("judge: gpt\nbackbones:\n  gpt:\n    base_url: http://x\n    model: m\n    timeout: abc\n    max_retries: many\n"), 0o644)
	r := execCLI(t, t.Context(), "run", "--domain", "retail", "--backbone", "gpt", "--backbones", bb)
	for _, want := range []string{"backbones.yaml:6: backbone \"gpt\": timeout: `abc` is not a duration such as 90s or 5m\n",
		"backbones.yaml:7: backbone \"gpt\": max_retries: `many` is not a whole number"} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.errOut)
		}
	}
	if strings.Contains(r.errOut, "time.Duration") || r.code == ExitOK {
		t.Errorf("exit %d:\n%s", r.code, r.errOut)
	}
}
