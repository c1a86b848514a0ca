package judge_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/judge"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

var update = flag.Bool("update", false, "update golden files")

var traj = []message.Message{
	{Role: message.Assistant, Content: "Hello, what do you need?"},
	{Role: message.User, Content: "I'd like to cancel reservation ABC123."},
	{Role: message.Assistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "get_reservation_details", Arguments: json.RawMessage(`{"reservation_id":"ABC123"}`)}}},
	{Role: message.Tool, ToolCallID: "c1", Content: `{"reservation_id": "ABC123", "cabin": "basic_economy"}`},
	{Role: message.Assistant, Content: "Basic economy reservations can't be cancelled; I'm sorry."},
	{Role: message.User, Content: "OK. ###STOP###"},
}

var assertions = []string{"Agent refuses to cancel the basic economy reservation", "Agent doesn't offer a refund for 'ABC123'"}

// ownPrompt is a prompt of our own words with upstream's fields, so the
// rendering can be kept in a golden file without upstream's text.
func ownPrompt(t *testing.T) *judge.Prompt {
	t.Helper()
	u, err := pyliteral.ParseTemplate("\n    conv:\n    {trajectory_str}\n    {{out}}:\n    {nl_assertions}\n    ")
	if err != nil {
		t.Fatal(err)
	}
	return &judge.Prompt{System: "\n    JUDGE\n    ", User: u}
}

func TestUserPromptGolden(t *testing.T) {
	t.Parallel()
	goldentest.Check(t, *update, "user_prompt.golden", ownPrompt(t).UserPrompt(traj, assertions))
}

