package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// runWithEnv runs `run` in process with short backoffs and env as the
// environment (API keys).
func runWithEnv(t testing.TB, ctx context.Context, env map[string]string, args ...string) (execResult, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(k string) string { return env[k] }}
	g := &globalOptions{DataDir: datatest.Root(t)}
	cmd := newCmdRun(s, g, func(ctx context.Context, o *runOptions) error {
		o.LLM = llm.Options{BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond,
			LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
		return runRun(ctx, o)
	})
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.ExecuteContext(ctx)
	return execResult{out: out.String(), errOut: errOut.String()}, err
}

func isJudge(r *openaitest.Request) bool {
	return len(r.Messages) == 2 && len(r.Tools) == 0 && strings.Contains(r.Messages[1].Text(), "expectedOutcomes")
}

func isAgent(r *openaitest.Request) bool { return len(r.Tools) > 0 }

// TestInfrastructureReplies: a reply without choices, or an HTTP 200 carrying
// an error body, is retried and, when it persists, is an infrastructure
// error with the provider's message — never an agent_error. A run in which
// no unit was scored exits non-zero.
func TestInfrastructureReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		bad   openaitest.Reply
		times int64 // bad replies to the agent before good ones (-1: always)
		want  string
	}{
		{"no choices, healed by a retry", openaitest.Reply{Body: `{"id":"x","object":"chat.completion","choices":[]}`}, 1, ""},
		{"200 with an error body, healed by a retry", openaitest.Reply{Body: `{"error":{"message":"provider overloaded","code":"overloaded"}}`}, 2, ""},
		{"no choices, always", openaitest.Reply{Body: `{"id":"x","choices":[]}`}, -1, "reply has no choices"},
		{"200 with an error body, always", openaitest.Reply{Body: `{"error":{"message":"provider overloaded","code":"overloaded"}}`}, -1, "overloaded: provider overloaded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var bad atomic.Int64
			srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
				if isAgent(r) && (tc.times < 0 || bad.Add(1) <= tc.times) {
					return tc.bad
				}
				return fakeRetail(r)
			})
			tmp := t.TempDir()
			bb := writeBackbones(t, tmp, srv.BaseURL(), time.Second)
			dir := filepath.Join(tmp, "run")
			_, err := runWithEnv(t, t.Context(), nil, "--domain", "retail", "--backbone", "fake", "--backbones", bb, "--trials", "1", "--limit", "2", "--concurrency", "1", "--out", dir, "--quiet")
			run := loadRun(t, dir)
			if len(run.Records) != 2 {
				t.Fatalf("%d records; want 2", len(run.Records))
			}
			for _, rec := range run.Records {
				if rec.TerminationReason == evaluator.AgentError {
					t.Errorf("unit %v: agent_error for a provider fault", rec.Key())
				}
				if tc.want == "" {
					if rec.Infrastructure() {
						t.Errorf("unit %v: %s", rec.Key(), rec.Error)
					}
					continue
				}
				if !rec.Infrastructure() || !strings.Contains(rec.Error, tc.want) {
					t.Errorf("unit %v: termination %s error %q; want an infrastructure error with %q", rec.Key(), rec.TerminationReason, rec.Error, tc.want)
				}
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("run: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), "no simulation was scored")):
				t.Errorf("run of infrastructure errors only: err %v; want no simulation was scored", err)
			}
		})
	}
}

