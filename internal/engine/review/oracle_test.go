package review

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// The review oracle compares the requests ledgerbench's reviewer sends with
// the ones upstream's review_simulation sends for the same recorded
// simulations, run by testdata/oracle/review_oracle.py over a tau2-bench
// source tree with litellm's completion stubbed:
//
//	git -C <mirror> archive HEAD src | tar -x -C DIR
//	LEDGERBENCH_REVIEW_ORACLE=1 TAU2_SRC=DIR/src go test ./internal/engine/review -run Oracle -v
//
// Every recorded τ²-bench results file is reviewed in both modes (full: the
// review and the authentication classification; user: the user-only
// review). Bodies are compared whole as JSON values (model, messages, and
// no other key on either side): every message's text byte for byte.

const oracleModel = "claude-opus-4-5"

const (
	oracleReply     = `{"errors": [], "summary": "No errors."}`
	oracleAuthReply = `{"status": "not_needed", "reasoning": "General question."}`
)

// recording is a recorded results file read as the reviewer's inputs.
type recording struct {
	path   string
	inputs []Input
}

func readRecording(t *testing.T, path string) recording {
	t.Helper()
	f, err := results.ReadTau2(path)
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		User struct {
			Guidelines string `json:"global_simulation_guidelines"`
		} `json:"user_info"`
		Env struct {
			Policy string `json:"policy"`
		} `json:"environment_info"`
	}
	if err := json.Unmarshal(f.Info, &info); err != nil {
		t.Fatal(err)
	}
	byID := map[string]*tasks.Task{}
	for _, raw := range f.Tasks {
		var task tasks.Task
		if err := json.Unmarshal(raw, &task); err != nil {
			t.Fatal(err)
		}
		byID[task.ID] = &task
	}
	rec := recording{path: path}
	for i, s := range f.Simulations {
		task := byID[s.TaskID]
		if task == nil {
			t.Fatalf("%s simulation %d: task %s not in the file", path, i, s.TaskID)
		}
		rec.inputs = append(rec.inputs, Input{Policy: info.Env.Policy, Guidelines: info.User.Guidelines, Task: task, Messages: Tau2Messages(s)})
	}
	return rec
}

func runReviewOracle(t *testing.T, files []string, mode Mode) [][]json.RawMessage {
	t.Helper()
	var res [][]json.RawMessage
	oracletest.JSON(t, "python3 "+filepath.Join("testdata", "oracle", "review_oracle.py"),
		map[string]any{"files": files, "mode": mode, "reply": oracleReply, "auth_reply": oracleAuthReply, "model": oracleModel}, &res)
	return res
}

// bodyDiff compares two request bodies as JSON values: "" when equal, else
// the first difference.
func bodyDiff(got, want []byte) string {
	var g, w map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		return "ours: " + err.Error()
	}
	if err := json.Unmarshal(want, &w); err != nil {
		return "upstream: " + err.Error()
	}
	if e, ok := w["error"]; ok {
		return fmt.Sprintf("upstream raised: %v", e)
	}
	for k := range w {
		if _, ok := g[k]; !ok {
			return "we do not send " + k
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			return "upstream does not send " + k
		}
		if reflect.DeepEqual(g[k], w[k]) {
			continue
		}
		if k != "messages" {
			return fmt.Sprintf("%s: ours %v, upstream %v", k, g[k], w[k])
		}
		gl, _ := g[k].([]any)
		wl, _ := w[k].([]any)
		if len(gl) != len(wl) {
			return fmt.Sprintf("%d messages, upstream %d", len(gl), len(wl))
		}
		for i := range gl {
			gm, _ := gl[i].(map[string]any)
			wm, _ := wl[i].(map[string]any)
			if !reflect.DeepEqual(gm, wm) {
				gs, _ := gm["content"].(string)
				ws, _ := wm["content"].(string)
				return fmt.Sprintf("message %d: %s", i, firstDiff(gs, ws))
			}
		}
	}
	return ""
}

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d: ours %q; upstream %q", i, a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)])
}

