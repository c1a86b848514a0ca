package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/review"
	"github.com/ledgerbench/ledgerbench/internal/output/view/viewtest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// Replies of a fake review backbone: the full review finds an agent error and
// a critical user error, the user-only review a user error, the
// authentication classifier says succeeded.
const (
	fakeFullReply = "```json\n" + `{"errors": [{"source": "agent", "error_tags": ["missed_required_action"], "severity": "critical", "turn_idx": 3, "reasoning": "did not act", "correct_behavior": "act"},` +
		`{"source": "User", "error_tags": "hallucination", "severity": "critical_hindered", "turn_idx": 2, "reasoning": "made up a zip"}], "summary": "two errors"}` + "\n```"
	fakeUserReply = `{"errors": [{"turn_idx": 2, "error_tags": ["hallucination"], "severity": "minor", "reasoning": "made up a zip", "user_message": "98101"}], "summary": "one"}`
	fakeAuthReply = `Here: {"status": "succeeded", "reasoning": "found by email"}`
)

// reviewServer answers review requests by kind; fail, when set, makes
// requests whose conversation contains it fail (HTTP 500).
func reviewServer(t *testing.T, fail *atomic.Value) *openaitest.Server {
	t.Helper()
	return openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		sys, user := r.Messages[0].Text(), r.Messages[1].Text()
		if f, _ := fail.Load().(string); f != "" && strings.Contains(user, f) {
			return openaitest.Reply{Status: 500}
		}
		switch {
		case strings.Contains(sys, "authentication"):
			return openaitest.Text(fakeAuthReply)
		case strings.Contains(sys, "user simulator made any errors"):
			return openaitest.Text(fakeUserReply)
		}
		return openaitest.Text(fakeFullReply)
	})
}

func readReviews(t *testing.T, run string) *review.Reviews {
	t.Helper()
	r, err := review.Read(filepath.Join(run, review.FileName))
	if err != nil || r == nil {
		t.Fatalf("reviews of %s: %v (none: %v)", run, err, r == nil)
	}
	return r
}

// reviewCLI runs `review` in process with short backoffs.
func reviewCLI(t *testing.T, args ...string) (execResult, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(string) string { return "" }}
	g := &globalOptions{DataDir: datatest.Root(t)}
	cmd := newCmdReview(s, g, func(ctx context.Context, s *Streams, o *reviewOptions) error {
		o.LLM = llm.Options{BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond}
		return runReview(ctx, s, o)
	})
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.ExecuteContext(t.Context())
	return execResult{out: out.String(), errOut: errOut.String()}, err
}

