package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
)

// TestNotResults checks that JSON files which are not results files are
// refused as such by both readers, and that empty results files are read.
func TestNotResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		v1         bool
		notResults bool
		want       string
	}{
		{"object", `{"foo": 1}`, false, true, `without a "simulations" list`},
		{"empty object", `{}`, false, true, `without a "simulations" list`},
		{"null simulations", `{"info": {}, "simulations": null}`, false, true, `without a "simulations" list`},
		{"no simulations run", `{"info": {}, "tasks": [], "simulations": []}`, false, false, ""},
		{"list of numbers", `[1, 2]`, true, true, "a JSON list of numbers"},
		{"list of tasks", `[{"id": "0", "description": {}, "user_scenario": {}}]`, true, true, `without "task_id" and "reward"`},
		{"entry without reward", `[{"task_id": 0, "traj": []}]`, true, true, `without "task_id" and "reward"`},
		{"empty list", `[]`, true, false, ""},
		{"v1 entry", `[{"task_id": 0, "reward": 1, "info": {}, "traj": [], "trial": 0}]`, true, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			if tc.v1 {
				_, err = results.ReadV1(p, results.V1Labels{})
			} else {
				_, err = results.ReadTau2(p)
			}
			if got := errors.Is(err, results.ErrNotResults); got != tc.notResults {
				t.Fatalf("error %v: not-results %v; want %v", err, got, tc.notResults)
			}
			if tc.notResults && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q; want it to say %q", err, tc.want)
			}
			if !tc.notResults && err != nil {
				t.Errorf("error %v; want none", err)
			}
		})
	}
}