// TestReviewOracle: every request of both modes for every recorded τ²-bench
// simulation against upstream's.
func TestReviewOracle(t *testing.T) {
	if os.Getenv("LEDGERBENCH_REVIEW_ORACLE") == "" {
		t.Skip("LEDGERBENCH_REVIEW_ORACLE not set (see oracle_test.go)")
	}
	if os.Getenv("TAU2_SRC") == "" {
		t.Skip("TAU2_SRC (a tau2-bench src directory) not set")
	}
	root := datatest.Root(t)
	files, err := filepath.Glob(filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "*.json"))
	if err != nil || len(files) == 0 {
		t.Skipf("no recorded τ²-bench trajectories (%v)", err)
	}
	prompts, err := LoadPrompts(root)
	if err != nil {
		t.Fatal(err)
	}
	var recs []recording
	for _, f := range files {
		recs = append(recs, readRecording(t, f))
	}
	for _, mode := range []Mode{Full, User} {
		t.Run(string(mode), func(t *testing.T) {
			want := runReviewOracle(t, files, mode)
			srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
				if len(r.Messages) > 0 && r.Messages[0].Content != nil && *r.Messages[0].Content == prompts.AuthSystem {
					return openaitest.Text(oracleAuthReply)
				}
				return openaitest.Text(oracleReply)
			})
			c, err := llm.New(llm.Backbone{Name: "review", BaseURL: srv.BaseURL(), Model: oracleModel}, llm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := New(c, prompts, false)
			k, total, equal := 0, 0, 0
			shown := map[string]bool{}
			for _, rec := range recs {
				for i, in := range rec.inputs {
					before := len(srv.Requests())
					if _, err := r.Review(t.Context(), mode, in); err != nil {
						t.Fatalf("%s simulation %d: %v", filepath.Base(rec.path), i, err)
					}
					got := srv.Requests()[before:]
					w := want[k]
					k++
					if len(got) != len(w) {
						t.Errorf("%s simulation %d: %d requests, upstream %d (%s)", filepath.Base(rec.path), i, len(got), len(w), w[len(w)-1])
					}
					for j := range min(len(got), len(w)) {
						total++
						d := bodyDiff(got[j].Body, w[j])
						if d == "" {
							equal++
							continue
						}
						if !shown[d] {
							shown[d] = true
							t.Errorf("%s simulation %d request %d: %s", filepath.Base(rec.path), i, j, d)
						}
					}
				}
			}
			t.Logf("%s mode: %d/%d requests equal over %d simulations of %d files", mode, equal, total, k, len(files))
		})
	}
}

// oracleReplies are replies a review model might give: well formed, fenced,
// in prose, with every field kind, lenient and wrong types, and not JSON.
var oracleReplies = []string{
	oracleReply, oracleAuthReply,
	"```json\n" + `{"errors": [{"source": "agent", "error_type": "content_error", "error_tags": ["missed_required_action", "wrong_sequence"], "severity": "critical", "turn_idx": 7, "reasoning": "skipped the check", "correct_behavior": "verify first"}], "summary": "one agent error"}` + "\n```",
	`Review: {"errors": [{"source": "USER", "error_tags": "hallucination", "severity": "critical_hindered", "turn_idx": 2, "reasoning": "made up a zip code", "correct_behavior": "say I don't know"}, {"source": "agent", "severity": "critical_helped", "reasoning": "r"}], "summary": "s"} That is all.`,
	`{"errors": [{"source": "tool", "reasoning": "odd"}], "summary": ""}`,
	`{"errors": [{"source": "user", "severity": "minor", "turn_idx": 3, "reasoning": "r", "user_message": "98101"}], "summary": "u"}`,
	`{"errors": [{"turn_idx": 4, "error_tags": ["premature_termination"], "severity": "minor", "reasoning": "ended early", "user_message": "bye"}], "summary": "user only"}`,
	`{"errors": [], "summary": "clean"}`,
	`{"summary": "no list"}`,
	`{"status": "succeeded", "reasoning": "found by email"}`,
	`{"status": "failed"}`,
	`{"status": "unknown", "reasoning": "r"}`,
	"```\n{\"status\": \"not_needed\", \"reasoning\": \"general\"}\n```",
	`no JSON at all`,
	`{"errors": "none"}`,
	`{"errors": [{"source": "agent", "turn_idx": "three", "reasoning": "r"}]}`,
	`{"errors": [null]}`,
	`{"errors": [{"source": "agent", "tick_start": 1, "tick_end": 5, "reasoning": "r"}], "summary": "ticks"}`,
	`{"errors": [{"source": "user", "severity": "critical_helped", "reasoning": "leaked"}], "summary": "x"}`,
}

