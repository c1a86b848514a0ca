package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// Replay:FILE checks the recording's domain and trials before the
// run starts.
func TestReplayChecks(t *testing.T) {
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
