package review

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func TestConversation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msgs []message.Message
		want string
	}{
		{"text", []message.Message{{Role: message.Assistant, Content: "Hi", TurnIdx: 0}, {Role: message.User, Content: "Help", TurnIdx: 1}},
			"[TURN 0] **assistant**:\nHi\n\n[TURN 1] **user**:\nHelp"},
		{"tool call without text", []message.Message{{Role: message.Assistant, TurnIdx: 2, ToolCalls: []message.ToolCall{{ID: "c", Name: "get_user", Arguments: json.RawMessage(`{"id":"é","n":1.0,"l":[1,2]}`)}}}},
			"[TURN 2] **assistant**:\n**Tool Call**: get_user\n```json\n{\n  \"id\": \"\\u00e9\",\n  \"n\": 1.0,\n  \"l\": [\n    1,\n    2\n  ]\n}\n```"},
		{"text and two calls", []message.Message{{Role: message.User, Content: "ok", TurnIdx: 4, ToolCalls: []message.ToolCall{{Name: "a", Arguments: json.RawMessage(`{}`)}, {Name: "b", Arguments: json.RawMessage(`{}`)}}}},
			"[TURN 4] **user**:\nok\n**Tool Call**: a\n```json\n{}\n```\n**Tool Call**: b\n```json\n{}\n```"},
		{"tool error", []message.Message{{Role: message.Tool, Content: "Error: no", Error: true, Requestor: message.ByUser, TurnIdx: 5}},
			"[TURN 5] **tool (Error)**:\nReponse to: user\n```\nError: no\n```"},
		{"tool without content or requestor", []message.Message{{Role: message.Tool, TurnIdx: 6}},
			"[TURN 6] **tool**:\nReponse to: assistant"},
		{"system", []message.Message{{Role: message.System, Content: "s", TurnIdx: 0}}, "[TURN 0] **system**:\ns"},
		{"none", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Conversation(tc.msgs); got != tc.want {
				t.Errorf("Conversation =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestUserVisible(t *testing.T) {
	t.Parallel()
	call := []message.ToolCall{{Name: "x", Arguments: json.RawMessage(`{}`)}}
	msgs := []message.Message{
		{Role: message.Assistant, Content: "Hi", TurnIdx: 0},
		{Role: message.User, Content: "check", TurnIdx: 1, ToolCalls: call},
		{Role: message.Tool, Content: "user's", Requestor: message.ByUser, TurnIdx: 2},
		{Role: message.Assistant, TurnIdx: 3, ToolCalls: call},                               // null content: dropped
		{Role: message.Tool, Content: "agent's", Requestor: message.ByAssistant, TurnIdx: 4}, // dropped
		{Role: message.Assistant, Content: "Looking", TurnIdx: 5, ToolCalls: call},           // kept without the call
		{Role: message.Assistant, EmptyContent: true, TurnIdx: 6, ToolCalls: call},           // "" content: kept
	}
	got := UserVisible(msgs)
	var turns []int
	for _, m := range got {
		turns = append(turns, m.TurnIdx)
		if m.Role == message.Assistant && len(m.ToolCalls) > 0 {
			t.Errorf("turn %d keeps its tool calls", m.TurnIdx)
		}
	}
	if want := []int{0, 1, 2, 5, 6}; !equalInts(turns, want) {
		t.Errorf("turns %v; want %v", turns, want)
	}
	if len(got[1].ToolCalls) != 1 {
		t.Error("a user message lost its tool calls")
	}
	if len(msgs[5].ToolCalls) != 1 {
		t.Error("UserVisible changed its input")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestActionsAndAssertions(t *testing.T) {
	t.Parallel()
	info := "note"
	got := Actions([]tasks.Action{{ActionID: "1", Name: "f", Arguments: json.RawMessage(`{"b":2,"a":"x"}`), Info: &info, CompareArgs: &[]string{"a"}}, {ActionID: "2", Requestor: "user", Name: "g"}})
	want := "```json\n[\n  {\n    \"action_id\": \"1\",\n    \"requestor\": \"assistant\",\n    \"name\": \"f\",\n    \"arguments\": {\n      \"b\": 2,\n      \"a\": \"x\"\n    },\n    \"info\": \"note\",\n    \"compare_args\": [\n      \"a\"\n    ]\n  },\n" +
		"  {\n    \"action_id\": \"2\",\n    \"requestor\": \"user\",\n    \"name\": \"g\",\n    \"arguments\": {},\n    \"info\": null,\n    \"compare_args\": null\n  }\n]\n```"
	if got != want {
		t.Errorf("Actions =\n%s\nwant\n%s", got, want)
	}
	if got := Actions(nil); got != "```json\n[]\n```" {
		t.Errorf("no actions: %q", got)
	}
	for _, tc := range []struct {
		c    *tasks.EvaluationCriteria
		want string
	}{{nil, ""}, {&tasks.EvaluationCriteria{}, ""}, {&tasks.EvaluationCriteria{NLAssertions: []string{"a's", "b"}}, `["a's", 'b']`}} {
		if got := assertions(tc.c); got != tc.want {
			t.Errorf("assertions(%v) = %q; want %q", tc.c, got, tc.want)
		}
	}
}

func TestParseReview(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                      string
		reply                     string
		n                         int
		agent, user, crit, failed bool
		summary                   string
	}{
		{"fenced, mixed case source", "x\n```json\n{\"errors\": [{\"source\": \"Agent\", \"severity\": \"critical\", \"error_tags\": [\"other\"], \"reasoning\": \"r\"}], \"summary\": \"s\"}\n```", 1, true, false, false, false, "s"},
		{"bare braces, user critical", `Sure: {"errors": [{"source": "user", "severity": "critical_helped", "reasoning": "r"}], "summary": ""} done`, 1, false, true, true, false, ""},
		{"no errors", `{"errors": [], "summary": "fine"}`, 0, false, false, false, false, "fine"},
		{"errors absent", `{"summary": "fine"}`, 0, false, false, false, false, "fine"},
		{"unknown source", `{"errors": [{"source": "tool", "reasoning": "r"}]}`, 1, false, false, false, false, ""},
		{"not JSON", `I found no errors.`, 1, false, false, false, true, ""},
		{"errors not a list", `{"errors": "none"}`, 1, false, false, false, true, ""},
		{"turn not an integer", `{"errors": [{"source": "agent", "turn_idx": "three", "reasoning": "r"}]}`, 1, false, false, false, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := ParseReview(tc.reply)
			if len(r.Errors) != tc.n || r.AgentError != tc.agent || r.UserError != tc.user || r.CriticalUserError != tc.crit || r.Summary != tc.summary {
				t.Errorf("ParseReview = %+v", r)
			}
			if tc.failed {
				if e := r.Errors[0]; e.Source != "unknown" || !strings.Contains(e.Reasoning, "malformed review reply") || !strings.Contains(e.Reasoning, tc.reply) || r.HasErrors {
					t.Errorf("parse failure = %+v", r)
				}
			} else if r.HasErrors != (tc.n > 0) {
				t.Errorf("has_errors %v with %d errors", r.HasErrors, tc.n)
			}
		})
	}
	// A severity the source may not have is dropped; a lone tag is a list.
	r := ParseReview(`{"errors": [{"source": "agent", "severity": "critical_helped", "error_tags": "x", "reasoning": "r"}, {"source": "user", "severity": "critical", "reasoning": "r"}]}`)
	if r.Errors[0].Severity != nil || r.Errors[1].Severity != nil || len(r.Errors[0].ErrorTags) != 1 || r.CriticalUserError {
		t.Errorf("severities %+v", r.Errors)
	}
}

func TestParseUserOnlyAndAuth(t *testing.T) {
	t.Parallel()
	u := ParseUserOnly(`{"errors": [{"turn_idx": 3, "severity": "critical_hindered", "reasoning": "r", "user_message": "m"}], "summary": "s"}`)
	if !u.UserError || !u.CriticalUserError || u.Errors[0].ErrorType != "content_error" || *u.Errors[0].UserMessage != "m" {
		t.Errorf("ParseUserOnly = %+v", u)
	}
	if u := ParseUserOnly("nope"); len(u.Errors) != 1 || *u.Errors[0].TurnIdx != -1 || u.HasErrors {
		t.Errorf("parse failure = %+v", u)
	}
	for _, tc := range []struct{ reply, status, reasoning string }{
		{`{"status": "failed", "reasoning": "no match"}`, AuthFailed, "no match"},
		{"```json\n{\n \"status\": \"succeeded\"\n}\n```", AuthSucceeded, ""},
		{`{"status": "maybe", "reasoning": "r"}`, AuthNotNeeded, "r"},
		{`no json`, AuthNotNeeded, "reply did not parse"},
		{`{"status": "failed", "x": {"nested": 1}}`, AuthNotNeeded, ""}, // the first brace-free object is the nested one
	} {
		if a := ParseAuth(tc.reply); a.Status != tc.status || a.Reasoning != tc.reasoning {
			t.Errorf("ParseAuth(%q) = %+v; want %s, %q", tc.reply, a, tc.status, tc.reasoning)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"errors": [{"source": "agent", "turn_idx": 1, "error_tags": ["a"]}], "summary": "s"}`, "```json\n{}\n```", `{"status": "failed"}`, "", "{", `{"errors": [null]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		r := ParseReview(reply)
		failure := len(r.Errors) == 1 && r.Errors[0].Source == "unknown" && strings.HasPrefix(r.Errors[0].Reasoning, "malformed review reply")
		if failure && (r.HasErrors || r.AgentError || r.UserError) {
			t.Errorf("a parse failure with flags set: %+v", r)
		}
		if !failure {
			agent, user := false, false
			for _, e := range r.Errors {
				agent = agent || e.Source == "agent"
				user = user || e.Source == "user"
			}
			if r.HasErrors != (len(r.Errors) > 0) || r.AgentError != agent || r.UserError != user {
				t.Errorf("flags disagree with the errors: %+v", r)
			}
		}
		if _, err := json.Marshal(r); err != nil {
			t.Errorf("review does not encode: %v", err)
		}
		u := ParseUserOnly(reply)
		if u.UserError != u.HasErrors {
			t.Errorf("user-only flags %+v", u)
		}
		a := ParseAuth(reply)
		if a.Status != AuthSucceeded && a.Status != AuthFailed && a.Status != AuthNotNeeded {
			t.Errorf("status %q", a.Status)
		}
	})
}

func TestLoadPrompts(t *testing.T) {
	t.Parallel()
	p, err := LoadPrompts(datatest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	// The full review's system prompt is sent unformatted: its JSON example
	// keeps upstream's doubled braces; the user-only one is formatted.
	if !strings.Contains(p.FullSystem, "{{") || strings.Contains(template(p.UserSystem), "{{") {
		t.Error("brace handling: the full system prompt must keep {{, the user-only one must not")
	}
	for name, s := range p.Texts() {
		if strings.TrimSpace(s) != s || s == "" {
			t.Errorf("%s is empty or not stripped", name)
		}
	}
	if _, err := LoadPrompts(t.TempDir()); err == nil || !strings.Contains(err.Error(), "review prompt") {
		t.Errorf("empty data dir: %v", err)
	}
}

// TestReviewInfrastructure: a failed call is an infrastructure error, never
// an empty review; a failed authentication call keeps the review made.
func TestReviewInfrastructure(t *testing.T) {
	t.Parallel()
	p, err := LoadPrompts(datatest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	task := &tasks.Task{ID: "1", UserScenario: tasks.UserScenario{Instructions: tasks.Instructions{Text: "x"}}}
	in := Input{Policy: "p", Guidelines: "g", Task: task, Messages: []message.Message{{Role: message.User, Content: "hi"}}}
	for _, tc := range []struct {
		name    string
		replies []openaitest.Reply
		mode    Mode
		review  bool
	}{
		{"review call fails", []openaitest.Reply{{Status: 500}, {Status: 500}}, Full, false},
		{"auth call fails", []openaitest.Reply{openaitest.Text(`{"errors": []}`), {Status: 500}, {Status: 500}}, Full, true},
		{"user-only call fails", []openaitest.Reply{{Status: 400}}, User, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := openaitest.NewServer(t, tc.replies...)
			one := 1
			c, err := llm.New(llm.Backbone{Name: "r", BaseURL: srv.BaseURL(), Model: "m", MaxRetries: &one}, llm.Options{Sleep: func(context.Context, time.Duration) error { return nil }})
			if err != nil {
				t.Fatal(err)
			}
			out, err := New(c, p, false).Review(t.Context(), tc.mode, in)
			if !errors.Is(err, fault.ErrInfrastructure) {
				t.Fatalf("err %v; want an infrastructure error", err)
			}
			if (out.Review != nil) != tc.review || out.UserOnlyReview != nil || out.AuthClassification != nil {
				t.Errorf("outcome %+v", out)
			}
		})
	}
}

// TestRunTau2File: a τ²-bench file reviewed into NAME.reviews.jsonl,
// --task-ids and --limit applied, trials numbered as upstream.
func TestRunTau2File(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "2025-08-10_telecom*.json"))
	if len(files) != 1 {
		t.Skip("the recorded telecom file is missing")
	}
	items, _, err := Items(Options{Run: files[0], Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Trial < 1 || items[0].Input.Policy == "" || items[0].Input.Guidelines == "" {
		t.Fatalf("items %+v", items)
	}
	only, _, err := Items(Options{Run: files[0], TaskIDs: []string{items[1].TaskID}})
	if err != nil || len(only) == 0 {
		t.Fatalf("task filter: %v, %d", err, len(only))
	}
	for _, it := range only {
		if it.TaskID != items[1].TaskID {
			t.Errorf("task %s kept", it.TaskID)
		}
	}
	if got, want := Path(files[0]), strings.TrimSuffix(files[0], ".json")+".reviews.jsonl"; got != want {
		t.Errorf("Path = %s; want %s", got, want)
	}
	if got := Path(filepath.Join("x", results.SimulationsFile)); got != filepath.Join("x", FileName) {
		t.Errorf("Path of simulations.jsonl = %s", got)
	}
}

func BenchmarkRequest(b *testing.B) {
	p, err := LoadPrompts(datatest.Root(b))
	if err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(datatest.Trajectories(b), "sierra-research+tau2-bench", "claude-sonnet-4-5_airline*.json"))
	if len(files) != 1 {
		b.Skip("the recorded airline file is missing")
	}
	items, _, err := Items(Options{Run: files[0]})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		in := items[i%len(items)].Input
		_ = p.FullRequest(in)
		_ = p.AuthRequest(in.Messages)
	}
}