// TestLoadPrompt reads upstream's prompts from the pulled source: the
// system prompt is the literal as written (it starts with the newline
// after the opening quotes and keeps its indentation), the user prompt is
// the f-string with its two fields, and the rendering substitutes them.
func TestLoadPrompt(t *testing.T) {
	t.Parallel()
	p, err := judge.LoadPrompt(datatest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.System, "\n        ") || !strings.Contains(p.System, "metExpectation") {
		t.Errorf("system prompt %.80q does not look like upstream's literal", p.System)
	}
	if got := strings.Join(p.User.Fields, ","); got != "trajectory_str,nl_assertions" {
		t.Errorf("user prompt fields = %s; want trajectory_str,nl_assertions", got)
	}
	u := p.UserPrompt(traj, assertions)
	want := p.User.Parts[0] + "assistant: Hello, what do you need?\nuser: I'd like to cancel reservation ABC123.\nassistant: None\n" +
		`tool: {"reservation_id": "ABC123", "cabin": "basic_economy"}` + "\nassistant: Basic economy reservations can't be cancelled; I'm sorry.\nuser: OK. ###STOP###" +
		p.User.Parts[1] + `['Agent refuses to cancel the basic economy reservation', "Agent doesn't offer a refund for 'ABC123'"]` + p.User.Parts[2]
	if u != want {
		t.Errorf("UserPrompt = %q; want %q", u, want)
	}
	empty := []message.Message{{Role: message.Assistant, EmptyContent: true, ToolCalls: traj[2].ToolCalls}}
	if got := p.UserPrompt(empty, nil); got != p.User.Parts[0]+"assistant: "+p.User.Parts[1]+"[]"+p.User.Parts[2] {
		t.Errorf("content \"\" is printed as None: %q", got)
	}
	for _, path := range []string{"missing"} {
		if _, err := judge.LoadPrompt(filepath.Join(t.TempDir(), path)); err == nil || !strings.Contains(err.Error(), judge.Source) {
			t.Errorf("LoadPrompt of an empty dir: %v; want an error naming %s", err, judge.Source)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	good := `{"results": [{"expectedOutcome": "A", "reasoning": "r1", "metExpectation": true}, {"expectedOutcome": "B", "reasoning": "r2", "metExpectation": "false"}]}`
	cases := []struct {
		name, in string
		n        int
		met      []bool
		err      string
	}{
		{"plain", good, 2, []bool{true, false}, ""},
		{"fence", "```json\n" + good + "\n```", 2, []bool{true, false}, ""},
		{"bare fence", "```\n" + good + "```", 2, []bool{true, false}, ""},
		{"prose", "Here is my verdict:\n" + good + "\nHope this helps.", 2, []bool{true, false}, ""},
		{"empty results", `{"results": []}`, 0, nil, ""},
		{"no results", `{"verdict": "ok"}`, 0, nil, "no \"results\" list"},
		{"garbage", "I think the agent did fine.", 0, nil, "no JSON object"},
		{"empty", "  ", 0, nil, "empty reply"},
		{"bad met", `{"results": [{"expectedOutcome": "A", "reasoning": "r", "metExpectation": "maybe"}]}`, 0, nil, "not a boolean"},
		{"missing met", `{"results": [{"expectedOutcome": "A", "reasoning": "r"}]}`, 0, nil, "missing"},
		{"missing outcome", `{"results": [{"reasoning": "r", "metExpectation": true}]}`, 0, nil, "no expectedOutcome"},
		{"results not a list", `{"results": {"a": 1}}`, 0, nil, "malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := judge.Parse(tc.in)
			if tc.err != "" {
				if !errors.Is(err, judge.ErrMalformed) || !strings.Contains(err.Error(), tc.err) || errors.Is(err, fault.ErrInfrastructure) {
					t.Fatalf("Parse error = %v; want ErrMalformed with %q", err, tc.err)
				}
				return
			}
			if err != nil || len(got) != tc.n {
				t.Fatalf("Parse = %+v, %v", got, err)
			}
			for i, m := range tc.met {
				if got[i].Met != m {
					t.Errorf("result %d met = %v; want %v", i, got[i].Met, m)
				}
			}
			if tc.n > 0 && (got[0].NLAssertion != "A" || got[0].Justification != "r1") {
				t.Errorf("result 0 = %+v", got[0])
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`{"results": [{"expectedOutcome": "A", "reasoning": "r", "metExpectation": true}]}`)
	f.Add("```json\n{\"results\": []}\n```")
	f.Add("{{}")
	f.Add("``````")
	f.Fuzz(func(t *testing.T, s string) {
		checks, err := judge.Parse(s)
		if err != nil && !errors.Is(err, judge.ErrMalformed) {
			t.Errorf("error %v does not wrap ErrMalformed", err)
		}
		if err != nil && checks != nil {
			t.Errorf("checks with an error")
		}
	})
}

func ptr[T any](v T) *T { return &v }

func newJudge(t *testing.T, replies ...openaitest.Reply) (*judge.Judge, *openaitest.Server) {
	t.Helper()
	srv := openaitest.NewServer(t, replies...)
	c, err := llm.New(llm.Backbone{Name: "judge", BaseURL: srv.BaseURL(), Model: "gpt-4.1", Temperature: ptr(0.0), MaxRetries: ptr(1),
		Price: &llm.Price{Input: 2, Output: 8}},
		llm.Options{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	return judge.New(c, ownPrompt(t), judge.Options{}), srv
}

func TestJudgeNL(t *testing.T) {
	t.Parallel()
	reply := openaitest.Reply{Content: "```json\n" + `{"results": [{"expectedOutcome": "` + assertions[0] + `", "reasoning": "It refused.", "metExpectation": true}, {"expectedOutcome": "` + strings.ReplaceAll(assertions[1], `'`, `'`) + `", "reasoning": "No refund offered.", "metExpectation": true}]}` + "\n```",
		Usage: &openaitest.Usage{PromptTokens: 1000, CompletionTokens: 100}}
	j, srv := newJudge(t, reply)
	res, err := j.JudgeNL(t.Context(), traj, assertions)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 2 || !res.Checks[0].Met || res.Checks[1].Justification != "No refund offered." {
		t.Errorf("checks %+v", res.Checks)
	}
	if res.Usage.PromptTokens != 1000 || res.Cost != (1000*2+100*8)/1e6 {
		t.Errorf("usage %+v cost %v", res.Usage, res.Cost)
	}
	r := srv.Requests()[0]
	if len(r.Messages) != 2 || r.Messages[0].Text() != ownPrompt(t).System || r.Messages[1].Text() != ownPrompt(t).UserPrompt(traj, assertions) {
		t.Errorf("request messages %+v", r.Messages)
	}
	if r.Tools != nil || r.ToolChoice != nil || r.Temperature == nil || *r.Temperature != 0 {
		t.Errorf("tools %v tool_choice %s temperature %v", r.Tools, r.ToolChoice, r.Temperature)
	}
	var _ evaluator.Judge = j
}

func TestJudgeErrors(t *testing.T) {
	t.Parallel()
	j, _ := newJudge(t, openaitest.Status(500, ""), openaitest.Status(502, ""))
	if _, err := j.JudgeNL(t.Context(), traj, assertions); !errors.Is(err, fault.ErrInfrastructure) {
		t.Errorf("transport failure: %v", err)
	}
	j, _ = newJudge(t, openaitest.Reply{Content: "The agent did well.", Usage: &openaitest.Usage{PromptTokens: 10, CompletionTokens: 5}})
	res, err := j.JudgeNL(t.Context(), traj, assertions)
	if !errors.Is(err, judge.ErrMalformed) || errors.Is(err, fault.ErrInfrastructure) {
		t.Errorf("malformed reply: %v", err)
	}
	if res.Usage.PromptTokens != 10 {
		t.Errorf("usage of a malformed reply lost: %+v", res.Usage)
	}
}
