package cli

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/output/submit"
)

// Flag → options: each command's flags and arguments, parsed under the
// command line's contract (a root with --data, as NewRoot builds it), fill
// its Options struct; the runF hook receives them and nothing runs.

// optionCase is one command line and the options it must give, or a usage
// error.
type optionCase[T any] struct {
	name     string
	args     []string
	want     *T
	usageErr bool
}

// builder makes a command whose run function is runF.
type builder[T any] func(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *T) error) *cobra.Command

// parseOptions runs args (the command's own, after its name) through a root
// holding the command, returning the options runF received.
func parseOptions[T any](t *testing.T, build builder[T], args []string) (*T, error) {
	t.Helper()
	s := &Streams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}, Getenv: func(string) string { return "" }}
	g := &globalOptions{}
	var got *T
	cmd := build(s, g, func(_ context.Context, _ *Streams, o *T) error {
		got = o
		return nil
	})
	root := &cobra.Command{Use: "ledgerbench", SilenceUsage: true, SilenceErrors: true}
	root.PersistentFlags().StringVar(&g.DataDir, "data", "", "")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(cmd)
	contract(s, root)
	root.SetArgs(append([]string{"--data", "/d", cmd.Name()}, args...))
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	err := root.Execute()
	return got, err
}

func runOptionCases[T any](t *testing.T, build builder[T], cases []optionCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseOptions(t, build, tc.args)
			if tc.usageErr {
				if !errext.IsUsage(err) {
					t.Fatalf("%v: err = %v; want a usage error", tc.args, err)
				}
				if got != nil {
					t.Errorf("%v: runF called with %+v after a usage error", tc.args, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %v", tc.args, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%v: options\n%+v\nwant\n%+v", tc.args, got, tc.want)
			}
		})
	}
}

func TestVerifyOptions(t *testing.T) {
	t.Parallel()
	runOptionCases(t, newCmdVerify, []optionCase[verifyOptions]{
		{name: "defaults", want: &verifyOptions{DataDir: "/d", Domains: domains.Names(), Format: "text"}},
		{name: "every flag", args: []string{"--domain", "retail", "--domain", "airline", "--split", "base", "--task-ids", "1,2", "--limit", "3", "--allow-modified-data", "--format", "csv"},
			want: &verifyOptions{DataDir: "/d", Domains: []string{"retail", "airline"}, Split: "base", TaskIDs: []string{"1", "2"}, Limit: 3, Format: "csv", AllowModifiedData: true}},
		{name: "--json is --format json", args: []string{"--json"}, want: &verifyOptions{DataDir: "/d", Domains: domains.Names(), Format: "json"}},
		{name: "--format json with --json", args: []string{"--json", "--format", "json"}, want: &verifyOptions{DataDir: "/d", Domains: domains.Names(), Format: "json"}},
		{name: "markdown", args: []string{"--format", "markdown"}, want: &verifyOptions{DataDir: "/d", Domains: domains.Names(), Format: "markdown"}},
		{name: "unknown format", args: []string{"--format", "xml"}, usageErr: true},
		{name: "format and --json disagree", args: []string{"--format", "csv", "--json"}, usageErr: true},
		{name: "unknown domain", args: []string{"--domain", "nope"}, usageErr: true},
		{name: "stray argument", args: []string{"retail"}, usageErr: true},
		{name: "limit not a number", args: []string{"--limit", "x"}, usageErr: true},
	})
}

func TestGateAuditOptions(t *testing.T) {
	t.Parallel()
	runOptionCases(t, newCmdGateAudit, []optionCase[gateAuditOptions]{
		{name: "defaults", want: &gateAuditOptions{DataDir: "/d", Format: "text"}},
		{name: "every flag", args: []string{"--domain", "airline,retail", "--split", "test", "-v", "--strict", "--format", "markdown"},
			want: &gateAuditOptions{DataDir: "/d", Domains: []string{"airline", "retail"}, Split: "test", Format: "markdown", Verbose: true, Strict: true}},
		{name: "--json", args: []string{"--json"}, want: &gateAuditOptions{DataDir: "/d", Format: "json"}},
		{name: "plain file kept", args: []string{"--recorded", "x.json", "y.json"}, want: &gateAuditOptions{DataDir: "/d", Format: "text", Recorded: []string{"x.json", "y.json"}}},
		{name: "glob matching nothing", args: []string{"/nonexistent/*.json"}, usageErr: true},
		{name: "unknown format", args: []string{"--format", "html"}, usageErr: true},
		{name: "unknown domain", args: []string{"--domain", "bogus"}, usageErr: true},
	})
}