// TestAuthStopsRun: a 401 cannot heal: the unit that met it is recorded, no
// unit starts after it, and the error is one line naming the backbone and
// its key variable.
func TestAuthStopsRun(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Status: 401, Message: "Incorrect API key provided"}
	})
	tmp := t.TempDir()
	bb := filepath.Join(tmp, "backbones.yaml")
	text := fmt.Sprintf("backbones:\n  fake:\n    base_url: %s\n    model: fake-model\n    api_key_env: FAKE_API_KEY\n    temperature: 0\n    max_retries: 3\n", srv.BaseURL())
	if err := os.WriteFile(bb, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	_, err := runWithEnv(t, t.Context(), map[string]string{"FAKE_API_KEY": "sk-wrong"}, "--domain", "retail", "--backbone", "fake", "--backbones", bb, "--no-judge", "--trials", "1", "--limit", "6", "--concurrency", "1", "--out", dir, "--quiet")
	if !errors.Is(err, runner.ErrAuth) {
		t.Fatalf("run err = %v; want runner.ErrAuth", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "backbone fake") || !strings.Contains(msg, "FAKE_API_KEY") || strings.Contains(msg, "sk-wrong") {
		t.Errorf("error %q: want one line naming backbone fake and FAKE_API_KEY, without the key", msg)
	}
	run := loadRun(t, dir)
	if len(run.Records) != 1 || !run.Records[0].Infrastructure() {
		t.Errorf("%d records; want the one infrastructure error that met the 401", len(run.Records))
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server saw %d requests; want 1 (a 401 is not retried and stops the run)", n)
	}
}

// TestMalformedJudgeReply: a judge reply that does not parse records the
// judge's usage and cost and leaves the unit to be judged again; resuming
// makes the judge call only, without re-running the conversation.
func TestMalformedJudgeReply(t *testing.T) {
	t.Parallel()
	var judgeOK atomic.Bool
	var convo, judged atomic.Int64
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		if isJudge(r) {
			judged.Add(1)
			if !judgeOK.Load() {
				return openaitest.Reply{Content: "I think the agent did fine.", Usage: &openaitest.Usage{PromptTokens: 1000, CompletionTokens: 10}}
			}
			return fakeRetail(r)
		}
		convo.Add(1)
		return fakeRetail(r)
	})
	tmp := t.TempDir()
	bb := writeBackbones(t, tmp, srv.BaseURL(), time.Second)
	dir := filepath.Join(tmp, "run")
	args := []string{"--domain", "retail", "--backbone", "fake", "--backbones", bb, "--trials", "1", "--task-ids", "2", "--out", dir, "--quiet"}
	r, err := runWithEnv(t, t.Context(), nil, args...)
	run := loadRun(t, dir)
	if err == nil {
		t.Fatalf("run whose only unit failed judging: want an error (no simulation was scored); records %+v\n%s", run.Records, r.out)
	}
	if len(run.Records) != 1 {
		t.Fatalf("%d records; want 1", len(run.Records))
	}
	rec := run.Records[0]
	if !rec.Infrastructure() || rec.JudgePending == "" || !strings.Contains(rec.Error, "malformed") {
		t.Fatalf("record: termination %s judge_pending %q error %q; want an infrastructure error pending judgement", rec.TerminationReason, rec.JudgePending, rec.Error)
	}
	if rec.JudgeUsage.PromptTokens != 1000 || rec.JudgeCost <= 0 {
		t.Errorf("judge usage %+v cost %v; want the failed call's 1000 prompt tokens and its cost", rec.JudgeUsage, rec.JudgeCost)
	}
	firstCost := rec.JudgeCost
	before := convo.Load()

	judgeOK.Store(true)
	if _, err := runWithEnv(t, t.Context(), nil, "--out", dir, "--quiet"); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if n := convo.Load() - before; n != 0 {
		t.Errorf("resume made %d agent/user calls; want 0 (judge only)", n)
	}
	if n := judged.Load(); n != 2 {
		t.Errorf("%d judge calls; want 2", n)
	}
	run = loadRun(t, dir)
	rec = run.Records[0]
	if rec.Infrastructure() || rec.RewardInfo == nil || rec.JudgePending != "" {
		t.Fatalf("after resume: termination %s error %q; want the judged record", rec.TerminationReason, rec.Error)
	}
	if rec.JudgeCost <= firstCost {
		t.Errorf("judge cost %v after re-judging; want more than the failed call's %v", rec.JudgeCost, firstCost)
	}
}

