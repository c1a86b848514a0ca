package cli

import (
	"context"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/engine/runplan"
)

// execOptions runs cmd with args and returns what its runF received (the
// error of the parse otherwise).
func execOptions[O any](t *testing.T, mk func(runF func(context.Context, *O) error) *cobra.Command, args ...string) (*O, error) {
	t.Helper()
	var got *O
	cmd := mk(func(_ context.Context, o *O) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.ExecuteContext(context.Background())
	return got, err
}

// flagCase is one command line and the options it should give: the
// defaults edited by want.
type flagCase[O any] struct {
	name string
	args []string
	want func(o *O)
}

// checkOptions runs each case through mk and compares the options with def
// edited by the case.
func checkOptions[O any](t *testing.T, mk func(runF func(context.Context, *O) error) *cobra.Command, def O, tests []flagCase[O]) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := execOptions(t, mk, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			want := def
			tc.want(&want)
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("options\n got %+v\nwant %+v", *got, want)
			}
		})
	}
}

func testStreams() *Streams {
	return &Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard, Getenv: func(string) string { return "" }}
}

func TestRunFlags(t *testing.T) {
	t.Parallel()
	s, g := testStreams(), &globalOptions{DataDir: "data"}
	def := runOptions{Streams: s, Options: runplan.Options{DataDir: "data", Agent: "baseline", BackbonesFile: "backbones.yaml", Trials: 4,
		Concurrency: 10, Seed: 300, MaxSteps: 200, MaxErrors: 10}, Set: map[string]bool{}, AutoReview: autoReview{Mode: "full"}}
	tests := []flagCase[runOptions]{
		{"defaults", nil, func(*runOptions) {}},
		{"selection", []string{"--domain", "retail", "--backbone", "gpt-4.1", "--task-ids", "1,2", "--limit", "3", "--split", "test"}, func(o *runOptions) {
			o.Domain, o.Backbone, o.TaskIDs, o.Limit, o.Split = "retail", "gpt-4.1", []string{"1", "2"}, 3, "test"
			o.Set = map[string]bool{"domain": true, "backbone": true, "task-ids": true, "limit": true, "split": true}
		}},
		{"backbones", []string{"--user-backbone", "u", "--judge-backbone", "j", "--backbones", "b.yaml", "--agent", "ledger"}, func(o *runOptions) {
			o.UserBackbone, o.JudgeBackbone, o.BackbonesFile, o.Agent = "u", "j", "b.yaml", "ledger"
			o.Set = map[string]bool{"user-backbone": true, "judge-backbone": true, "backbones": true, "agent": true}
		}},
		{"limits", []string{"--trials", "2", "--concurrency", "3", "--seed", "7", "--max-steps", "9", "--max-errors", "4", "--timeout", "1m", "--grace", "5s"}, func(o *runOptions) {
			o.Trials, o.Concurrency, o.Seed, o.MaxSteps, o.MaxErrors, o.Timeout, o.Grace = 2, 3, 7, 9, 4, time.Minute, 5*time.Second
			o.Set = map[string]bool{"trials": true, "concurrency": true, "seed": true, "max-steps": true, "max-errors": true, "timeout": true, "grace": true}
		}},
		{"resume", []string{"--resume", "--out", "runs/x", "--shard", "1/2", "--quiet"}, func(o *runOptions) {
			o.Resume, o.Out, o.Shard, o.Quiet = true, "runs/x", "1/2", true
			o.Set = map[string]bool{"resume": true, "out": true, "shard": true, "quiet": true}
		}},
		{"judge and threshold", []string{"--no-judge", "--min-pass", "0.5", "--record-requests", "--allow-modified-data"}, func(o *runOptions) {
			o.NoJudge, o.MinPass, o.MinPassSet, o.RecordRequests, o.AllowModifiedData = true, 0.5, true, true, true
			o.Set = map[string]bool{"no-judge": true, "min-pass": true, "record-requests": true, "allow-modified-data": true}
		}},
		{"user simulator", []string{"--user-style", "tau-trait", "--traits", "impatience=high", "--trait-mode", "ignore", "--loop", "tau2"}, func(o *runOptions) {
			o.UserStyle, o.Traits, o.TraitMode, o.Loop = "tau-trait", "impatience=high", "ignore", "tau2"
			o.Set = map[string]bool{"user-style": true, "traits": true, "trait-mode": true, "loop": true}
		}},
		{"ledger placement", []string{"--ledger-placement", "tail"}, func(o *runOptions) {
			o.LedgerPlacement, o.Set = "tail", map[string]bool{"ledger-placement": true}
		}},
		{"solo", []string{"--solo"}, func(o *runOptions) { o.Solo, o.Set = true, map[string]bool{"solo": true} }},
		{"auto-review", []string{"--auto-review", "--review-mode", "user", "--review-backbone", "gpt-4.1"}, func(o *runOptions) {
			o.AutoReview = autoReview{Enabled: true, Mode: "user", Backbone: "gpt-4.1"}
			o.Set = map[string]bool{"auto-review": true, "review-mode": true, "review-backbone": true}
		}},
	}
	checkOptions(t, func(f func(context.Context, *runOptions) error) *cobra.Command { return newCmdRun(s, g, f) }, def, tests)
	if _, err := execOptions(t, func(f func(context.Context, *runOptions) error) *cobra.Command { return newCmdRun(s, g, f) }, "stray"); err == nil {
		t.Error("run with an argument: no error")
	}
}