// TestReviewOracleParse: upstream's parsers and record types against ours
// on oracleReplies: the dumped records equal (costs apart), parse failures
// on both sides.
func TestReviewOracleParse(t *testing.T) {
	if os.Getenv("LEDGERBENCH_REVIEW_ORACLE") == "" {
		t.Skip("LEDGERBENCH_REVIEW_ORACLE not set (see oracle_test.go)")
	}
	if os.Getenv("TAU2_SRC") == "" {
		t.Skip("TAU2_SRC (a tau2-bench src directory) not set")
	}
	var raw []map[string]json.RawMessage
	oracletest.JSON(t, "python3 "+filepath.Join("testdata", "oracle", "review_oracle.py"), map[string]any{"parse": oracleReplies}, &raw)
	var want []struct {
		Review, UserOnly, Auth json.RawMessage
	}
	for _, r := range raw {
		want = append(want, struct{ Review, UserOnly, Auth json.RawMessage }{r["review"], r["user_only_review"], r["auth"]})
	}
	equal, total, diverged, worded := 0, 0, 0, 0
	for i, reply := range oracleReplies {
		rv, uv, av := ParseReview(reply), ParseUserOnly(reply), ParseAuth(reply)
		for _, c := range []struct {
			kind   string
			ours   any
			failed bool
			want   json.RawMessage
		}{
			{"review", rv, isFailure(rv.Errors, func(e ReviewError) string { return e.Reasoning }), want[i].Review},
			{"user_only_review", uv, isFailure(uv.Errors, func(e UserOnlyReviewError) string { return e.Reasoning }), want[i].UserOnly},
			{"auth", av, false, want[i].Auth},
		} {
			total++
			if string(c.want) == "null" {
				if c.failed {
					equal++
					continue
				}
				// Upstream's user-only record rejects the severities its own
				// prompt asks for (see ParseUserOnly): a known divergence.
				if c.kind == "user_only_review" && strings.Contains(reply, "critical_") {
					diverged++
					continue
				}
				t.Errorf("reply %d %s: upstream fails the parse, ours %+v", i, c.kind, c.ours)
				continue
			}
			if c.failed {
				t.Errorf("reply %d %s: ours fails the parse, upstream %s", i, c.kind, c.want)
				continue
			}
			b, _ := json.Marshal(c.ours)
			var g, w map[string]any
			_ = json.Unmarshal(b, &g)
			_ = json.Unmarshal(c.want, &w)
			delete(g, "cost")
			if reflect.DeepEqual(g, w) {
				equal++
			} else if c.kind == "auth" && g["reasoning"] == "reply did not parse" && g["status"] == w["status"] {
				// A reply without a JSON object: the same status, the
				// reasoning in our own words (a record field, not model-facing).
				worded++
			} else {
				t.Errorf("reply %d %s:\nours     %s\nupstream %s", i, c.kind, b, c.want)
			}
		}
	}
	t.Logf("parsed records equal %d/%d; %d user-only replies with critical_* severities, which upstream's record type refuses; %d unparsed authentication replies, same status, reasoning worded apart", equal, total, diverged, worded)
}

func isFailure[E any](errs []E, reasoning func(E) string) bool {
	return len(errs) == 1 && strings.HasPrefix(reasoning(errs[0]), "malformed review reply")
}