// TestReviewRunDir: both modes over a run directory: the entries under
// upstream's names, the requests (two messages, no temperature although the
// backbone sets one), resuming, and the error table and view showing them.
func TestReviewRunDir(t *testing.T) {
	t.Parallel()
	run := simRun(t, "1")
	n := len(loadRun(t, run).Records)
	var fail atomic.Value
	srv := reviewServer(t, &fail)
	bb := writeBackbones(t, t.TempDir(), srv.BaseURL(), 10*time.Second)
	for _, tc := range []struct {
		mode    string
		calls   int
		check   func(t *testing.T, e *review.Entry)
		summary string
	}{
		{"full", 2 * n, func(t *testing.T, e *review.Entry) {
			rv := e.Review
			if rv == nil || e.UserOnlyReview != nil || e.AuthClassification == nil {
				t.Fatalf("full entry: %+v", e)
			}
			if !rv.AgentError || !rv.UserError || !rv.CriticalUserError || !rv.HasErrors || len(rv.Errors) != 2 || rv.Summary != "two errors" {
				t.Errorf("review: %+v", rv)
			}
			if u := rv.Errors[1]; u.Source != "user" || len(u.ErrorTags) != 1 || u.ErrorTags[0] != "hallucination" || *u.TurnIdx != 2 {
				t.Errorf("user error: %+v", u)
			}
			if e.AuthClassification.Status != review.AuthSucceeded || rv.Cost == nil {
				t.Errorf("auth %+v, cost %v", e.AuthClassification, rv.Cost)
			}
		}, "with errors " + itoaT(n) + " (agent " + itoaT(n) + ", user " + itoaT(n) + ")"},
		{"user", n, func(t *testing.T, e *review.Entry) {
			rv := e.UserOnlyReview
			if rv == nil || e.Review != nil || e.AuthClassification != nil {
				t.Fatalf("user entry: %+v", e)
			}
			if !rv.UserError || rv.CriticalUserError || len(rv.Errors) != 1 || *rv.Errors[0].UserMessage != "98101" || rv.Errors[0].ErrorType != "content_error" {
				t.Errorf("user-only review: %+v", rv)
			}
		}, "with errors " + itoaT(n) + ";"},
	} {
		before := len(srv.Requests())
		r, err := reviewCLI(t, run, "--backbone", "fake", "--backbones", bb, "--mode", tc.mode)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.mode, err, r.errOut)
		}
		reqs := srv.Requests()[before:]
		if len(reqs) != tc.calls {
			t.Errorf("%s: %d requests; want %d", tc.mode, len(reqs), tc.calls)
		}
		for _, q := range reqs {
			var body map[string]any
			if err := json.Unmarshal(q.Body, &body); err != nil {
				t.Fatal(err)
			}
			if _, ok := body["temperature"]; ok || len(body) != 2 || len(q.Messages) != 2 {
				t.Errorf("%s: request keys %v, %d messages; want model and messages, two", tc.mode, keysOf(body), len(q.Messages))
			}
		}
		if !strings.Contains(r.out, tc.summary) {
			t.Errorf("%s: summary lacks %q:\n%s", tc.mode, tc.summary, r.out)
		}
		revs := readReviews(t, run)
		for _, rec := range loadRun(t, run).Records {
			e, ok := revs.Get(rec.ID, review.Mode(tc.mode))
			if !ok {
				t.Fatalf("%s: no entry for %s", tc.mode, rec.ID)
			}
			if e.TaskID != rec.TaskID || e.Trial != rec.Trial || e.Backbone != "fake" || e.ReviewModel != "fake-model" {
				t.Errorf("%s: entry header %+v", tc.mode, e)
			}
			tc.check(t, e)
		}
		// Resuming reviews nothing again.
		before = len(srv.Requests())
		r, err = reviewCLI(t, run, "--backbone", "fake", "--backbones", bb, "--mode", tc.mode)
		if err != nil || len(srv.Requests()) != before || !strings.Contains(r.out, itoaT(n)+" already reviewed") {
			t.Errorf("%s resumed: err %v, %d new requests:\n%s", tc.mode, err, len(srv.Requests())-before, r.out)
		}
	}
	// The file holds one line per simulation and mode, upstream's names.
	raw, err := os.ReadFile(filepath.Join(run, review.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if got := bytes.Count(raw, []byte("\n")); got != 2*n {
		t.Errorf("%d lines; want %d", got, 2*n)
	}
	for _, k := range []string{`"simulation_id"`, `"task_id"`, `"trial"`, `"review"`, `"user_only_review"`, `"auth_classification"`, `"review_model"`, `"critical_user_error"`, `"correct_behavior"`} {
		if !bytes.Contains(raw, []byte(k)) {
			t.Errorf("reviews file lacks %s", k)
		}
	}

	// report: the review columns beside the rule-based categories.
	failed := 0
	for _, rec := range loadRun(t, run).Records {
		if !rec.Success() {
			failed++
		}
	}
	rep := mustRun(t, "report", "--table", "errors", "--format", "csv", run).out
	if !strings.Contains(rep, "Infra,Reviewed,Rev agent,Rev agent n,Rev user,Rev user n,Rev crit user,Rev crit user n") {
		t.Fatalf("error table without the review columns:\n%s", rep)
	}
	if f := itoaT(failed); failed > 0 && !strings.Contains(rep, ","+f+",100,"+f+",100,"+f+",100,"+f+"\n") {
		t.Errorf("review cells of %d failures:\n%s", failed, rep)
	}

	// view: each simulation carries its reviews; the page shows them.
	page := filepath.Join(t.TempDir(), "view.html")
	mustRun(t, "view", run, "--plain", "--out", page)
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if got := bytes.Count(html, []byte(`"reviews":[`)); got != n {
		t.Errorf("view: %d simulations with reviews; want %d", got, n)
	}
	b := viewtest.Chromium(t)
	dom := openPage(t, b, page, "sim/0")
	for _, want := range []string{`id="review"`, "full review by fake (fake-model)", "user-only review by fake", "authentication: succeeded", "did not act"} {
		if !strings.Contains(dom, want) {
			t.Errorf("simulation page lacks %q", want)
		}
	}
}

// uniqueText is a message text of msgs that no other record holds.
func uniqueText(t *testing.T, msgs []message.Message, others []results.Record) string {
	t.Helper()
	for _, m := range msgs {
		if len(m.Content) < 20 {
			continue
		}
		shared := false
		for _, o := range others {
			for _, om := range o.Messages {
				shared = shared || strings.Contains(om.Content, m.Content)
			}
		}
		if !shared {
			return m.Content
		}
	}
	t.Fatal("no message text unique to the first record")
	return ""
}

func itoaT(n int) string { return strconv.Itoa(n) }

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestReviewFailure: a failed review call is recorded as a failed entry (no
// empty review) and the command fails; the next review retries only it.
func TestReviewFailure(t *testing.T) {
	t.Parallel()
	run := simRun(t, "1")
	recs := loadRun(t, run).Records
	var fail atomic.Value
	fail.Store(uniqueText(t, recs[0].Messages, recs[1:]))
	srv := reviewServer(t, &fail)
	bb := writeBackbones(t, t.TempDir(), srv.BaseURL(), 10*time.Second)
	r, err := reviewCLI(t, run, "--backbone", "fake", "--backbones", bb, "--mode", "user")
	if err == nil || !strings.Contains(err.Error(), "some reviews failed") {
		t.Fatalf("err %v; want the failed reviews named\n%s", err, r.out)
	}
	revs := readReviews(t, run)
	e, ok := revs.Get(recs[0].ID, review.User)
	if !ok || !e.Failed() || e.UserOnlyReview != nil || !strings.Contains(e.Error, "status 500") {
		t.Fatalf("failed entry: %+v", e)
	}
	if !strings.Contains(r.out, "1 failed") {
		t.Errorf("summary: %s", r.out)
	}
	fail.Store("")
	before := len(srv.Requests())
	if r, err := reviewCLI(t, run, "--backbone", "fake", "--backbones", bb, "--mode", "user"); err != nil {
		t.Fatalf("retry: %v\n%s", err, r.errOut)
	}
	if got := len(srv.Requests()) - before; got != 1 {
		t.Errorf("retry made %d requests; want 1", got)
	}
	if e, _ := readReviews(t, run).Get(recs[0].ID, review.User); e.Failed() || e.UserOnlyReview == nil {
		t.Errorf("retried entry: %+v", e)
	}
}

// TestRunAutoReview: run --auto-review reviews every simulation after the
// run into the run directory; a bad --review-mode or a missing
// --review-backbone is refused before the run starts.
func TestRunAutoReview(t *testing.T) {
	t.Parallel()
	var fail atomic.Value
	srv := reviewServer(t, &fail)
	dir := t.TempDir()
	bb := writeBackbones(t, dir, srv.BaseURL(), 10*time.Second)
	out := filepath.Join(dir, "run")
	args := []string{"run", "--domain", "retail", "--backbone", "sim", "--user-backbone", "sim", "--no-judge", "--limit", "2", "--trials", "1", "--quiet", "--backbones", bb, "--out", out}
	for _, tc := range []struct {
		name, want string
		extra      []string
	}{
		{"no backbone", "--auto-review needs --review-backbone", []string{"--auto-review"}},
		{"bad mode", `unknown review mode "user-only"`, []string{"--auto-review", "--review-backbone", "fake", "--review-mode", "user-only"}},
		{"unknown backbone", `--review-backbone`, []string{"--auto-review", "--review-backbone", "nope"}},
	} {
		r := execCLI(t, t.Context(), append(args, tc.extra...)...)
		if r.code != ExitUsage || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %s; want usage error %q", tc.name, r.code, r.errOut, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: the run started", tc.name)
		}
	}
	mustRun(t, append(args, "--auto-review", "--review-backbone", "fake", "--review-mode", "user")...)
	revs := readReviews(t, out)
	recs := loadRun(t, out).Records
	if len(revs.Entries) != len(recs) {
		t.Fatalf("%d entries for %d simulations", len(revs.Entries), len(recs))
	}
	for _, rec := range recs {
		if !revs.Done(rec.ID, review.User) {
			t.Errorf("%s not reviewed", rec.ID)
		}
	}
}

