package submit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestInputs: a directory's results.json alone when it has one, else every
// *.json below it but manifest.json, each file without a manifest told
// once; a path that is neither is an error.
func TestInputs(t *testing.T) {
	t.Parallel()
	src := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "claude-sonnet-4-5_airline_default_gpt4.1_1trials.json")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("recorded airline run: %v", err)
	}
	write := func(path string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	withResults, walked, empty := t.TempDir(), t.TempDir(), t.TempDir()
	write(filepath.Join(withResults, "results.json"), b)
	write(filepath.Join(withResults, "other.json"), b)
	write(filepath.Join(walked, "a.json"), b)
	write(filepath.Join(walked, "sub", "b.json"), b)
	write(filepath.Join(walked, "sub", "manifest.json"), []byte("{}"))
	for _, tc := range []struct {
		name    string
		arg     string
		want    []string
		wantErr bool
	}{
		{"results.json alone", withResults, []string{filepath.Join(withResults, "results.json")}, false},
		{"every json below", walked, []string{filepath.Join(walked, "a.json"), filepath.Join(walked, "sub", "b.json")}, false},
		{"a file", src, []string{src}, false},
		{"no results files", empty, nil, true},
		{"missing", filepath.Join(empty, "nope"), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var told []string
			ins, err := Inputs(tc.arg, func(path, _ string) { told = append(told, path) })
			if tc.wantErr {
				if err == nil {
					t.Fatalf("Inputs(%s) = %d inputs; want an error", tc.arg, len(ins))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range ins {
				if in.File == nil {
					t.Errorf("%s: not read as a results file", in.Path)
				}
				got = append(got, in.Path)
			}
			if len(got) != len(tc.want) || len(told) != len(tc.want) {
				t.Fatalf("Inputs(%s) = %v (told %v); want %v", tc.arg, got, told, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("input %d = %s; want %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}
