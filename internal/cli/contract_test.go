package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Usage errors exit 2 and say what is wrong in words a
// person reads.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus" for "ledgerbench"`},
		{[]string{"data", "bogus"}, `unknown command "bogus" for "ledgerbench data"`},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh" for "ledgerbench completion"`},
		{[]string{"completion", "bash", "x"}, `unexpected argument "x"`},
		{[]string{"version", "x"}, `unexpected argument "x"`},
		{[]string{"run", "extra", "--domain", "retail"}, `unexpected argument "extra"`},
		{[]string{"tasks", "--domain", "retail", "x"}, `unexpected argument "x"`},
		{[]string{"export", "a"}, "accepts 2 arg(s), received 1 (usage: ledgerbench export"},
		{[]string{"run", "--domain", "nope", "--backbone", "sim"}, `--domain: unknown domain "nope" (have: airline, retail`},
		{[]string{"verify", "--domain", "retail", "--domain", "nope"}, `--domain: unknown domain "nope"`},
		{[]string{"run", "--domain", "retail", "--agent", "nope", "--backbone", "sim"}, `--agent: unknown agent "nope" (have: baseline, ledger`},
		{[]string{"run", "--domain", "retail", "--backbone", "sim", "--trials", "0"}, "--trials must be at least 1 (got 0)"},
		{[]string{"run", "--domain", "retail", "--backbone", "sim", "--concurrency", "-2"}, "--concurrency must be at least 1 (got -2)"},
		{[]string{"report", "--k", "0", "x"}, "--k must be at least 1"},
		{[]string{"run", "--domain", "retail", "--backbone", "sim", "--task-ids", ""}, "--task-ids is empty"},
		{[]string{"tasks", "--domain", "retail", "--task-ids="}, "--task-ids is empty"},
		{[]string{"run", "--domain", "retail", "--trials", "x"}, `--trials "x": want a whole number`},
		{[]string{"run", "--domain", "retail", "--timeout", "5"}, `--timeout "5": want a duration such as 90s`},
		{[]string{"run", "--domain", "retail", "--min-pass", "high"}, `--min-pass "high": want a number`},
		{[]string{"run", "--nope"}, "unknown flag: --nope"},
		{[]string{"verify", "--format", "xml"}, `--format "xml": ledgerbench verify prints text, json, csv or markdown`},
		{[]string{"rescore", "--format", "csv", "x.json"}, `--format "csv": ledgerbench rescore prints text or json`},
		{[]string{"gate-audit", "--format", "text", "--json"}, "--format text and --json disagree"},
		{[]string{"run", "--domain", "retail", "--backbone", "sim", "--shard", "auto"}, "neither SLURM_ARRAY_TASK_ID"},
		{[]string{"run", "--domain", "retail", "--backbone", "sim", "--shard-count", "2"}, "--shard-count goes with --shard auto"},
		// Each flag's value is checked once, and a message names the one
		// flag at fault.
		{[]string{"run", "--domain", "retail", "--backbone", "sim", "--limit", "-1"}, "--limit must not be negative (got -1)"},
		{[]string{"run", "--domain", "retail", "--backbone", "sim", "--grace", "-1s"}, "--grace must not be negative (got -1s)"},
		{[]string{"run", "--domain", "retail", "--backbone", "sim", "--max-errors", "0"}, "--max-errors must be at least 1 (got 0)"},
		{[]string{"tasks", "--domain", "retail", "--limit", "-1"}, "--limit must not be negative (got -1)"},
		{[]string{"prompt", "--domain", "retail", "--task", "0", "--trial", "-1"}, "--trial must not be negative (got -1)"},
		{[]string{"experiment", "--parallel-cells", "0", "x.yaml"}, "--parallel-cells must be at least 1 (got 0)"},
		{[]string{"run", "--domain", "retail", "--backbone", "sim", "--loop", "nope"}, `--loop: unknown loop "nope" (have: tau2, tau-trait)`},
		{[]string{"run", "--domain", "retail", "--backbone", "sim", "--user-style", "nope"}, `--user-style: unknown user style "nope" (have: tau2, tau-trait)`},
		{[]string{"run", "--domain", "telehealth", "--backbone", "sim", "--trait-mode", "loud"}, `--trait-mode: unknown trait mode "loud"`},
		{[]string{"submit", "prepare", "--date", "2026-13-45", "--out", "x", "run"}, `--date "2026-13-45": want a date YYYY-MM-DD`},
		{[]string{"review", "x"}, "review needs --backbone"},
		{[]string{"review", "--backbone", "b", "--mode", "agent", "x"}, `unknown review mode "agent" (have: full, user)`},
		{[]string{"review", "--backbone", "b"}, "accepts 1 arg(s), received 0 (usage: ledgerbench review"},
	}
	for _, tc := range tests {
		r := execCLI(t, t.Context(), tc.args...)
		if r.code != ExitUsage || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("ledgerbench %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), r.code, r.errOut, ExitUsage, tc.want)
		}
		for _, goName := range []string{"strconv.", "time.Duration", "llm.", "results.", "cobra"} {
			if strings.Contains(r.errOut, goName) {
				t.Errorf("ledgerbench %s: stderr names Go's %q: %s", strings.Join(tc.args, " "), goName, r.errOut)
			}
		}
	}
}

