package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func TestLeaderboardOptions(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	runOptionCases(t, newCmdLeaderboard, []optionCase[leaderboardOptions]{
		{name: "defaults", want: &leaderboardOptions{DataDir: "/d", Metric: "pass_1", Format: "text"}},
		{name: "every flag", args: []string{"r1", "r2", "--domain", "airline", "--metric", "pass^4", "--limit", "5", "--type", "all", "--legacy", "--format", "csv"},
			want: &leaderboardOptions{DataDir: "/d", Runs: []string{"r1", "r2"}, Domain: "airline", Metric: "pass^4", Limit: 5, Type: "all", Legacy: true, Format: "csv"}},
		{name: "short flags, upstream's", args: []string{"-d", "banking_knowledge", "-m", "cost", "-n", "3"},
			want: &leaderboardOptions{DataDir: "/d", Domain: "banking_knowledge", Metric: "cost", Limit: 3, Format: "text"}},
		{name: "--json", args: []string{"--json"}, want: &leaderboardOptions{DataDir: "/d", Metric: "pass_1", Format: "json"}},
		{name: "unknown domain", args: []string{"--domain", "telehealth"}, usageErr: true},
		{name: "unknown metric", args: []string{"--metric", "pass_5"}, usageErr: true},
		{name: "unknown type", args: []string{"--type", "legacy"}, usageErr: true},
		{name: "negative limit", args: []string{"--limit", "-1"}, usageErr: true},
	})
}

// TestLeaderboardUsageOneLine: bad flags exit 2 with one line naming the
// flag.
func TestLeaderboardUsageOneLine(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"leaderboard", "--domain", "nope"}, `unknown domain "nope"`},
		{[]string{"leaderboard", "--domain", "telehealth"}, `--domain "telehealth": the leaderboard's domains are`},
		{[]string{"leaderboard", "--metric", "pass_9"}, "--metric"},
		{[]string{"leaderboard", "--type", "x"}, `--type "x"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, errOut, code := runCLI(t, append(tc.args, "--data", t.TempDir())...)
			if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want 2 and one line naming %s", code, errOut, tc.want)
			}
		})
	}
}

// TestLeaderboardPlacesSimRun: a sim run is placed among the published
// retail entries in the custom table only, unranked and SIMULATED, with a
// footnote saying what differs; a missing run is a one-line error.
func TestLeaderboardPlacesSimRun(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	root := datatest.Root(t)
	run := filepath.Join(t.TempDir(), "sim")
	if _, errOut, code := runCLI(t, "run", "--domain", "retail", "--backbone", "sim", "--limit", "3", "--trials", "1", "--no-judge", "--out", run, "--data", root); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	out, errOut, code := runCLI(t, "leaderboard", "--domain", "retail", run, "--data", root)
	if code != 0 {
		t.Fatalf("leaderboard: exit %d: %s", code, errOut)
	}
	standard, custom, ok := strings.Cut(out, "custom submissions")
	if !ok {
		t.Fatalf("no custom table in %s", out)
	}
	if strings.Contains(standard, "baseline · sim") {
		t.Errorf("the sim run is in the standard table:\n%s", standard)
	}
	var row string
	for _, l := range strings.Split(custom, "\n") {
		if strings.Contains(l, "baseline · sim") && strings.HasPrefix(l, "|") {
			row = l
		}
	}
	if !strings.Contains(row, "| —") || !strings.Contains(row, "(SIMULATED)") {
		t.Errorf("sim run row %q; want unranked and SIMULATED", row)
	}
	for _, want := range []string{"SIMULATED: an offline backbone, not a model's result", "1 trial(s) a task", "3 of the 114 base tasks", "would be a custom submission"} {
		if !strings.Contains(custom, want) {
			t.Errorf("custom table notes lack %q:\n%s", want, custom)
		}
	}
	_, errOut, code = runCLI(t, "leaderboard", filepath.Join(t.TempDir(), "none"), "--data", root)
	if code != 1 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("missing run: exit %d, %q; want 1 and one line", code, errOut)
	}
}