func TestReplayOptions(t *testing.T) {
	t.Parallel()
	runOptionCases(t, newCmdReplay, []optionCase[replayOptions]{
		{name: "every flag", args: []string{"--domain", "retail", "--task", "5", "--calls", "c.json", "--dump-db"},
			want: &replayOptions{DataDir: "/d", Domain: "retail", TaskID: "5", CallsFile: "c.json", DumpDB: true}},
		{name: "split", args: []string{"--domain", "tautrait-telecom", "--split", "train", "--task", "0", "--dump-db"},
			want: &replayOptions{DataDir: "/d", Domain: "tautrait-telecom", Split: "train", TaskID: "0", DumpDB: true}},
		{name: "gold actions", args: []string{"--domain", "airline", "--task", "0", "--dump-db"},
			want: &replayOptions{DataDir: "/d", Domain: "airline", TaskID: "0", DumpDB: true}},
		{name: "no task", args: []string{"--domain", "retail", "--dump-db"}, usageErr: true},
		{name: "nothing to print", args: []string{"--domain", "retail", "--task", "5"}, usageErr: true},
		{name: "unknown domain", args: []string{"--domain", "x", "--task", "5", "--dump-db"}, usageErr: true},
	})
}

func TestTasksOptions(t *testing.T) {
	t.Parallel()
	runOptionCases(t, newCmdTasks, []optionCase[tasksOptions]{
		{name: "domain only", args: []string{"--domain", "retail"}, want: &tasksOptions{DataDir: "/d", Domain: "retail", Format: "text"}},
		{name: "every flag", args: []string{"--domain", "telecom", "--split", "base", "--task-ids", "a,b", "--limit", "4", "--format", "csv"},
			want: &tasksOptions{DataDir: "/d", Domain: "telecom", Split: "base", TaskIDs: []string{"a", "b"}, Limit: 4, Format: "csv"}},
		{name: "no domain", usageErr: true},
		{name: "empty task ids", args: []string{"--domain", "retail", "--task-ids="}, usageErr: true},
	})
}

func TestExportOptions(t *testing.T) {
	t.Parallel()
	runOptionCases(t, newCmdExport, []optionCase[exportOptions]{
		{name: "run and file", args: []string{"runs/a", "out.json"}, want: &exportOptions{DataDir: "/d", Format: "tau2", Run: "runs/a", Out: "out.json"}},
		{name: "explicit format", args: []string{"--format", "tau2", "runs/a", "out.json"}, want: &exportOptions{DataDir: "/d", Format: "tau2", Run: "runs/a", Out: "out.json"}},
		{name: "other format", args: []string{"--format", "csv", "runs/a", "out.json"}, usageErr: true},
		{name: "one argument", args: []string{"runs/a"}, usageErr: true},
	})
}

func TestDataOptions(t *testing.T) {
	t.Parallel()
	runOptionCases(t, newCmdDataPull, []optionCase[dataPullOptions]{
		{name: "default source", want: &dataPullOptions{DataDir: "/d"}},
		{name: "from", args: []string{"--from", "../shared/upstream"}, want: &dataPullOptions{DataDir: "/d", From: "../shared/upstream"}},
		{name: "stray argument", args: []string{"now"}, usageErr: true},
	})
	runOptionCases(t, newCmdDataCheck, []optionCase[dataCheckOptions]{
		{name: "check", want: &dataCheckOptions{DataDir: "/d"}},
		{name: "stray argument", args: []string{"x"}, usageErr: true},
	})
}

func TestPromptOptions(t *testing.T) {
	t.Parallel()
	def := func(o promptOptions) *promptOptions {
		o.DataDir, o.Agent, o.Role, o.Backbone, o.BackbonesFile, o.Seed = "/d", "baseline", roleAgent, "gpt-4.1", defaultBackbonesFile, 300
		if o.UserMessage == "" {
			o.UserMessage = placeholderUserMessage
		}
		return &o
	}
	all := def(promptOptions{Domain: "retail", TaskID: "5", Trial: 2, UserMessage: "hi", UserStyle: "tau-trait"})
	all.Agent, all.Role, all.Backbone, all.BackbonesFile, all.Seed, all.AllowModifiedData = "ledger", roleUser, "sim", "b.yaml", 7, true
	runOptionCases(t, newCmdPrompt, []optionCase[promptOptions]{
		{name: "defaults", args: []string{"--domain", "airline", "--task", "0"}, want: def(promptOptions{Domain: "airline", TaskID: "0"})},
		{name: "every flag", args: []string{"--domain", "retail", "--task", "5", "--agent", "ledger", "--role", "user", "--backbone", "sim",
			"--backbones", "b.yaml", "--trial", "2", "--seed", "7", "--user-message", "hi", "--user-style", "tau-trait", "--allow-modified-data"}, want: all},
		{name: "no task", args: []string{"--domain", "retail"}, usageErr: true},
		{name: "unknown role", args: []string{"--domain", "retail", "--task", "5", "--role", "boss"}, usageErr: true},
		{name: "unknown agent", args: []string{"--domain", "retail", "--task", "5", "--agent", "nope"}, usageErr: true},
		{name: "negative trial", args: []string{"--domain", "retail", "--task", "5", "--trial", "-1"}, usageErr: true},
		{name: "unknown user style", args: []string{"--domain", "retail", "--task", "5", "--user-style", "nope"}, usageErr: true},
	})
}