// `version`, and -v is --verbose everywhere (never --version).
func TestVersionAndVerbose(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := mustRun(t, args...)
		if !strings.HasPrefix(r.out, "ledgerbench "+Version) {
			t.Errorf("ledgerbench %s = %q", strings.Join(args, " "), r.out)
		}
	}
	if r := execCLI(t, t.Context(), "-v"); r.code != ExitUsage {
		t.Errorf("ledgerbench -v: exit %d; want %d (-v is not --version)", r.code, ExitUsage)
	}
	root := NewRoot(&Streams{Getenv: func(string) string { return "" }})
	for _, c := range root.Commands() {
		if fl := c.Flags().ShorthandLookup("v"); fl != nil && fl.Name != "verbose" {
			t.Errorf("%s: -v is --%s; want --verbose", c.Name(), fl.Name)
		}
	}
}

// --format works wherever --json does.
func TestFormatAlias(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "verify", "--domain", "retail", "--task-ids", "0", "--format", "json")
	if !strings.HasPrefix(strings.TrimSpace(r.out), "{") {
		t.Errorf("verify --format json printed:\n%s", r.out)
	}
	j := mustRun(t, "verify", "--domain", "retail", "--task-ids", "0", "--json")
	if j.out != r.out {
		t.Errorf("--json and --format json differ:\n%s\n%s", j.out, r.out)
	}
}

// Shell completion of flag values, backbone names from the file.
func TestCompletion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--domain", ""}, []string{"airline", "retail", "telecom", "telehealth"}},
		{[]string{"run", "--agent", ""}, []string{"baseline", "ledger", "irma"}},
		{[]string{"run", "--backbones", "../../backbones.yaml", "--backbone", ""}, []string{"sim", "gold", "gpt-4.1"}},
		{[]string{"report", "--table", ""}, []string{"table2", "gate", "costs"}},
		{[]string{"report", "--format", ""}, []string{"text", "markdown", "csv", "json"}},
		{[]string{"verify", "--format", ""}, []string{"text", "json", "csv", "markdown"}},
		{[]string{"gate-audit", "--format", ""}, []string{"text", "json", "csv", "markdown"}},
		{[]string{"rescore", "--format", ""}, []string{"text", "json"}},
		{[]string{"review", "--mode", ""}, []string{"full", "user"}},
		{[]string{"run", "--review-mode", ""}, []string{"full", "user"}},
		{[]string{"review", "--backbones", "../../backbones.yaml", "--backbone", ""}, []string{"gpt-4.1"}},
	}
	for _, tc := range tests {
		r := mustRun(t, append([]string{"__complete"}, tc.args...)...)
		for _, w := range tc.want {
			if !strings.Contains("\n"+r.out, "\n"+w+"\n") {
				t.Errorf("complete %v lacks %q:\n%s", tc.args, w, r.out)
			}
		}
	}
}

// --shard auto from a Slurm array or a Kubernetes Indexed Job.
func TestShardFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		count   int
		i, n    int
		wantErr string
	}{
		{"slurm from 0", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, 1, 4, ""},
		{"slurm from 1", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, 4, 4, ""},
		{"slurm count flag", map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, 3, 3, 3, ""},
		{"slurm disagrees", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, 3, 0, 0, "--shard-count 3 but SLURM_ARRAY_TASK_COUNT=4"},
		{"slurm step", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "2"}, 0, 0, 0, "step 2"},
		{"slurm outside", map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, 0, 0, "outside the array"},
		{"k8s", map[string]string{"JOB_COMPLETION_INDEX": "2"}, 3, 3, 3, ""},
		{"k8s no count", map[string]string{"JOB_COMPLETION_INDEX": "0"}, 0, 0, 0, "needs --shard-count"},
		{"k8s too big", map[string]string{"JOB_COMPLETION_INDEX": "3"}, 3, 0, 0, "JOB_COMPLETION_INDEX=3 but --shard-count 3"},
		{"not a number", map[string]string{"JOB_COMPLETION_INDEX": "x"}, 3, 0, 0, "not a whole number"},
		{"nothing", nil, 2, 0, 0, "neither"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i, n, _, err := shardFromEnv(func(k string) string { return tc.env[k] }, tc.count)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err = %v; want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || i != tc.i || n != tc.n {
				t.Errorf("shardFromEnv = %d/%d, %v; want %d/%d", i, n, err, tc.i, tc.n)
			}
		})
	}
}

// Every runnable command says which arguments it takes; nothing is read
// from its usage line.
func TestCommandsDeclareArgs(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && c.Args == nil {
			t.Errorf("%s: no Args", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRoot(&Streams{Getenv: func(string) string { return "" }}))
}
