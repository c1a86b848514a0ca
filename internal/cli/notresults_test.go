package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotResultsFile gives report, view and rescore JSON files that are not
// results files: each exits 1 saying so, never "holds no records" or an
// unknown domain "".
func TestNotResultsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ name, body string }{
		{"object.json", `{"foo": 1}`},
		{"empty-object.json", `{}`},
		{"tasks.json", `[{"id": "0", "description": {"purpose": "x"}, "user_scenario": {}}]`},
		{"numbers.json", `[1, 2, 3]`},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range [][]string{{"report", "--no-domains", p}, {"view", "--no-domains", "--out", filepath.Join(dir, "v.html"), p}, {"rescore", p}} {
			r := execCLI(t, t.Context(), cmd...)
			if r.code != ExitError || !strings.Contains(r.errOut, tc.name+": not a results file") ||
				strings.Contains(r.errOut, "holds no records") || strings.Contains(r.errOut, `domain ""`) {
				t.Errorf("%s %s: exit %d, stderr %q; want exit 1 saying it is not a results file", cmd[0], tc.name, r.code, r.errOut)
			}
		}
	}
	// A τ²-bench file without a domain and with simulations names what is missing.
	p := filepath.Join(dir, "nodomain.json")
	if err := os.WriteFile(p, []byte(`{"info": {}, "simulations": [{"id": "a", "task_id": "0", "messages": []}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := execCLI(t, t.Context(), "rescore", p); r.code != ExitError || !strings.Contains(r.errOut, "names no domain") {
		t.Errorf("rescore nodomain.json: exit %d, %q; want the missing domain named", r.code, r.errOut)
	}
}