func TestViewOptions(t *testing.T) {
	t.Parallel()
	runOptionCases(t, newCmdView, []optionCase[viewOptions]{
		{name: "defaults", args: []string{"runs/a"}, want: &viewOptions{DataDir: "/d", Inputs: []string{"runs/a"}, Out: "view.html", DBDiffs: 25, Split: "auto"}},
		{name: "every flag", args: []string{"runs/a", "b.json", "-o", "x.html", "--open", "--domain", "d", "--agent", "a", "--backbone", "b", "--user-backbone", "u",
			"--db-diffs", "-1", "--plain", "--split", "never", "--no-domains"},
			want: &viewOptions{Inputs: []string{"runs/a", "b.json"}, Out: "x.html", Open: true, Labels: report.Labels{Domain: "d", Agent: "a", Backbone: "b", UserBackbone: "u"},
				NoDomains: true, DBDiffs: -1, Plain: true, Split: "never"}},
		{name: "no run", usageErr: true},
		{name: "bad split", args: []string{"runs/a", "--split", "sometimes"}, usageErr: true},
		{name: "plain and split", args: []string{"runs/a", "--plain", "--split", "always"}, usageErr: true},
	})
}

func TestReportOptions(t *testing.T) {
	t.Parallel()
	runOptionCases(t, newCmdReport, []optionCase[reportOptions]{
		{name: "defaults", args: []string{"runs/a"}, want: &reportOptions{DataDir: "/d", Inputs: []string{"runs/a"}, Format: "text", FigureFormats: []string{"svg"}, Baseline: "baseline", Treatment: "ledger"}},
		{name: "every flag", args: []string{"runs/a", "--format", "json", "--table", "gate,costs", "--figures", "figs", "--figure-format", "png", "--baseline", "b", "--treatment", "t",
			"--k", "3", "--domain", "free label", "--agent", "x", "--no-domains"},
			want: &reportOptions{Inputs: []string{"runs/a"}, Format: "json", Tables: []string{"gate", "costs"}, Figures: "figs", FigureFormats: []string{"png"}, Baseline: "b", Treatment: "t",
				K: 3, Labels: report.Labels{Domain: "free label", Agent: "x"}, NoDomains: true}},
		{name: "no run", usageErr: true},
		{name: "unknown table", args: []string{"runs/a", "--table", "nope"}, usageErr: true},
		{name: "unknown format", args: []string{"runs/a", "--format", "xml"}, usageErr: true},
		{name: "k zero", args: []string{"runs/a", "--k", "0"}, usageErr: true},
		{name: "unknown figure format", args: []string{"runs/a", "--figure-format", "gif"}, usageErr: true},
	})
}

func TestSubmitOptions(t *testing.T) {
	t.Parallel()
	prepare := func(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *submitPrepareOptions) error) *cobra.Command {
		return newCmdSubmit(s, g, submitRunners{prepare: runF})
	}
	runOptionCases(t, prepare, []optionCase[submitPrepareOptions]{
		{name: "every flag", args: []string{"prepare", "runs/a", "runs/b", "--out", "sub", "--model-name", "m", "--model-organization", "o", "--submitting-organization", "so",
			"--email", "e@x", "--contact-name", "c", "--github", "gh", "--reasoning-effort", "high", "--notes", "n", "--new=false", "--date", "2026-01-02"},
			want: &submitPrepareOptions{Runs: []string{"runs/a", "runs/b"}, Out: "sub", DataDir: "/d", Opts: submit.Options{ModelName: "m", ModelOrganization: "o",
				SubmittingOrganization: "so", Email: "e@x", ContactName: "c", GitHub: "gh", ReasoningEffort: "high", Notes: "n", IsNew: false, Date: "2026-01-02", Harness: Version}}},
		{name: "no out", args: []string{"prepare", "runs/a"}, usageErr: true},
		{name: "no run", args: []string{"prepare", "--out", "sub"}, usageErr: true},
	})
	validate := func(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *submitValidateOptions) error) *cobra.Command {
		return newCmdSubmit(s, g, submitRunners{validate: runF})
	}
	runOptionCases(t, validate, []optionCase[submitValidateOptions]{
		{name: "dir", args: []string{"validate", "sub/x"}, want: &submitValidateOptions{DataDir: "/d", Dir: "sub/x"}},
		{name: "no dir", args: []string{"validate"}, usageErr: true},
	})
}

func TestVersionOptions(t *testing.T) {
	t.Parallel()
	version := func(s *Streams, _ *globalOptions, runF func(context.Context, *Streams, *versionOptions) error) *cobra.Command {
		return newCmdVersion(s, runF)
	}
	runOptionCases(t, version, []optionCase[versionOptions]{
		{name: "no arguments", want: &versionOptions{}},
		{name: "stray argument", args: []string{"now"}, usageErr: true},
	})
}
