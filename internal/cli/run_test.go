package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// execResult is what one in-process command run produced.
type execResult struct {
	code        int
	out, errOut string
}

// execCLI runs the command line in process with buffered streams.
func execCLI(t *testing.T, ctx context.Context, args ...string) execResult {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(string) string { return "" }}
	code := Execute(ctx, s, append([]string{"--data", datatest.Root(t)}, args...))
	return execResult{code: code, out: out.String(), errOut: errOut.String()}
}

func mustRun(t *testing.T, args ...string) execResult {
	t.Helper()
	r := execCLI(t, context.Background(), args...)
	if r.code != ExitOK {
		t.Fatalf("ledgerbench %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.out, r.errOut)
	}
	return r
}

func loadRun(t *testing.T, dir string) *results.Run {
	t.Helper()
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func rawLines(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, results.SimulationsFile))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

var simArgs = []string{"run", "--domain", "retail", "--backbone", "sim", "--no-judge", "--limit", "6", "--trials", "2", "--concurrency", "4"}

func TestRunSimRetailAndResume(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	r := mustRun(t, append(simArgs, "--out", dir)...)
	for _, want := range []string{"pass^1", "pass^2", "avg reward", "12 recorded: 12 scored, 0 infrastructure errors", "NL assertions not judged (--no-judge)", "terminations"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.out)
		}
	}
	if !strings.Contains(r.errOut, "6 tasks × 2 trials = 12 simulations") {
		t.Errorf("header missing:\n%s", r.errOut)
	}
	run := loadRun(t, dir)
	m := run.Manifest
	if len(run.Records) != 12 || m.Trials != 2 || len(m.TaskIDs) != 6 || m.Backbone != "sim" || !m.NoJudge ||
		m.DataHash == "" || len(m.TrialSeeds) != 2 || m.TrialSeeds[0] != 626729 || len(m.PromptHashes) == 0 || m.Backbones["sim"] == nil {
		t.Errorf("manifest %+v, %d records", m, len(run.Records))
	}
	for _, rec := range run.Records {
		if !rec.Simulated || rec.Agent != "baseline" || rec.Backbone != "sim" || rec.Seed != m.TrialSeeds[rec.Trial] {
			t.Errorf("record %v: simulated %v agent %q backbone %q seed %d", rec.Key(), rec.Simulated, rec.Agent, rec.Backbone, rec.Seed)
		}
	}

	// Rerunning into the same directory (no flags but --out) runs nothing.
	r = mustRun(t, "run", "--out", dir)
	if !strings.Contains(r.errOut, "continuing: 12 simulations recorded, 0 to run") {
		t.Errorf("resume header:\n%s", r.errOut)
	}
	if n := rawLines(t, dir); n != 12 {
		t.Errorf("%d lines after a no-op resume; want 12", n)
	}

	// More trials extend the run with the same seeds.
	r = mustRun(t, "run", "--resume", "--out", dir, "--trials", "3")
	if !strings.Contains(r.errOut, "6 to run") || !strings.Contains(r.out, "pass^3") {
		t.Errorf("extension output:\n%s\n%s", r.errOut, r.out)
	}
	run = loadRun(t, dir)
	if len(run.Records) != 18 || run.Manifest.Trials != 3 || run.Manifest.TrialSeeds[2] != 361454 {
		t.Errorf("after extension: %d records, manifest trials %d seeds %v", len(run.Records), run.Manifest.Trials, run.Manifest.TrialSeeds)
	}
}

func TestRunRefusesChangedManifest(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	mustRun(t, append(simArgs, "--out", dir)...)
	r := execCLI(t, context.Background(), "run", "--out", dir, "--backbone", "gold", "--limit", "7")
	if r.code != ExitError {
		t.Fatalf("exit %d; want %d\n%s", r.code, ExitError, r.errOut)
	}
	for _, want := range []string{"manifest differs", `backbone: "sim" → "gold"`, "task_ids: 1 added (6)"} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("error lacks %q:\n%s", want, r.errOut)
		}
	}
	if n := rawLines(t, dir); n != 12 {
		t.Errorf("refused resume wrote records: %d lines", n)
	}
}

func TestRunUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"needs judge", []string{"run", "--domain", "retail", "--backbone", "sim", "--limit", "40", "--out", "x"}, ExitUsage, "need a judge"},
		{"no backbone", []string{"run", "--domain", "retail"}, ExitUsage, "--backbone is required"},
		{"bad shard", []string{"run", "--domain", "retail", "--backbone", "sim", "--shard", "3/2"}, ExitUsage, "want i/n"},
		{"resume without out", []string{"run", "--resume"}, ExitUsage, "--resume needs --out"},
		{"resume nothing", []string{"run", "--resume", "--out", "/nonexistent/run"}, ExitError, "holds no run"},
		{"judge conflict", []string{"run", "--domain", "retail", "--backbone", "sim", "--no-judge", "--judge-backbone", "x"}, ExitUsage, "exclude each other"},
		{"unknown backbone file", []string{"run", "--domain", "retail", "--backbone", "sim", "--no-judge", "--backbones", "/nonexistent.yaml"}, ExitError, "load backbones"},
		{"unknown backbone", []string{"run", "--domain", "retail", "--backbone", "nope", "--no-judge", "--backbones", "../../backbones.yaml"}, ExitUsage, `unknown backbone "nope" (known: `},
		{"backbone without a file", []string{"run", "--domain", "retail", "--backbone", "nope", "--no-judge"}, ExitUsage, "no backbones file was given (hint: pass --backbones backbones.yaml)"},
		{"bad sim rates", []string{"run", "--domain", "retail", "--backbone", "sim:stale=2", "--no-judge"}, ExitUsage, "outside [0, 1]"},
		{"trait mode without traits", []string{"run", "--domain", "telehealth", "--backbone", "sim", "--no-judge", "--trait-mode", "ignore"}, ExitUsage, "--trait-mode ignore needs --traits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := execCLI(t, context.Background(), tc.args...)
			if r.code != tc.code || !strings.Contains(r.errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.errOut, tc.code, tc.want)
			}
		})
	}
}

