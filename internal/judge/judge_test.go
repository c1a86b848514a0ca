package judge_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/judge"
	"github.com/ledgerbench/ledgerbench/internal/llm"
	"github.com/ledgerbench/ledgerbench/internal/openaitest"
	"github.com/ledgerbench/ledgerbench/message"
	"github.com/ledgerbench/ledgerbench/orchestrator"
)

var update = flag.Bool("update", false, "update golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

var traj = []message.Message{
	{Role: message.Assistant, Content: "Hi! How can I help you today?"},
	{Role: message.User, Content: "I'd like to cancel reservation ABC123."},
	{Role: message.Assistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "get_reservation_details", Arguments: json.RawMessage(`{"reservation_id":"ABC123"}`)}}},
	{Role: message.Tool, ToolCallID: "c1", Content: `{"reservation_id": "ABC123", "cabin": "basic_economy"}`},
	{Role: message.Assistant, Content: "Basic economy reservations can't be cancelled; I'm sorry."},
	{Role: message.User, Content: "OK. ###STOP###"},
}

var assertions = []string{"Agent refuses to cancel the basic economy reservation", "Agent doesn't offer a refund for 'ABC123'"}

func TestPromptsGolden(t *testing.T) {
	golden(t, "system_prompt.golden", judge.SystemPrompt)
	golden(t, "user_prompt.golden", judge.UserPrompt(traj, assertions))
}

func TestParse(t *testing.T) {
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
				if !errors.Is(err, judge.ErrMalformed) || !strings.Contains(err.Error(), tc.err) || errors.Is(err, orchestrator.ErrInfrastructure) {
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
		Price: llm.Price{Input: 2, Output: 8}},
		llm.Options{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	return judge.New(c, judge.Options{}), srv
}

func TestJudgeNL(t *testing.T) {
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
	if len(r.Messages) != 2 || r.Messages[0].Text() != judge.SystemPrompt || r.Messages[1].Text() != judge.UserPrompt(traj, assertions) {
		t.Errorf("request messages %+v", r.Messages)
	}
	if r.Tools != nil || r.ToolChoice != nil || r.Temperature == nil || *r.Temperature != 0 {
		t.Errorf("tools %v tool_choice %s temperature %v", r.Tools, r.ToolChoice, r.Temperature)
	}
	var _ evaluator.Judge = j
}

func TestJudgeErrors(t *testing.T) {
	j, _ := newJudge(t, openaitest.Status(500, ""), openaitest.Status(502, ""))
	if _, err := j.JudgeNL(t.Context(), traj, assertions); !errors.Is(err, orchestrator.ErrInfrastructure) {
		t.Errorf("transport failure: %v", err)
	}
	j, _ = newJudge(t, openaitest.Reply{Content: "The agent did well.", Usage: &openaitest.Usage{PromptTokens: 10, CompletionTokens: 5}})
	res, err := j.JudgeNL(t.Context(), traj, assertions)
	if !errors.Is(err, judge.ErrMalformed) || errors.Is(err, orchestrator.ErrInfrastructure) {
		t.Errorf("malformed reply: %v", err)
	}
	if res.Usage.PromptTokens != 10 {
		t.Errorf("usage of a malformed reply lost: %+v", res.Usage)
	}
}
