package llm

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLoadLineNumbers: every kind of problem of a backbones file is named
// with the line it is on (the line of the key, of the value, or of the
// backbone's name for a missing key), in full, in line order.
func TestLoadLineNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []string // after "testdata/backbones/FILE"
	}{
		{"unknown_key.yaml", []string{`:12: backbone "x": unknown key "modle" (did you mean "model"?)`}},
		{"unknown_key_far.yaml", []string{`:5: backbone "x": unknown key "concurrency" (known keys: base_url, model, api_key_env, temperature, ` +
			`max_tokens, max_completion_tokens, reasoning_effort, send_reasoning, strip_think, extra_body, price, rpm, tpm, timeout, max_retries)`}},
		{"unknown_top_key.yaml", []string{`:1: unknown key "judges" (did you mean "judge"?)`}},
		{"wrong_type.yaml", []string{
			":5: backbone \"x\": temperature: `hot` is not a number",
			":6: backbone \"x\": max_tokens: `1.5` is not a whole number",
			":7: backbone \"x\": timeout: `90` is not a duration such as 90s or 5m",
			":8: backbone \"x\": send_reasoning: `maybe` is not true or false",
			`:10: backbone "x": price.input: a list is not a number`,
		}},
		{"missing_fields.yaml", []string{
			`:3: backbone "x": base_url is required`,
			`:3: backbone "x": model is required`,
			`:5: backbone "y": model is required`,
		}},
		{"bad_values.yaml", []string{
			`:1: judge: unknown backbone "nobody" (known: x)`,
			`:4: backbone "x": base_url "localhost:8000" is not an http(s) URL`,
			`:6: backbone "x": temperature 3 is outside [0, 2]`,
			`:7: backbone "x": reasoning_effort "huge" is not one of none, minimal, low, medium, high, xhigh`,
			`:8: backbone "x": max_retries 99 is outside [0, 20]`,
			`:10: backbone "x": extra_body may not set "messages"`,
			`:12: backbone "x": prices must not be negative`,
		}},
		{"duplicate_key.yaml", []string{`:5: backbone "x": key "model" given twice (first on line 4)`}},
		{"not_a_mapping.yaml", []string{
			":2: backbone \"x\": want a mapping of its settings (base_url, model, …), found `http://localhost:8000/v1`",
			":6: backbone \"y\": price: want a mapping (input, cached_input, output), found `3`",
		}},
		{"syntax.yaml", []string{":4: not valid YAML: did not find expected key"}},
		{"empty.yaml", []string{": empty document"}},
		{"no_backbones.yaml", []string{":2: no backbones defined"}},
		// Decoding and validation in one pass: a second run would find no
		// more (the unknown key stands for the missing model it suggests).
		{"one_pass.yaml", []string{
			`:4: backbone "x": unknown key "modle" (did you mean "model"?)`,
			`:8: backbone "y": temperature 3 is outside [0, 2]`,
			":9: backbone \"y\": timeout: `soon` is not a duration such as 90s or 5m",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "backbones", tc.file)
			_, err := Load(path)
			if err == nil {
				t.Fatalf("Load(%s) = nil error", path)
			}
			want := make([]string, len(tc.want))
			for i, w := range tc.want {
				want[i] = path + w
			}
			if got := err.Error(); got != strings.Join(want, "\n") {
				t.Errorf("Load(%s) error:\n%s\nwant:\n%s", path, got, strings.Join(want, "\n"))
			}
		})
	}
}

// FuzzDecode: any document decodes or fails with an error naming a line or
// saying what is wrong; it never panics, and a document that decodes
// decodes the same again.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "backbones", "*.yaml"))
	for _, p := range append(files, "../../../backbones.yaml") {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, probs := decode(b)
		if len(probs) > 0 {
			for _, p := range probs {
				if p.Msg == "" {
					t.Fatalf("problem without a message at line %d", p.Line)
				}
			}
			return
		}
		again, probs := decode(b)
		if len(probs) > 0 || !reflect.DeepEqual(cfg.Backbones, again.Backbones) || cfg.Judge != again.Judge {
			t.Fatalf("second decode differs: %v", probs)
		}
		_ = cfg.located(nil)
	})
}
