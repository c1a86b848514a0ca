package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

const testKey = "sk-test-VERY-SECRET-0123456789"

func ptr[T any](v T) *T { return &v }

func testEnv(name string) (string, bool) {
	if name == "TEST_API_KEY" {
		return testKey, true
	}
	return "", false
}

// sleeper records backoff waits instead of sleeping.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) recorded() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

func testBackbone(srv *openaitest.Server) Backbone {
	return Backbone{
		Name:        "test",
		BaseURL:     srv.BaseURL(),
		Model:       "test-model",
		APIKeyEnv:   "TEST_API_KEY",
		Temperature: ptr(0.0),
		Price:       &Price{Input: 2, CachedInput: 0.5, Output: 8},
		Timeout:     5 * time.Second,
	}
}

func newTestClient(t *testing.T, b Backbone, opts Options) *Client {
	t.Helper()
	if opts.LookupEnv == nil {
		opts.LookupEnv = testEnv
	}
	if opts.Sleep == nil {
		opts.Sleep = (&sleeper{}).sleep
	}
	c, err := New(b, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

var testTools = []tool.Info{
	{Name: "get_user_details", Kind: tool.Read, Description: "Look up a user by id.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"user_id":{"type":"string"}},"required":["user_id"]}`),
		Params:     []tool.Param{{Name: "user_id", Required: true}}},
	{Name: "cancel_reservation", Kind: tool.Write, Description: "Cancel a reservation.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"reservation_id":{"type":"string"}},"required":["reservation_id"]}`),
		Params:     []tool.Param{{Name: "reservation_id", Required: true}}},
}

func conversation() []message.Message {
	return []message.Message{
		{Role: message.System, Content: "<instructions>be helpful</instructions>"},
		{Role: message.Assistant, Content: "Hello, what do you need?"},
		{Role: message.User, Content: "Cancel reservation ABC123, I'm mia_li_3668."},
	}
}

func TestGenerateReplies(t *testing.T) {
	t.Parallel()
	usage := &openaitest.Usage{PromptTokens: 1000, CompletionTokens: 200, CachedTokens: 400, ReasoningTokens: 50}
	tests := []struct {
		name      string
		reply     openaitest.Reply
		want      message.Message // Usage and Cost are not compared here
		finish    string
		malformed int
		empty     bool
	}{
		{
			name:   "text",
			reply:  openaitest.Reply{Content: "Sure, one moment.", Usage: usage},
			want:   message.Message{Role: message.Assistant, Content: "Sure, one moment."},
			finish: "stop",
		},
		{
			name:  "one tool call",
			reply: openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_a", Name: "get_user_details", Arguments: `{"user_id": "mia_li_3668"}`}}, Usage: usage},
			want: message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{
				{ID: "call_a", Name: "get_user_details", Arguments: json.RawMessage(`{"user_id": "mia_li_3668"}`), Requestor: message.ByAssistant}}},
			finish: "tool_calls",
		},
		{
			name: "parallel tool calls keep order",
			reply: openaitest.Reply{Content: "Checking.", ToolCalls: []openaitest.ToolCall{
				{ID: "call_2", Name: "get_user_details", Arguments: `{"user_id":"a"}`},
				{ID: "call_1", Name: "cancel_reservation", Arguments: `{"reservation_id":"ABC123"}`},
				{ID: "call_3", Name: "get_user_details", Arguments: ``},
			}, Usage: usage},
			want: message.Message{Role: message.Assistant, Content: "Checking.", ToolCalls: []message.ToolCall{
				{ID: "call_2", Name: "get_user_details", Arguments: json.RawMessage(`{"user_id":"a"}`), Requestor: message.ByAssistant},
				{ID: "call_1", Name: "cancel_reservation", Arguments: json.RawMessage(`{"reservation_id":"ABC123"}`), Requestor: message.ByAssistant},
				{ID: "call_3", Name: "get_user_details", Arguments: json.RawMessage(`{}`), Requestor: message.ByAssistant},
			}},
			finish: "tool_calls",
		},
		{
			name:  "malformed arguments kept as a JSON string",
			reply: openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_m", Name: "cancel_reservation", Arguments: `{"reservation_id": "ABC`}}, Usage: usage},
			want: message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{
				{ID: "call_m", Name: "cancel_reservation", Arguments: json.RawMessage(`"{\"reservation_id\": \"ABC"`), Requestor: message.ByAssistant}}},
			finish:    "tool_calls",
			malformed: 1,
		},
		{
			name:   "empty reply",
			reply:  openaitest.Reply{Usage: usage},
			want:   message.Message{Role: message.Assistant},
			finish: "stop",
			empty:  true,
		},
		{
			name:   "whitespace only is empty",
			reply:  openaitest.Reply{Content: " \n ", Usage: usage},
			want:   message.Message{Role: message.Assistant, Content: " \n "},
			finish: "stop",
			empty:  true,
		},
		{
			name:   "reasoning content",
			reply:  openaitest.Reply{Content: "Done.", ReasoningContent: "The user wants X.", Usage: usage},
			want:   message.Message{Role: message.Assistant, Content: "Done.", ReasoningContent: "The user wants X."},
			finish: "stop",
		},
		{
			name:   "reasoning under the key reasoning",
			reply:  openaitest.Reply{Content: "Done.", ReasoningContent: "Thinking.", ReasoningKey: "reasoning", Usage: usage},
			want:   message.Message{Role: message.Assistant, Content: "Done.", ReasoningContent: "Thinking."},
			finish: "stop",
		},
		{
			name:   "think tags stay in content without strip_think",
			reply:  openaitest.Reply{Content: "<think>hmm</think>Hi", Usage: usage},
			want:   message.Message{Role: message.Assistant, Content: "<think>hmm</think>Hi"},
			finish: "stop",
		},
		{
			name:   "length finish",
			reply:  openaitest.Reply{Content: "Partial", FinishReason: "length", Usage: usage},
			want:   message.Message{Role: message.Assistant, Content: "Partial"},
			finish: "length",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, tc.reply)
			c := newTestClient(t, testBackbone(srv), Options{})
			resp, err := c.Generate(t.Context(), Request{Messages: conversation(), Tools: testTools})
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			got := resp.Message
			got.Usage, got.Cost = nil, 0
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Message = %+v; want %+v", got, tc.want)
			}
			wantUsage := message.Usage{PromptTokens: 1000, CompletionTokens: 200, CachedTokens: 400, ReasoningTokens: 50}
			if resp.Usage != wantUsage || resp.Message.Usage == nil || *resp.Message.Usage != wantUsage {
				t.Errorf("Usage = %+v (message %+v); want %+v", resp.Usage, resp.Message.Usage, wantUsage)
			}
			// 600 uncached × 2 + 400 cached × 0.5 + 200 × 8, per million.
			if wantCost := (600*2 + 400*0.5 + 200*8) / 1e6; resp.Cost != wantCost || resp.Message.Cost != wantCost {
				t.Errorf("Cost = %v (message %v); want %v", resp.Cost, resp.Message.Cost, wantCost)
			}
			if resp.FinishReason != tc.finish {
				t.Errorf("FinishReason = %q; want %q", resp.FinishReason, tc.finish)
			}
			if resp.MalformedArgs != tc.malformed {
				t.Errorf("MalformedArgs = %d; want %d", resp.MalformedArgs, tc.malformed)
			}
			if resp.Empty() != tc.empty {
				t.Errorf("Empty() = %v; want %v", resp.Empty(), tc.empty)
			}
			if resp.Attempts != 1 || resp.Cached || resp.Latency <= 0 || resp.Model != "test-model" {
				t.Errorf("Attempts %d, Cached %v, Latency %v, Model %q; want 1, false, > 0, test-model",
					resp.Attempts, resp.Cached, resp.Latency, resp.Model)
			}
		})
	}
}

func TestMalformedArgumentsBecomeToolError(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewServer(t,
		openaitest.Calls(openaitest.ToolCall{ID: "call_m", Name: "cancel_reservation", Arguments: `{"reservation_id": "ABC`}),
		openaitest.Text("ok"),
	)
	c := newTestClient(t, testBackbone(srv), Options{})
	resp, err := c.Generate(t.Context(), Request{Messages: conversation(), Tools: testTools})
	if err != nil {
		t.Fatal(err)
	}
	tc := resp.Message.ToolCalls[0]
	err = tool.CheckArgs("AirlineTools", testTools[1], tc.Arguments)
	if err == nil || !strings.Contains(err.Error(), "must be a mapping, not str") {
		t.Errorf("CheckArgs(malformed) = %v; want a 'mapping, not str' error", err)
	}
	// The raw text goes back to the model as it came.
	msgs := append(conversation(), resp.Message,
		message.Message{Role: message.Tool, ToolCallID: tc.ID, Content: "Error: " + err.Error(), Error: true})
	if _, err := c.Generate(t.Context(), Request{Messages: msgs, Tools: testTools}); err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[1].Messages[3].ToolCalls[0].Arguments
	if sent != `{"reservation_id": "ABC` {
		t.Errorf("arguments sent back = %q; want the raw text", sent)
	}
}

func TestRequestFormat(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewServer(t, openaitest.Text("a"), openaitest.Text("b"))
	b := testBackbone(srv)
	b.MaxCompletionTokens = 4096
	b.ReasoningEffort = "low"
	b.ExtraBody = map[string]any{"thinking": map[string]any{"type": "enabled"}, "top_k": 20}
	c := newTestClient(t, b, Options{})
	msgs := append(conversation(),
		message.Message{Role: message.Assistant, ReasoningContent: "think", ToolCalls: []message.ToolCall{
			{ID: "call_1", Name: "get_user_details", Arguments: json.RawMessage(`{"user_id":"mia_li_3668","n":1.0,"s":"é"}`)},
			{ID: "call_2", Name: "cancel_reservation", Arguments: json.RawMessage(`{"reservation_id":"ABC123"}`)},
		}},
		message.Message{Role: message.Tool, ToolCallID: "call_1", Content: `{"name": "Mia"}`, Requestor: message.ByAssistant},
		message.Message{Role: message.Tool, ToolCallID: "call_2", Content: "", Requestor: message.ByAssistant},
	)
	if _, err := c.Generate(t.Context(), Request{Messages: msgs, Tools: testTools, Seed: ptr(300)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(t.Context(), Request{Messages: msgs[:3], ToolChoice: "none", Temperature: ptr(0.7)}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	r := reqs[0]
	if r.Model != "test-model" || r.Temperature == nil || *r.Temperature != 0 || r.Seed == nil || *r.Seed != 300 ||
		r.MaxCompletionTokens == nil || *r.MaxCompletionTokens != 4096 || r.MaxTokens != nil || r.ReasoningEffort != "low" {
		t.Errorf("params: model %q temperature %v seed %v max_completion_tokens %v max_tokens %v effort %q",
			r.Model, r.Temperature, r.Seed, r.MaxCompletionTokens, r.MaxTokens, r.ReasoningEffort)
	}
	if string(r.ToolChoice) != `"auto"` {
		t.Errorf("tool_choice = %s; want \"auto\" (upstream's default with tools)", r.ToolChoice)
	}
	if got := string(r.Extra["thinking"]); got != `{"type":"enabled"}` {
		t.Errorf("extra thinking = %s", got)
	}
	if got := string(r.Extra["top_k"]); got != `20` {
		t.Errorf("extra top_k = %s", got)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	// Messages as upstream's to_litellm_messages.
	wantRoles := []string{"system", "assistant", "user", "assistant", "tool", "tool"}
	for i, m := range r.Messages {
		if m.Role != wantRoles[i] {
			t.Errorf("message %d role %q; want %q", i, m.Role, wantRoles[i])
		}
	}
	a := r.Messages[3]
	if a.Content != nil {
		t.Errorf("tool-call message content = %q; want null", *a.Content)
	}
	if a.ReasoningContent != "" {
		t.Errorf("reasoning_content sent without send_reasoning")
	}
	if len(a.ToolCalls) != 2 || a.ToolCalls[0].ID != "call_1" || a.ToolCalls[1].Name != "cancel_reservation" {
		t.Errorf("tool calls = %+v", a.ToolCalls)
	}
	// json.dumps of the parsed arguments, as upstream sends them.
	if got, want := a.ToolCalls[0].Arguments, `{"user_id": "mia_li_3668", "n": 1.0, "s": "\u00e9"}`; got != want {
		t.Errorf("arguments = %s; want %s", got, want)
	}
	if tm := r.Messages[4]; tm.ToolCallID != "call_1" || tm.Text() != `{"name": "Mia"}` {
		t.Errorf("tool message = %+v", tm)
	}
	if tm := r.Messages[5]; tm.Content == nil || *tm.Content != "" {
		t.Errorf("empty tool content must be sent as \"\", got %v", tm.Content)
	}
	// Tools are each Info's OpenAI schema.
	if len(r.Tools) != 2 {
		t.Fatalf("tools = %d", len(r.Tools))
	}
	for i, tl := range r.Tools {
		var want struct {
			Function struct {
				Name, Description string
				Parameters        json.RawMessage
			}
		}
		if err := json.Unmarshal(testTools[i].OpenAISchema(), &want); err != nil {
			t.Fatal(err)
		}
		if tl.Type != "function" || tl.Name != want.Function.Name || tl.Description != want.Function.Description ||
			!jsonEqual(t, tl.Parameters, want.Function.Parameters) {
			t.Errorf("tool %d = %+v; want %+v", i, tl, want.Function)
		}
	}
	wantKeys := []string{"model", "messages", "tools", "tool_choice", "temperature", "seed", "max_completion_tokens", "reasoning_effort", "thinking", "top_k"}
	if !reflect.DeepEqual(r.Keys, wantKeys) {
		t.Errorf("keys = %v; want %v", r.Keys, wantKeys)
	}

	r2 := reqs[1]
	if r2.Tools != nil || r2.ToolChoice != nil || r2.Seed != nil || *r2.Temperature != 0.7 {
		t.Errorf("second request: tools %v tool_choice %s seed %v temperature %v", r2.Tools, r2.ToolChoice, r2.Seed, *r2.Temperature)
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func TestRequestParameters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(*Backbone)
		req    Request
		check  func(t *testing.T, r openaitest.Request)
	}{
		{"no temperature when absent", func(b *Backbone) { b.Temperature = nil }, Request{},
			func(t *testing.T, r openaitest.Request) {
				if r.Temperature != nil {
					t.Errorf("temperature sent: %v", *r.Temperature)
				}
			}},
		{"max_tokens", func(b *Backbone) { b.MaxTokens = 512 }, Request{},
			func(t *testing.T, r openaitest.Request) {
				if r.MaxTokens == nil || *r.MaxTokens != 512 || r.MaxCompletionTokens != nil {
					t.Errorf("max_tokens %v max_completion_tokens %v", r.MaxTokens, r.MaxCompletionTokens)
				}
			}},
		{"extra_body overrides a parameter", func(b *Backbone) { b.ExtraBody = map[string]any{"temperature": 0.6} }, Request{},
			func(t *testing.T, r openaitest.Request) {
				if r.Temperature == nil || *r.Temperature != 0.6 || strings.Count(string(r.Body), `"temperature"`) != 1 {
					t.Errorf("temperature %v body %s", r.Temperature, r.Body)
				}
			}},
		{"forced tool", nil, Request{Tools: testTools, ToolChoice: "cancel_reservation"},
			func(t *testing.T, r openaitest.Request) {
				if string(r.ToolChoice) != `{"type":"function","function":{"name":"cancel_reservation"}}` {
					t.Errorf("tool_choice = %s", r.ToolChoice)
				}
			}},
		{"no tools, no tool_choice", nil, Request{},
			func(t *testing.T, r openaitest.Request) {
				if r.ToolChoice != nil || r.Tools != nil {
					t.Errorf("tool_choice %s tools %v", r.ToolChoice, r.Tools)
				}
			}},
		{"send_reasoning", func(b *Backbone) { b.SendReasoning = true },
			Request{Messages: []message.Message{{Role: message.User, Content: "hi"}, {Role: message.Assistant, Content: "x", ReasoningContent: "why"}}},
			func(t *testing.T, r openaitest.Request) {
				if got := r.Messages[1].ReasoningContent; got != "why" {
					t.Errorf("reasoning_content = %q; want why", got)
				}
			}},
		{"tool_choice needs tools", nil, Request{ToolChoice: "required"},
			func(t *testing.T, r openaitest.Request) {
				if r.ToolChoice != nil {
					t.Errorf("tool_choice sent without tools: %s", r.ToolChoice)
				}
			}},
		{"no local key", func(b *Backbone) { b.APIKeyEnv = "" }, Request{},
			func(t *testing.T, r openaitest.Request) {
				if got := r.Header.Get("Authorization"); got != "" {
					t.Errorf("Authorization = %q; want none", got)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Text("ok"))
			b := testBackbone(srv)
			if tc.mutate != nil {
				tc.mutate(&b)
			}
			c := newTestClient(t, b, Options{})
			req := tc.req
			if req.Messages == nil {
				req.Messages = conversation()
			}
			if _, err := c.Generate(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			tc.check(t, srv.Requests()[0])
		})
	}
}

func TestStripThinkBackbone(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewServer(t, openaitest.Text("<think>\nplan\n</think>\n\nHello!"))
	b := testBackbone(srv)
	b.StripThink = true
	c := newTestClient(t, b, Options{})
	r, err := c.Generate(t.Context(), Request{Messages: conversation()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Message.Content != "Hello!" || r.Message.ReasoningContent != "plan" {
		t.Errorf("content %q reasoning %q; want Hello! and plan", r.Message.Content, r.Message.ReasoningContent)
	}
}

func TestReasoningRoundTrip(t *testing.T) {
	t.Parallel()
	for _, send := range []bool{true, false} {
		srv := openaitest.NewServer(t,
			openaitest.Reply{ReasoningContent: "Need the user id first.", ToolCalls: []openaitest.ToolCall{{Name: "get_user_details", Arguments: `{"user_id":"u1"}`}}},
			openaitest.Text("Found you."),
		)
		b := testBackbone(srv)
		b.SendReasoning = send
		c := newTestClient(t, b, Options{})
		msgs := conversation()
		r1, err := c.Generate(t.Context(), Request{Messages: msgs, Tools: testTools})
		if err != nil {
			t.Fatal(err)
		}
		if r1.Message.ReasoningContent != "Need the user id first." {
			t.Fatalf("reasoning = %q", r1.Message.ReasoningContent)
		}
		msgs = append(msgs, r1.Message, message.Message{Role: message.Tool, ToolCallID: r1.Message.ToolCalls[0].ID, Content: "{}"})
		if _, err := c.Generate(t.Context(), Request{Messages: msgs, Tools: testTools}); err != nil {
			t.Fatal(err)
		}
		sent := srv.Requests()[1].Messages[3]
		want := ""
		if send {
			want = "Need the user id first."
		}
		if sent.ReasoningContent != want {
			t.Errorf("send_reasoning=%v: reasoning_content sent %q; want %q", send, sent.ReasoningContent, want)
		}
		if sent.ToolCalls[0].ID != r1.Message.ToolCalls[0].ID {
			t.Errorf("tool call id not kept")
		}
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	httpDate := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name       string
		script     []openaitest.Reply
		maxRetries int
		timeout    time.Duration
		wantErr    bool
		attempts   int
		status     int
		// minWait[i] is the least the i-th backoff may be.
		minWait []time.Duration
		hint    string
	}{
		{name: "429 with Retry-After seconds then success",
			script:     []openaitest.Reply{openaitest.Status(429, "0.3"), openaitest.Text("ok")},
			maxRetries: 3, attempts: 2, minWait: []time.Duration{300 * time.Millisecond}},
		{name: "503 with Retry-After HTTP date then success",
			script:     []openaitest.Reply{openaitest.Status(503, httpDate.Add(7*time.Second).Format(http.TimeFormat)), openaitest.Text("ok")},
			maxRetries: 3, attempts: 2, minWait: []time.Duration{7 * time.Second}},
		{name: "500 twice then success",
			script:     []openaitest.Reply{openaitest.Status(500, ""), openaitest.Status(500, ""), openaitest.Text("ok")},
			maxRetries: 3, attempts: 3},
		{name: "500s exhaust retries",
			script:     []openaitest.Reply{openaitest.Status(500, ""), openaitest.Status(500, ""), openaitest.Status(500, "")},
			maxRetries: 2, wantErr: true, attempts: 3, status: 500, hint: "try again later"},
		{name: "429s exhaust their own retries, not max_retries",
			script:     slices.Repeat([]openaitest.Reply{openaitest.Status(429, "0.001")}, RateLimitRetries+1),
			maxRetries: 1, wantErr: true, attempts: RateLimitRetries + 1, status: 429, hint: "lower rpm/tpm"},
		{name: "408 and 409 are retried",
			script:     []openaitest.Reply{openaitest.Status(408, ""), openaitest.Status(409, ""), openaitest.Text("ok")},
			maxRetries: 3, attempts: 3},
		{name: "malformed response body is retried",
			script:     []openaitest.Reply{{Body: `{"choices": [`}, openaitest.Text("ok")},
			maxRetries: 3, attempts: 2},
		{name: "hung response times out then retry succeeds",
			script:     []openaitest.Reply{openaitest.Hang(), openaitest.Text("ok")},
			maxRetries: 3, timeout: 100 * time.Millisecond, attempts: 2},
		{name: "slow response within the timeout",
			script:     []openaitest.Reply{openaitest.Slow(50*time.Millisecond, openaitest.Text("ok"))},
			maxRetries: 0, timeout: 2 * time.Second, attempts: 1},
		{name: "hung responses exhaust retries",
			script:     []openaitest.Reply{openaitest.Hang(), openaitest.Hang()},
			maxRetries: 1, timeout: 50 * time.Millisecond, wantErr: true, attempts: 2, hint: "raise the backbone's timeout"},
		{name: "reply without choices is retried",
			script:     []openaitest.Reply{{Body: `{"id":"x","object":"chat.completion","choices":[]}`}, openaitest.Text("ok")},
			maxRetries: 3, attempts: 2},
		{name: "replies without choices exhaust retries",
			script:     []openaitest.Reply{{Body: `{"id":"x","choices":[]}`}, {Body: `{"id":"x"}`}},
			maxRetries: 1, wantErr: true, attempts: 2, hint: "reply has no choices"},
		{name: "200 with an error body is retried",
			script:     []openaitest.Reply{{Body: `{"error":{"message":"upstream overloaded","code":"overloaded"}}`}, openaitest.Text("ok")},
			maxRetries: 3, attempts: 2},
		{name: "200 with error bodies exhaust retries with the provider's message",
			script:     []openaitest.Reply{{Body: `{"error":{"message":"upstream overloaded","code":"overloaded"}}`}, {Body: `{"error":"quota exhausted","choices":[]}`}},
			maxRetries: 1, wantErr: true, attempts: 2, hint: "reply carries an error: quota exhausted"},
		{name: "400 is not retried",
			script:  []openaitest.Reply{{Status: 400, Message: "temperature is not supported with this model"}},
			wantErr: true, maxRetries: 3, attempts: 1, status: 400, hint: "check the backbone's temperature"},
		{name: "401 is not retried",
			script:  []openaitest.Reply{openaitest.Status(401, "")},
			wantErr: true, maxRetries: 3, attempts: 1, status: 401, hint: "set TEST_API_KEY"},
		{name: "404 is not retried",
			script:  []openaitest.Reply{openaitest.Status(404, "")},
			wantErr: true, maxRetries: 3, attempts: 1, status: 404, hint: `check model "test-model"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, tc.script...)
			b := testBackbone(srv)
			b.MaxRetries = &tc.maxRetries
			if tc.timeout > 0 {
				b.Timeout = tc.timeout
			}
			sl := &sleeper{}
			c := newTestClient(t, b, Options{
				Sleep:       sl.sleep,
				Now:         func() time.Time { return httpDate },
				BackoffBase: 100 * time.Millisecond,
			})
			start := time.Now()
			resp, err := c.Generate(t.Context(), Request{Messages: conversation()})
			if elapsed := time.Since(start); elapsed > 3*time.Second {
				t.Errorf("took %v", elapsed)
			}
			if got := len(srv.Requests()); got != tc.attempts {
				t.Errorf("server saw %d requests; want %d", got, tc.attempts)
			}
			waits := sl.recorded()
			if tc.wantErr {
				if !errors.Is(err, fault.ErrInfrastructure) {
					t.Fatalf("err = %v; want fault.ErrInfrastructure", err)
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err %T is not *Error", err)
				}
				if e.Attempts != tc.attempts || e.Status != tc.status {
					t.Errorf("Error attempts %d status %d; want %d %d", e.Attempts, e.Status, tc.attempts, tc.status)
				}
				if !strings.Contains(err.Error(), tc.hint) {
					t.Errorf("err = %q; want hint %q", err, tc.hint)
				}
				if errors.Is(err, ErrRateLimited) != (tc.status == 429) {
					t.Errorf("errors.Is(err, ErrRateLimited) = %v for status %d", errors.Is(err, ErrRateLimited), tc.status)
				}
				if auth := tc.status == 401 || tc.status == 403; errors.Is(err, ErrAuth) != auth || (auth && e.KeyEnv != "TEST_API_KEY") {
					t.Errorf("errors.Is(err, ErrAuth) = %v, KeyEnv %q for status %d", errors.Is(err, ErrAuth), e.KeyEnv, tc.status)
				}
				if errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("an attempt timeout must not look like the caller's deadline: %v", err)
				}
				if len(waits) != tc.attempts-1 {
					t.Errorf("%d backoff waits; want %d", len(waits), tc.attempts-1)
				}
				return
			}
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if resp.Attempts != tc.attempts || resp.Message.Content != "ok" {
				t.Errorf("Attempts %d content %q; want %d ok", resp.Attempts, resp.Message.Content, tc.attempts)
			}
			if len(waits) != tc.attempts-1 {
				t.Fatalf("%d backoff waits; want %d", len(waits), tc.attempts-1)
			}
			for i, min := range tc.minWait {
				if waits[i] < min || waits[i] >= min+25*time.Millisecond {
					t.Errorf("wait %d = %v; want Retry-After %v plus jitter under 25ms", i, waits[i], min)
				}
			}
			if resp.Wait < sumDurations(waits) {
				t.Errorf("Wait = %v; want at least %v", resp.Wait, sumDurations(waits))
			}
		})
	}
}

func sumDurations(ds []time.Duration) time.Duration {
	var s time.Duration
	for _, d := range ds {
		s += d
	}
	return s
}

func TestBackoffFullJitter(t *testing.T) {
	t.Parallel()
	var asked []time.Duration
	c := &Options{
		BackoffBase: time.Second, BackoffMax: 10 * time.Second,
		Jitter: func(d time.Duration) time.Duration { asked = append(asked, d); return d - 1 },
	}
	for n := 1; n <= 6; n++ {
		c.backoff(n, 0)
	}
	want := []time.Duration{1, 2, 4, 8, 10, 10}
	for i := range want {
		want[i] *= time.Second
	}
	if !reflect.DeepEqual(asked, want) {
		t.Errorf("jitter ceilings = %v; want %v", asked, want)
	}
	if got := c.backoff(1, time.Hour); got != maxRetryAfter+250*time.Millisecond-1 {
		t.Errorf("backoff with a huge Retry-After = %v; want capped at %v plus jitter", got, maxRetryAfter)
	}
}

func TestRetryAfterParse(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"absent", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"http date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"milliseconds header wins", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative", http.Header{"Retry-After": {"-4"}}, 0},
	}
	for _, tc := range tests {
		if got := retryAfter(tc.header, now); got != tc.want {
			t.Errorf("%s: retryAfter(%v) = %v; want %v", tc.name, tc.header, got, tc.want)
		}
	}
}

func TestContextLengthError(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewServer(t, openaitest.Reply{Status: 400,
		Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens."})
	c := newTestClient(t, testBackbone(srv), Options{})
	_, err := c.Generate(t.Context(), Request{Messages: conversation()})
	if !errors.Is(err, ErrContextLength) || !errors.Is(err, fault.ErrInfrastructure) {
		t.Errorf("err = %v; want ErrContextLength and fault.ErrInfrastructure", err)
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	t.Parallel()
	// A hostile provider echoes the Authorization header in its messages.
	echo := func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Status: 401, Message: "invalid key: " + r.Header.Get("Authorization")}
	}
	srv := openaitest.NewHandlerServer(t, echo)
	c := newTestClient(t, testBackbone(srv), Options{})
	_, err := c.Generate(t.Context(), Request{Messages: conversation()})
	if err == nil {
		t.Fatal("want an error")
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error leaks the key: %v", err)
	}
	if !strings.Contains(err.Error(), "[REDACTED]") || !strings.Contains(err.Error(), "set TEST_API_KEY") {
		t.Errorf("err = %v; want the redacted echo and a hint", err)
	}

	// Retried failures too, and the log lines.
	srv2 := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Status: 500, Message: "oops " + r.Header.Get("Authorization")}
	})
	var logs strings.Builder
	var mu sync.Mutex
	c2 := newTestClient(t, testBackbone(srv2), Options{Logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs.WriteString(strings.ReplaceAll(f, "%v", "")) // the format itself
		for _, x := range a {
			if e, ok := x.(error); ok {
				logs.WriteString(e.Error())
			}
		}
	}})
	_, err = c2.Generate(t.Context(), Request{Messages: conversation()})
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Errorf("err = %v; want an error without the key", err)
	}
	if strings.Contains(logs.String(), testKey) {
		t.Errorf("logs leak the key: %s", logs.String())
	}
}

// Only a value long enough to be a key is redacted: a one-letter "key"
// must not redact the letters of the provider's message.
func TestShortKeyNotRedacted(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewServer(t, openaitest.Reply{Status: 400, Message: "max_tokens is too large for this model"})
	c := newTestClient(t, testBackbone(srv), Options{LookupEnv: func(string) (string, bool) { return "a", true }})
	_, err := c.Generate(t.Context(), Request{Messages: conversation()})
	if err == nil || !strings.Contains(err.Error(), "max_tokens is too large for this model") || strings.Contains(err.Error(), "[REDACTED]") {
		t.Errorf("err = %v; want the provider's message intact", err)
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	msg := errors.New("invalid key sk-abcdefgh; a bad request")
	tests := []struct {
		key, want string
	}{
		{"", msg.Error()},
		{"a", msg.Error()},
		{"sk-abcd", msg.Error()}, // 7 characters: not a key
		{"sk-abcdefgh", "invalid key [REDACTED]; a bad request"},
		{"sk-other-key", msg.Error()},
	}
	for _, tc := range tests {
		if got := Redact(msg, tc.key).Error(); got != tc.want {
			t.Errorf("Redact(%q) = %q; want %q", tc.key, got, tc.want)
		}
	}
	if Redact(nil, "sk-abcdefgh") != nil {
		t.Error("Redact(nil) != nil")
	}
}

func TestContextCancelStopsPromptly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply openaitest.Reply
		opts  Options
	}{
		{"during a hung request", openaitest.Hang(), Options{}},
		{"during backoff", openaitest.Status(500, ""), Options{
			BackoffBase: time.Hour, BackoffMax: time.Hour,
			Sleep:  func(ctx context.Context, d time.Duration) error { <-ctx.Done(); return ctx.Err() },
			Jitter: func(d time.Duration) time.Duration { return d / 2 }}},
		{"during Retry-After", openaitest.Status(429, "120"), Options{
			Sleep: func(ctx context.Context, d time.Duration) error { <-ctx.Done(); return ctx.Err() }}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, tc.reply)
			b := testBackbone(srv)
			b.Timeout = time.Hour
			c := newTestClient(t, b, tc.opts)
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(50*time.Millisecond, cancel)
			start := time.Now()
			_, err := c.Generate(ctx, Request{Messages: conversation()})
			if d := time.Since(start); d > time.Second {
				t.Errorf("returned after %v", d)
			}
			if !errors.Is(err, context.Canceled) || errors.Is(err, fault.ErrInfrastructure) {
				t.Errorf("err = %v; want context.Canceled, not fault.ErrInfrastructure", err)
			}
		})
	}
}

func TestRateLimiter(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewHandlerServer(t, func(*openaitest.Request) openaitest.Reply { return openaitest.Text("ok") })
	b := testBackbone(srv)
	b.RPM = 1200 // one start every 1/19s, no burst
	cfg := &Config{Backbones: map[string]Backbone{"test": b}}
	pool := NewPool(cfg, Options{LookupEnv: testEnv})
	c1, err := pool.Client("test")
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := pool.Client("test")
	if c1 != c2 {
		t.Fatal("pool returned two clients for one backbone")
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 30 {
		c := c1
		if i%2 == 1 {
			c = c2
		}
		wg.Go(func() {
			if _, err := c.Generate(t.Context(), Request{Messages: conversation()}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// 30 starts 1/19s apart (95% of 20 a second): the last after 1.53s.
	if d := time.Since(start); d < 1500*time.Millisecond {
		t.Errorf("30 calls at 1200 rpm took %v; want ≥ 1.53s", d)
	}
}

func TestTokenLimiter(t *testing.T) {
	t.Parallel()
	l := newLimiter(0, 6000) // 100 tokens/s, burst 600
	ctx := t.Context()
	start := time.Now()
	if err := l.wait(ctx, 600); err != nil {
		t.Fatal(err)
	}
	l.charge(20) // used 20 more than estimated
	if err := l.wait(ctx, 20); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 350*time.Millisecond {
		t.Errorf("waited %v; want ≈ 400ms for 40 tokens at 100/s", d)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := l.wait(short, 600); err == nil {
		t.Errorf("wait beyond the deadline succeeded")
	}
}

func TestCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := openaitest.NewServer(t,
		openaitest.Reply{Content: "One.", ReasoningContent: "r", ToolCalls: []openaitest.ToolCall{
			{ID: "c1", Name: "get_user_details", Arguments: `{"user_id":  "x"}`},
			{ID: "c2", Name: "cancel_reservation", Arguments: `{bad`}}},
		openaitest.Text("Two."),
	)
	b := testBackbone(srv)
	c := newTestClient(t, b, Options{CacheDir: dir})
	req := Request{Messages: conversation(), Tools: testTools, Seed: ptr(1)}
	first, err := c.Generate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	// A new client (a rerun) gets the same bytes back without a request.
	c2 := newTestClient(t, b, Options{CacheDir: dir})
	again, err := c2.Generate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("server saw %d requests; want 1", n)
	}
	if !again.Cached || again.Cost != 0 || again.Message.Cost != 0 || again.Attempts != 0 || again.Latency != 0 {
		t.Errorf("cache hit: Cached %v Cost %v/%v Attempts %d Latency %v; want true 0 0 0",
			again.Cached, again.Cost, again.Message.Cost, again.Attempts, again.Latency)
	}
	want := first
	want.Cached, want.Cost, want.Message.Cost, want.Attempts, want.Latency, want.Wait = true, 0, 0, 0, 0, 0
	if !reflect.DeepEqual(again, want) {
		t.Errorf("cache hit differs:\n got %+v\nwant %+v", again, want)
	}
	for i, tc := range again.Message.ToolCalls {
		if string(tc.Arguments) != string(first.Message.ToolCalls[i].Arguments) {
			t.Errorf("arguments %d: %s; want %s", i, tc.Arguments, first.Message.ToolCalls[i].Arguments)
		}
	}
	// A different request misses.
	req.Seed = ptr(2)
	third, err := c2.Generate(t.Context(), req)
	if err != nil || third.Cached || third.Message.Content != "Two." {
		t.Errorf("different seed: %+v, %v; want a fresh call", third, err)
	}
	// No cache file holds the key.
	n := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), testKey) || strings.Contains(string(data), "TEST_API_KEY") {
			t.Errorf("%s holds the key", p)
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Errorf("walk: %v, %d files; want 2", err, n)
	}
}

func TestCacheKeyIgnoresAPIKey(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewServer(t, openaitest.Text("x"))
	dir := t.TempDir()
	b := testBackbone(srv)
	c1 := newTestClient(t, b, Options{CacheDir: dir})
	if _, err := c1.Generate(t.Context(), Request{Messages: conversation()}); err != nil {
		t.Fatal(err)
	}
	c2 := newTestClient(t, b, Options{CacheDir: dir, LookupEnv: func(string) (string, bool) { return "sk-other", true }})
	r, err := c2.Generate(t.Context(), Request{Messages: conversation()})
	if err != nil || !r.Cached {
		t.Errorf("another key: cached %v, %v; want a hit", r.Cached, err)
	}
}

func TestRandomFaults(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Calls(openaitest.Call("get_user_details", `{"user_id":"u1"}`))
	})
	srv.SetFaults(&openaitest.Faults{Seed: 7, RateLimit: 0.2, ServerError: 0.05, MalformedArgs: 0.02, Hang: 0.01, RetryAfter: "0"})
	b := testBackbone(srv)
	b.MaxRetries = ptr(20)
	// Only the injected hangs may reach the attempt timeout: 5s, not less,
	// so that a reply slowed by a loaded machine (-race, parallel tests) is
	// not retried and counted twice.
	b.Timeout = 5 * time.Second
	c := newTestClient(t, b, Options{BackoffBase: time.Millisecond})
	var wg sync.WaitGroup
	var mu sync.Mutex
	malformed := 0
	calls := make(chan int)
	for range 16 {
		wg.Go(func() {
			for range calls {
				r, err := c.Generate(t.Context(), Request{Messages: conversation(), Tools: testTools})
				if err != nil {
					t.Error(err)
					continue
				}
				mu.Lock()
				malformed += r.MalformedArgs
				mu.Unlock()
			}
		})
	}
	for i := range 200 {
		calls <- i
	}
	close(calls)
	wg.Wait()
	st := srv.Stats()
	if st.Replies != 200 || st.RateLimited == 0 || st.ServerErrors == 0 {
		t.Errorf("stats %+v; want 200 replies and some faults", st)
	}
	if malformed != st.MalformedArgs {
		t.Errorf("malformed replies seen %d; server injected %d", malformed, st.MalformedArgs)
	}
}

func TestPool(t *testing.T) {
	t.Parallel()
	cfg := &Config{Backbones: map[string]Backbone{
		"b": {Name: "b", BaseURL: "https://example.com/v1", Model: "m", APIKeyEnv: "B_KEY"},
		"a": {Name: "a", BaseURL: "http://localhost:8000/v1", Model: "m"},
	}, Judge: "a"}
	p := NewPool(cfg, Options{LookupEnv: func(string) (string, bool) { return "", false }})
	_, err := p.Client("nope")
	if !errors.Is(err, ErrUnknownBackbone) || !strings.Contains(err.Error(), `"nope" (known: a, b)`) {
		t.Errorf("unknown: %v", err)
	}
	_, err = p.Client("b")
	if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "hint: set B_KEY") {
		t.Errorf("missing key: %v", err)
	}
	if _, err := p.Judge(); err != nil {
		t.Errorf("judge without key: %v", err)
	}
}

// A tool-calling reply whose content is "" (not null) is marked, so that it
// is sent back as "" like upstream does; null content and text replies are
// not. OnRequest sees every body once.
func TestEmptyContentAndOnRequest(t *testing.T) {
	t.Parallel()
	call := openaitest.ToolCall{ID: "c", Name: "get_user_details", Arguments: `{}`}
	cases := []struct {
		name  string
		reply openaitest.Reply
		want  bool
	}{
		{"null content", openaitest.Reply{ToolCalls: []openaitest.ToolCall{call}}, false},
		{"empty content", openaitest.Reply{EmptyContent: true, ToolCalls: []openaitest.ToolCall{call}}, true},
		{"empty text reply", openaitest.Reply{EmptyContent: true}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, tc.reply)
			var bodies [][]byte
			c := newTestClient(t, testBackbone(srv), Options{OnRequest: func(_ string, body []byte, cached bool) {
				bodies = append(bodies, append([]byte(nil), body...))
			}})
			resp, err := c.Generate(t.Context(), Request{Messages: conversation(), Tools: testTools})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.EmptyContent != tc.want {
				t.Errorf("EmptyContent = %v; want %v", resp.Message.EmptyContent, tc.want)
			}
			if len(bodies) != 1 || !bytes.Equal(bodies[0], srv.Requests()[0].Body) {
				t.Errorf("OnRequest saw %d bodies, not the one sent", len(bodies))
			}
		})
	}
}
