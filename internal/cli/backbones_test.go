package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackbonesErrorsInFull: a bad backbones file is reported with the
// file, the line and the whole hint (every known key), each problem on its
// own line.
func TestBackbonesErrorsInFull(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []string
	}{
		{"unknown_key_far.yaml", []string{`unknown_key_far.yaml:5: backbone "x": unknown key "concurrency" (known keys: base_url, model, api_key_env, ` +
			`temperature, max_tokens, max_completion_tokens, reasoning_effort, send_reasoning, strip_think, extra_body, price, rpm, tpm, timeout, max_retries)`}},
		{"wrong_type.yaml", []string{"wrong_type.yaml:5: backbone \"x\": temperature: `hot` is not a number\n",
			"wrong_type.yaml:7: backbone \"x\": timeout: `90` is not a duration such as 90s or 5m\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			r := execCLI(t, t.Context(), "prompt", "--domain", "retail", "--task", "0", "--backbones", "../engine/llm/testdata/backbones/"+tc.file)
			if r.code != ExitError {
				t.Errorf("exit %d; want %d", r.code, ExitError)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.errOut)
				}
			}
			if strings.Contains(r.errOut, "…") || strings.Contains(r.errOut, "time.Duration") {
				t.Errorf("stderr cut or names a Go type:\n%s", r.errOut)
			}
		})
	}
}

// The whole command line: a bad backbones file is reported at its lines,
// in words.
func TestBackbonesFileErrors(t *testing.T) {
	t.Parallel()
	bb := filepath.Join(t.TempDir(), "backbones.yaml")
	if err := os.WriteFile(bb, []byte("judge: gpt\nbackbones:\n  gpt:\n    base_url: http://x\n    model: m\n    timeout: abc\n    max_retries: many\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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