func TestReviewOptions(t *testing.T) {
	t.Parallel()
	def := func(f func(*reviewOptions)) *reviewOptions {
		o := &reviewOptions{Run: "runs/a", DataDir: "/d", Mode: "full", Backbone: "gpt-4.1", BackbonesFile: "backbones.yaml", Concurrency: 32}
		if f != nil {
			f(o)
		}
		return o
	}
	runOptionCases(t, newCmdReview, []optionCase[reviewOptions]{
		{name: "defaults", args: []string{"runs/a", "--backbone", "gpt-4.1"}, want: def(nil)},
		{name: "every flag", args: []string{"runs/a", "--backbone", "gpt-4.1", "-m", "user", "--backbones", "b.yaml", "-c", "4", "--limit", "5", "--task-ids", "1,2", "--show-details", "--quiet"},
			want: def(func(o *reviewOptions) {
				o.Mode, o.BackbonesFile, o.Concurrency, o.Limit, o.TaskIDs, o.ShowDetails, o.Quiet = "user", "b.yaml", 4, 5, []string{"1", "2"}, true, true
			})},
		{name: "long mode", args: []string{"runs/a", "--backbone", "gpt-4.1", "--mode", "full"}, want: def(nil)},
		{name: "unknown mode", args: []string{"runs/a", "--backbone", "gpt-4.1", "--mode", "user-only"}, usageErr: true},
		{name: "no backbone", args: []string{"runs/a"}, usageErr: true},
		{name: "no run", args: []string{"--backbone", "gpt-4.1"}, usageErr: true},
		{name: "two runs", args: []string{"runs/a", "runs/b", "--backbone", "gpt-4.1"}, usageErr: true},
		{name: "zero concurrency", args: []string{"runs/a", "--backbone", "gpt-4.1", "-c", "0"}, usageErr: true},
		{name: "negative limit", args: []string{"runs/a", "--backbone", "gpt-4.1", "--limit", "-1"}, usageErr: true},
	})
}