func TestExperimentFlags(t *testing.T) {
	t.Parallel()
	s, g := testStreams(), &globalOptions{DataDir: "data"}
	def := experimentOptions{Streams: s, DataDir: "data", File: "x.yaml", Format: "text", Set: map[string]bool{}}
	tests := []flagCase[experimentOptions]{
		{"defaults", []string{"x.yaml"}, func(*experimentOptions) {}},
		{"overrides", []string{"x.yaml", "--out", "o", "--concurrency", "2", "--parallel-cells", "3", "--max-cost", "1.5", "--max-simulations", "9"}, func(o *experimentOptions) {
			o.Out, o.Concurrency, o.ParallelCells, o.MaxCost, o.MaxSimulations = "o", 2, 3, 1.5, 9
			o.Set = map[string]bool{"out": true, "concurrency": true, "parallel-cells": true, "max-cost": true, "max-simulations": true}
		}},
		{"modes", []string{"--dry-run", "--no-report", "--quiet", "--format", "json", "x.yaml"}, func(o *experimentOptions) {
			o.DryRun, o.NoReport, o.Quiet, o.Format = true, true, true, "json"
			o.Set = map[string]bool{"dry-run": true, "no-report": true, "quiet": true, "format": true}
		}},
	}
	mk := func(f func(context.Context, *experimentOptions) error) *cobra.Command {
		return newCmdExperiment(s, g, f)
	}
	checkOptions(t, mk, def, tests)
	for _, args := range [][]string{nil, {"a.yaml", "b.yaml"}, {"--format", "html", "x.yaml"}} {
		if _, err := execOptions(t, mk, args...); err == nil {
			t.Errorf("experiment %q: no error", args)
		}
	}
}

func TestRescoreFlags(t *testing.T) {
	t.Parallel()
	s, g := testStreams(), &globalOptions{DataDir: "data"}
	def := rescoreOptions{Streams: s, DataDir: "data", Files: []string{"a.json"}, Criteria: "file"}
	tests := []flagCase[rescoreOptions]{
		{"defaults", []string{"a.json"}, func(*rescoreOptions) {}},
		{"all", []string{"--criteria", "record", "-v", "--json", "--relabel", "--allow-modified-data", "a.json", "b.json"}, func(o *rescoreOptions) {
			o.Criteria, o.Verbose, o.JSON, o.Relabel, o.AllowModifiedData, o.Files = "record", true, true, true, true, []string{"a.json", "b.json"}
		}},
	}
	mk := func(f func(context.Context, *rescoreOptions) error) *cobra.Command { return newCmdRescore(s, g, f) }
	checkOptions(t, mk, def, tests)
	for _, args := range [][]string{nil, {"--criteria", "bogus", "a.json"}} {
		if _, err := execOptions(t, mk, args...); err == nil {
			t.Errorf("rescore %q: no error", args)
		}
	}
}

func TestMergeFlags(t *testing.T) {
	t.Parallel()
	s := testStreams()
	mk := func(f func(context.Context, *mergeOptions) error) *cobra.Command { return newCmdMerge(s, f) }
	got, err := execOptions(t, mk, "out", "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	if got.Out != "out" || !reflect.DeepEqual(got.Dirs, []string{"a", "b"}) || got.Streams != s || got.Now == nil {
		t.Errorf("options %+v; want out, [a b], the streams and a clock", *got)
	}
	if _, err := execOptions(t, mk, "out"); err == nil {
		t.Error("merge with one argument: no error")
	}
}