func TestRunMinPass(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	r := execCLI(t, context.Background(), append(simArgs, "--out", dir, "--quiet", "--min-pass", "1")...)
	if r.code != ExitFailed || !strings.Contains(r.errOut, "below --min-pass") {
		t.Fatalf("exit %d; want %d\n%s", r.code, ExitFailed, r.errOut)
	}
	r = execCLI(t, context.Background(), "run", "--out", dir, "--quiet", "--min-pass", "0.1")
	if r.code != ExitOK {
		t.Fatalf("exit %d; want 0\n%s", r.code, r.errOut)
	}
	if r.errOut != "" {
		t.Errorf("--quiet printed %q", r.errOut)
	}
}

func TestRunInterruptedThenResumed(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--domain", "retail", "--backbone", "sim", "--no-judge", "--limit", "30", "--trials", "2", "--concurrency", "1", "--out", dir}
	datatest.Root(t) // skips here, on the test goroutine, when the data is absent
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan execResult, 1)
	go func() { done <- execCLI(t, ctx, args...) }()
	// Stop once a few simulations are recorded.
	path := filepath.Join(dir, results.SimulationsFile)
	for {
		b, _ := os.ReadFile(path)
		if bytes.Count(b, []byte("\n")) >= 5 {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("the run ended (exit %d) before 5 simulations were recorded\n%s", r.code, r.errOut)
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	r := <-done
	if r.code != ExitInterrupted || !strings.Contains(r.errOut, "interrupted") {
		t.Fatalf("exit %d; want %d\n%s", r.code, ExitInterrupted, r.errOut)
	}
	first := rawLines(t, dir)
	if first >= 60 {
		t.Fatalf("the run finished (%d records) before the interrupt", first)
	}
	r = mustRun(t, "run", "--out", dir)
	run := loadRun(t, dir)
	if len(run.Records) != 60 || rawLines(t, dir) != 60 {
		t.Errorf("after resume: %d units, %d lines; want 60, 60", len(run.Records), rawLines(t, dir))
	}
}

func TestRunTraitsRecordedAndValidated(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	mustRun(t, "run", "--domain", "telehealth", "--backbone", "sim", "--no-judge", "--limit", "1", "--trials", "1",
		"--traits", "impatience=high,confusion=low", "--quiet", "--out", dir)
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Traits != "impatience=high,confusion=low" {
		t.Errorf("manifest traits = %q", m.Traits)
	}
	r := execCLI(t, t.Context(), "run", "--domain", "telehealth", "--backbone", "sim", "--no-judge", "--traits", "impatience=extreme", "--out", filepath.Join(t.TempDir(), "x"))
	if r.code != ExitUsage || !strings.Contains(r.errOut, "extreme") {
		t.Errorf("bad trait level: exit %d, %q", r.code, r.errOut)
	}
}

// TestRunEnforceProtocolRecorded: --enforce-communication-protocol is off
// by default, recorded in the manifest when given, inherited by a resume,
// and refused on τ-Trait's loop, which has no such rule.
func TestRunEnforceProtocolRecorded(t *testing.T) {
	t.Parallel()
	base := []string{"run", "--domain", "retail", "--backbone", "sim", "--no-judge", "--limit", "1", "--trials", "1", "--quiet"}
	off := filepath.Join(t.TempDir(), "off")
	mustRun(t, append(base, "--out", off)...)
	on := filepath.Join(t.TempDir(), "on")
	mustRun(t, append(base, "--out", on, "--enforce-communication-protocol")...)
	mustRun(t, append(base, "--out", on, "--resume")...)
	for _, tc := range []struct {
		dir  string
		want bool
	}{{off, false}, {on, true}} {
		m, err := results.ReadManifest(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		if m.EnforceProtocol != tc.want {
			t.Errorf("%s: manifest enforce_communication_protocol = %v; want %v", filepath.Base(tc.dir), m.EnforceProtocol, tc.want)
		}
	}
	r := execCLI(t, t.Context(), "run", "--domain", "telehealth", "--backbone", "sim", "--no-judge", "--limit", "1",
		"--enforce-communication-protocol", "--out", filepath.Join(t.TempDir(), "x"))
	if r.code != ExitUsage || !strings.Contains(r.errOut, "--loop tau2") {
		t.Errorf("τ-Trait loop: exit %d, %q; want a usage error naming --loop tau2", r.code, r.errOut)
	}
}