// TestRejudgeCountsOnce: a unit whose judge failed and that a resume judged
// again is one simulation, paid once for its conversation and once for each
// judge attempt: the run summary, `report --table costs` and an experiment's
// budget count it so, not as the pending record plus the final one.
func TestRejudgeCountsOnce(t *testing.T) {
	t.Parallel()
	var judgeOK atomic.Bool
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		if isJudge(r) && !judgeOK.Load() {
			return openaitest.Reply{Content: "I think the agent did fine.", Usage: &openaitest.Usage{PromptTokens: 1000, CompletionTokens: 10}}
		}
		return fakeRetail(r)
	})
	tmp := t.TempDir()
	bb := writeBackbones(t, tmp, srv.BaseURL(), time.Second)
	dir := filepath.Join(tmp, "run")
	_, _ = runWithEnv(t, t.Context(), nil, "--domain", "retail", "--backbone", "fake", "--backbones", bb, "--trials", "1", "--task-ids", "2", "--out", dir, "--quiet")
	pending := loadRun(t, dir).Records[0]
	if pending.JudgePending == "" || pending.AgentCost <= 0 {
		t.Fatalf("first run: judge_pending %q agent cost %v; want a pending record with a cost", pending.JudgePending, pending.AgentCost)
	}
	judgeOK.Store(true)
	r, err := runWithEnv(t, t.Context(), nil, "--out", dir)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	run := loadRun(t, dir)
	final := run.Records[0]
	if final.JudgePending != "" || final.JudgeCost <= pending.JudgeCost {
		t.Fatalf("after resume: judge_pending %q judge cost %v (pending %v); want the judged record carrying both attempts", final.JudgePending, final.JudgeCost, pending.JudgeCost)
	}
	want := final.AgentCost + final.UserCost + final.JudgeCost
	if line := fmt.Sprintf("cost         $%.4f total", want); !strings.Contains(r.out, line) {
		t.Errorf("run summary lacks %q (the conversation once, each judge attempt once):\n%s", line, r.out)
	}
	if line := "simulations  1 recorded"; !strings.Contains(r.out, line) {
		t.Errorf("run summary lacks %q:\n%s", line, r.out)
	}
	rep := mustRun(t, "report", "--table", "costs", "--format", "csv", dir)
	rows := csvRows(t, rep.out)
	col := func(name string) string {
		i := slices.Index(rows[0], name)
		if i < 0 || len(rows) < 2 {
			t.Fatalf("costs table has no %q column or no row:\n%s", name, rep.out)
		}
		return rows[1][i]
	}
	if got := col("Sims"); got != "1" {
		t.Errorf("costs table: Sims %s; want 1", got)
	}
	num := func(name string) float64 {
		v, err := strconv.ParseFloat(col(name), 64)
		if err != nil {
			t.Fatalf("costs table: %s %q: %v", name, col(name), err)
		}
		return v
	}
	if got := num("Agent $"); math.Abs(got-final.AgentCost) > 1e-9 {
		t.Errorf("costs table: Agent $ %v; want %v (the conversation once)", got, final.AgentCost)
	}
	if got := num("Total $"); math.Abs(got-want) > 1e-9 {
		t.Errorf("costs table: Total $ %v; want %v", got, want)
	}
}

func csvRows(t *testing.T, s string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, s)
	}
	return rows
}

// TestInterruptStopsJudge: Ctrl-C with --grace cancels a judge call that is
// still running when the grace ends, as it cancels the conversations; the
// unit is left pending judgement for --resume.
func TestInterruptStopsJudge(t *testing.T) {
	t.Parallel()
	judging := make(chan struct{})
	var once sync.Once
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		if isJudge(r) {
			once.Do(func() { close(judging) })
			return openaitest.Hang()
		}
		return fakeRetail(r)
	})
	tmp := t.TempDir()
	bb := writeBackbones(t, tmp, srv.BaseURL(), time.Hour)
	dir := filepath.Join(tmp, "run")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		select {
		case <-judging:
			cancel()
		case <-ctx.Done():
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := runWithEnv(t, ctx, nil, "--domain", "retail", "--backbone", "fake", "--backbones", bb, "--trials", "1", "--task-ids", "2",
			"--grace", "50ms", "--out", dir, "--quiet")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("interrupted run: want an error")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not stop: the judge ignored Ctrl-C and --grace")
	}
	run := loadRun(t, dir)
	if len(run.Records) != 1 || run.Records[0].JudgePending == "" {
		t.Fatalf("records %+v; want the unit recorded pending judgement", run.Records)
	}
}
