package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/score/metrics"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func TestRunSummaryGolden(t *testing.T) {
	t.Parallel()
	mk := func(task string, trial int, reward float64, term evaluator.Termination) results.Record {
		r := results.Record{TaskID: task, Trial: trial, TerminationReason: term,
			AgentUsage: message.Usage{PromptTokens: 12000, CompletionTokens: 300, CachedTokens: 9000}, AgentCost: 0.0123, AgentCalls: 6,
			UserUsage: message.Usage{PromptTokens: 3000, CompletionTokens: 90, CacheUnknown: 1}, UserCost: 0.002, UserCalls: 4}
		if term == evaluator.InfrastructureError {
			r.Error = "agent: infrastructure error: llm gpt: giving up after 4 attempts: status 429: Too Many Requests"
			return r
		}
		r.RewardInfo = &evaluator.RewardInfo{Reward: reward}
		if task == "2" {
			r.RewardInfo.NotEvaluated = []tasks.RewardType{tasks.RewardNLAssertion}
		}
		return r
	}
	recs := []results.Record{
		mk("0", 0, 1, evaluator.UserStop), mk("0", 1, 1, evaluator.UserStop), mk("0", 2, 0, evaluator.MaxSteps),
		mk("1", 0, 1, evaluator.UserStop), mk("1", 1, 0, evaluator.InfrastructureError), mk("1", 2, 1, evaluator.AgentStop),
		mk("2", 0, 0, evaluator.UserStop), mk("2", 1, 0, evaluator.UserStop), mk("2", 2, 1, evaluator.UserStop),
	}
	var units []results.UnitKey
	for _, id := range []string{"0", "1", "2", "3"} {
		for trial := range 3 {
			units = append(units, results.UnitKey{TaskID: id, Trial: trial})
		}
	}
	m := &results.Manifest{Domain: "retail", Agent: "baseline", Backbone: "gpt-4.1", UserBackbone: "gpt-4.1", NoJudge: true}
	var b bytes.Buffer
	writeSummary(&b, m, metrics.SummarizeRun(recs, units), recs, "runs/x")
	golden(t, "run_summary.golden", b.String())
}

// TestRunSummaryUnscored: a run in which no simulation was scored has no
// pass^k and no mean reward: they print as missing, never as 0.
func TestRunSummaryUnscored(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	var units []results.UnitKey
	for _, id := range []string{"0", "1"} {
		for trial := range 2 {
			recs = append(recs, results.Record{TaskID: id, Trial: trial, TerminationReason: evaluator.InfrastructureError,
				Error: "agent: infrastructure error: llm gpt: status 503: Service Unavailable"})
			units = append(units, results.UnitKey{TaskID: id, Trial: trial})
		}
	}
	m := &results.Manifest{Domain: "airline", Agent: "baseline", Backbone: "gpt-4.1", UserBackbone: "gpt-4.1"}
	var b bytes.Buffer
	writeSummary(&b, m, metrics.SummarizeRun(recs, units), recs, "runs/x")
	golden(t, "run_summary_unscored.golden", b.String())
	for _, bad := range []string{"0.0000\n", "0.0000 "} {
		for _, line := range strings.Split(b.String(), "\n") {
			if (strings.HasPrefix(line, "pass^") || strings.HasPrefix(line, "avg reward")) && strings.Contains(line+"\n", bad) {
				t.Errorf("a missing value printed as 0: %q", line)
			}
		}
	}
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	s := runner.Snapshot{Total: 200, Done: 50, Running: 10, Scored: 48, Passed: 30, Infra: 2, Tokens: 1_234_567, Cost: 3.456, Elapsed: 90 * time.Second}
	got := progressLine(s, true)
	want := "[======                  ] 50/200 (25%) · running 10 · pass^1 0.625 · infra errors 2 · 1.2M tokens · $3.46 · 1m30s elapsed · ETA 4m30s"
	if got != want {
		t.Errorf("progressLine = %q\nwant %q", got, want)
	}
	if got := progressLine(runner.Snapshot{Total: 3}, false); !strings.Contains(got, "pass^1 -") {
		t.Errorf("progressLine before any result = %q", got)
	}
}

func TestRunProgressOutput(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{false, true} {
		var out, errOut bytes.Buffer
		s := &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, ErrTTY: tty, Getenv: func(string) string { return "" }}
		dir := filepath.Join(t.TempDir(), "run")
		args := append([]string{"--data", datatest.Root(t)}, append(simArgs, "--out", dir)...)
		if code := Execute(context.Background(), s, args); code != ExitOK {
			t.Fatalf("tty %v: exit %d: %s", tty, code, errOut.String())
		}
		e := errOut.String()
		if !strings.Contains(e, "12/12 (100%)") {
			t.Errorf("tty %v: no final progress line:\n%q", tty, e)
		}
		if tty != strings.Contains(e, "\r\033[K[") {
			t.Errorf("tty %v: bar redraws present = %v:\n%q", tty, !tty, e)
		}
	}
}

// TestRunSummarySimulated: a sim run's summary says it is simulated.
func TestRunSummarySimulated(t *testing.T) {
	t.Parallel()
	recs := []results.Record{{TaskID: "0", TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: 1}, Simulated: true}}
	m := &results.Manifest{Domain: "airline", Agent: "baseline", Backbone: "sim", UserBackbone: "sim"}
	var b bytes.Buffer
	writeSummary(&b, m, metrics.SummarizeRun(recs, []results.UnitKey{{TaskID: "0"}}), recs, "runs/x")
	if !strings.Contains(b.String(), "backbone sim (simulated") {
		t.Errorf("summary of a sim run:\n%s", b.String())
	}
}
