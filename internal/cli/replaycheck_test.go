package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// Replay:FILE checks the recording's domain and trials before the
// run starts.
func TestReplayChecks(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	rec := "replay:" + filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "toolorchestra_retail_gpt-5_1trial.json")
	out := func() string { return filepath.Join(t.TempDir(), "run") }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--domain", "airline", "--trials", "1"}, "the recording is of domain retail, not airline"},
		{[]string{"--domain", "retail", "--trials", "2", "--limit", "3"}, "3 of the 6 selected simulations are not recorded"},
	} {
		r := execCLI(t, t.Context(), append([]string{"run", "--backbone", rec, "--user-backbone", rec, "--no-judge", "--quiet", "--out", out()}, tc.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("run %v: exit %d, %q; want %d and %q", tc.args, r.code, r.errOut, ExitUsage, tc.want)
		}
	}
	mustRun(t, "run", "--backbone", rec, "--user-backbone", rec, "--no-judge", "--quiet", "--domain", "retail", "--trials", "1", "--limit", "2", "--out", out())
}

// replay:FILE of a τ-bench v1 / τ-Trait results list is detected as rescore
// detects it: a list of another domain, split or benchmark is refused before
// the run starts, one whose recorded tasks match no ported domain is an
// error naming the entry, and the detection's notes are warnings.
func TestReplayChecksV1(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := datatest.Trajectories(t)
	trait := filepath.Join(dir, "collinear-ai+tau-trait")
	airline := filepath.Join(trait, "confusion_airline.json")
	telehealth := filepath.Join(trait, "telehealth_none.json")
	v1 := filepath.Join(dir, "sierra-research+tau-bench", "gpt-4o-airline.json")
	for _, p := range []string{airline, telehealth, v1} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("recording %s: %v", p, err)
		}
	}
	// telecom_none.json with entry 3's recorded task given another user
	var list []map[string]any
	raw, err := os.ReadFile(filepath.Join(trait, "telecom_none.json"))
	if err != nil {
		t.Skipf("recording: %v", err)
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	list[3]["info"].(map[string]any)["task"].(map[string]any)["user_id"] = "nobody_0000"
	other := filepath.Join(t.TempDir(), "other_version.json")
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file string
		args       []string
		code       int
		want       string
	}{
		{"another domain", airline, []string{"--domain", "taubench-airline"}, ExitUsage, "the recording is of domain tautrait-airline, not taubench-airline"},
		{"another split", telehealth, []string{"--domain", "telehealth", "--split", "dev"}, ExitUsage, "the recording is of telehealth's test split, not dev"},
		{"another benchmark", airline, []string{"--domain", "airline"}, ExitUsage, "replays on τ-Trait's and τ-bench v1's domains, not airline"},
		{"another version", other, []string{"--domain", "tautrait-telecom"}, ExitError, "match no ported domain: tautrait-telecom test split: entry 3 (task 3): user nobody_0000"},
		{"alike domains", v1, []string{"--domain", "tautrait-airline", "--limit", "1"}, ExitOK, "warning: --backbone replay:" + v1 + ": the recorded tasks are tautrait-airline's and taubench-airline's alike"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := "replay:" + tc.file
			r := execCLI(t, t.Context(), append([]string{"run", "--backbone", rec, "--user-backbone", rec, "--no-judge", "--quiet", "--trials", "1",
				"--out", filepath.Join(t.TempDir(), "run")}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.errOut, tc.want) {
				t.Errorf("run %v: exit %d, %q; want %d and %q", tc.args, r.code, r.errOut, tc.code, tc.want)
			}
		})
	}
}