// TestReviewTau2File: a τ²-bench results file is reviewed with the policy
// and guidelines its info records into NAME.reviews.jsonl, which report
// reads back beside the file.
func TestReviewTau2File(t *testing.T) {
	t.Parallel()
	src, _ := filepath.Glob(filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "2025-08-10_telecom*.json"))
	if len(src) != 1 {
		t.Skip("the recorded telecom file is missing")
	}
	b, err := os.ReadFile(src[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "telecom.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var fail atomic.Value
	srv := reviewServer(t, &fail)
	bb := writeBackbones(t, dir, srv.BaseURL(), 10*time.Second)
	if r, err := reviewCLI(t, file, "--backbone", "fake", "--backbones", bb, "--limit", "3", "--show-details"); err != nil {
		t.Fatalf("%v\n%s", err, r.errOut)
	} else if !strings.Contains(r.out, "authentication succeeded: found by email") || !strings.Contains(r.out, "- agent turn 3 [missed_required_action] critical: did not act") {
		t.Errorf("details:\n%s", r.out)
	}
	if got := len(srv.Requests()); got != 6 {
		t.Errorf("%d requests; want 6", got)
	}
	revs, err := review.Read(filepath.Join(dir, "telecom.reviews.jsonl"))
	if err != nil || revs == nil || len(revs.Entries) != 3 {
		t.Fatalf("reviews beside the file: %v, %+v", err, revs)
	}
	rep := mustRun(t, "report", "--table", "errors", "--format", "csv", "--no-domains", file).out
	if !strings.Contains(rep, "Reviewed,Rev agent") {
		t.Errorf("report of the file lacks the review columns:\n%s", rep)
	}
}
