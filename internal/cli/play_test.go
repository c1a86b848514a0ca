package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/engine/play"
	"github.com/ledgerbench/ledgerbench/internal/engine/runplan"
)

func TestPlayOptions(t *testing.T) {
	t.Parallel()
	def := func(o playOptions) *playOptions {
		r := &o.Run
		r.DataDir, r.BackbonesFile, r.Seed, r.MaxSteps, r.MaxErrors = "/d", defaultBackbonesFile, 300, 200, 10
		if r.Agent == "" {
			r.Agent = "baseline"
		}
		if o.As == "" {
			o.As = "agent"
		}
		o.Set = map[string]bool{"backbones": o.Set["backbones"]}
		return &o
	}
	all := def(playOptions{Options: play.Options{As: "user", Task: "5", Run: runplan.Options{Domain: "telecom", Backbone: "gold", UserBackbone: "u",
		Agent: "ledger", JudgeBackbone: "j", BackbonesFile: "b.yaml", Split: "full", Seed: 7, MaxSteps: 30, MaxErrors: 3, Timeout: time.Minute,
		Out: "o", Solo: true, EnforceProtocol: true, AllowModifiedData: true}}, Set: map[string]bool{"backbones": true}})
	all.Run.BackbonesFile, all.Run.Seed, all.Run.MaxSteps, all.Run.MaxErrors = "b.yaml", 7, 30, 3
	runOptionCases(t, newCmdPlay, []optionCase[playOptions]{
		{name: "defaults", args: []string{"--domain", "retail", "--task", "0", "--user-backbone", "sim"},
			want: def(playOptions{Options: play.Options{Task: "0", Run: runplan.Options{Domain: "retail", UserBackbone: "sim"}}})},
		{name: "every flag", args: []string{"--domain", "telecom", "--task", "5", "--as", "user", "--backbone", "gold", "--user-backbone", "u",
			"--agent", "ledger", "--judge-backbone", "j", "--backbones", "b.yaml", "--split", "full", "--seed", "7", "--max-steps", "30",
			"--max-errors", "3", "--timeout", "1m", "--out", "o", "--solo", "--enforce-communication-protocol", "--allow-modified-data"}, want: all},
		{name: "no judge", args: []string{"--domain", "retail", "--task", "0", "--no-judge"},
			want: def(playOptions{Options: play.Options{Task: "0", Run: runplan.Options{Domain: "retail", NoJudge: true}}})},
		{name: "unknown domain", args: []string{"--domain", "nope", "--task", "0"}, usageErr: true},
		{name: "unknown agent", args: []string{"--domain", "retail", "--task", "0", "--agent", "nope"}, usageErr: true},
		{name: "zero max steps", args: []string{"--domain", "retail", "--task", "0", "--max-steps", "0"}, usageErr: true},
		{name: "stray argument", args: []string{"--domain", "retail", "--task", "0", "x"}, usageErr: true},
	})
}

// TestPlayContract: play's exit codes as the README states them: usage
// errors 2 naming the flag; an unfinished conversation (end of input) is
// recorded and exits 0, its run read by report.
func TestPlayContract(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--domain", "retail", "--task", "0", "--as", "judge"}, `--as "judge": play the agent or the user`},
		{[]string{"play", "--domain", "retail", "--user-backbone", "sim"}, "no task chosen: pass --task"},
		{[]string{"play", "--domain", "retail", "--task", "0", "--as", "user"}, "needs the agent's backbone: pass --backbone"},
		{[]string{"play", "--domain", "retail", "--task", "0", "--backbone", "gold"}, "--backbone drives the agent, which you play"},
		{[]string{"play", "--domain", "retail", "--task", "nope", "--user-backbone", "sim"}, "nope"},
		{[]string{"play", "--domain", "retail", "--task", "0", "--backbones", filepath.Join(t.TempDir(), "none.yaml")}, "none.yaml"},
	} {
		r := execCLI(t, t.Context(), tc.args...)
		want := ExitUsage
		if strings.Contains(tc.want, "none.yaml") {
			want = ExitError // a backbones file named but missing
		}
		if r.code != want || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("ledgerbench %s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), r.code, r.errOut, want, tc.want)
		}
	}
	out := filepath.Join(t.TempDir(), "run")
	r := mustRun(t, "play", "--domain", "retail", "--task", "0", "--user-backbone", "sim", "--out", out)
	if !strings.Contains(r.out, "simulation ended: agent_error ("+play.ErrEndOfInput.Error()+")") {
		t.Errorf("stdout:\n%s", r.out)
	}
	rep := mustRun(t, "report", "--format", "csv", "--table", "overview", out)
	if !strings.Contains(rep.out, "retail,human,human,sim,1,1,0,1,0,0") {
		t.Errorf("report:\n%s", rep.out)
	}
}
