package openaitest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func post(t *testing.T, ctx context.Context, url, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer sk-x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		v = map[string]any{"raw": string(data)}
	}
	return resp, v
}

const reqBody = `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"assistant","content":null,"reasoning_content":"r","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}}]},{"role":"tool","content":"ok","tool_call_id":"c1"}],"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}],"tool_choice":"auto","temperature":0.0,"seed":3,"thinking":{"type":"enabled"}}`

func TestScriptAndRecording(t *testing.T) {
	t.Parallel()
	s := NewServer(t,
		Text("hello"),
		Reply{ReasoningContent: "why", ToolCalls: []ToolCall{Call("f", `{"a":1}`), {ID: "mine", Name: "g", Arguments: `{bad`}},
			Usage: &Usage{PromptTokens: 10, CompletionTokens: 5, CachedTokens: 2, ReasoningTokens: 1}},
		Empty(),
	)
	ctx := t.Context()
	_, v := post(t, ctx, s.BaseURL(), reqBody)
	msg := v["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	if msg["content"] != "hello" || msg["tool_calls"] != nil {
		t.Errorf("text reply message = %v", msg)
	}
	_, v = post(t, ctx, s.BaseURL(), reqBody)
	ch := v["choices"].([]any)[0].(map[string]any)
	msg = ch["message"].(map[string]any)
	calls := msg["tool_calls"].([]any)
	if msg["content"] != nil || msg["reasoning_content"] != "why" || len(calls) != 2 || ch["finish_reason"] != "tool_calls" {
		t.Errorf("tool reply = %v", ch)
	}
	c0 := calls[0].(map[string]any)
	c1 := calls[1].(map[string]any)
	if c0["id"] != "call_2_0" || c1["id"] != "mine" || c1["function"].(map[string]any)["arguments"] != `{bad` {
		t.Errorf("calls = %v", calls)
	}
	u := v["usage"].(map[string]any)
	if u["prompt_tokens"] != 10.0 || u["total_tokens"] != 15.0 ||
		u["prompt_tokens_details"].(map[string]any)["cached_tokens"] != 2.0 ||
		u["completion_tokens_details"].(map[string]any)["reasoning_tokens"] != 1.0 {
		t.Errorf("usage = %v", u)
	}
	_, v = post(t, ctx, s.BaseURL(), reqBody)
	msg = v["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	if msg["content"] != nil || msg["tool_calls"] != nil {
		t.Errorf("empty reply = %v", msg)
	}
	if s.Remaining() != 0 {
		t.Errorf("Remaining = %d", s.Remaining())
	}

	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	r := reqs[0]
	if r.Model != "m" || *r.Temperature != 0 || *r.Seed != 3 || string(r.ToolChoice) != `"auto"` ||
		string(r.Extra["thinking"]) != `{"type":"enabled"}` || r.Header.Get("Authorization") != "Bearer sk-x" {
		t.Errorf("request = %+v", r)
	}
	wantKeys := []string{"model", "messages", "tools", "tool_choice", "temperature", "seed", "thinking"}
	if !reflect.DeepEqual(r.Keys, wantKeys) {
		t.Errorf("keys = %v", r.Keys)
	}
	a := r.Messages[1]
	if a.Content != nil || a.ReasoningContent != "r" || a.ToolCalls[0] != (ToolCall{ID: "c1", Name: "f", Arguments: `{"a": 1}`}) {
		t.Errorf("assistant message = %+v", a)
	}
	if tm := r.LastMessage(); tm.Role != "tool" || tm.ToolCallID != "c1" || tm.Text() != "ok" {
		t.Errorf("tool message = %+v", tm)
	}
	if !reflect.DeepEqual(r.Tools[0], Tool{Type: "function", Name: "f", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}) {
		t.Errorf("tools = %+v", r.Tools)
	}
}

func TestErrorReplies(t *testing.T) {
	t.Parallel()
	s := NewServer(t, Status(429, "3"), Reply{Status: 400, Message: "no temperature"}, Reply{Body: `{"choices": [`})
	resp, v := post(t, t.Context(), s.BaseURL(), reqBody)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || v["error"].(map[string]any)["type"] != "rate_limit_error" {
		t.Errorf("429: %d %v %v", resp.StatusCode, resp.Header, v)
	}
	resp, v = post(t, t.Context(), s.BaseURL(), reqBody)
	if resp.StatusCode != 400 || v["error"].(map[string]any)["message"] != "no temperature" {
		t.Errorf("400: %d %v", resp.StatusCode, v)
	}
	resp, v = post(t, t.Context(), s.BaseURL(), reqBody)
	if resp.StatusCode != 200 || v["raw"] != `{"choices": [` {
		t.Errorf("raw body: %d %v", resp.StatusCode, v)
	}
	resp, _ = post(t, t.Context(), s.BaseURL(), `not json`)
	if resp.StatusCode != 400 {
		t.Errorf("undecodable request: %d", resp.StatusCode)
	}
}

func TestHangAndSlow(t *testing.T) {
	t.Parallel()
	// The client gives up on the hanging reply once the server holds it
	// (an event, not a timeout that a loaded machine can beat).
	arrived := make(chan struct{})
	var n atomic.Int32
	s := NewHandlerServer(t, func(*Request) Reply {
		if n.Add(1) == 1 {
			close(arrived)
			return Hang()
		}
		return Slow(30*time.Millisecond, Text("late"))
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	start := time.Now()
	resp, _ := post(t, ctx, s.BaseURL(), reqBody)
	if resp != nil {
		t.Errorf("hang answered (%v) after %v", resp, time.Since(start))
	}
	start = time.Now()
	_, v := post(t, t.Context(), s.BaseURL(), reqBody)
	if d := time.Since(start); d < 30*time.Millisecond || v["choices"] == nil {
		t.Errorf("slow reply after %v: %v", d, v)
	}
}

func TestHandler(t *testing.T) {
	t.Parallel()
	s := NewHandlerServer(t, func(r *Request) Reply {
		return Text("echo: " + r.LastMessage().Text())
	})
	_, v := post(t, t.Context(), s.BaseURL(), reqBody)
	if got := v["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"]; got != "echo: ok" {
		t.Errorf("content = %v", got)
	}
}

func TestFaultsAreSeeded(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) ([]int, Stats) {
		s := NewHandlerServer(t, func(*Request) Reply { return Calls(Call("f", `{"a": "long enough"}`)) })
		s.SetFaults(&Faults{Seed: seed, RateLimit: 0.2, ServerError: 0.1, MalformedArgs: 0.1, Slow: 0.1,
			RetryAfter: "1", SlowDelay: time.Millisecond})
		var codes []int
		for range 60 {
			resp, v := post(t, t.Context(), s.BaseURL(), reqBody)
			code := resp.StatusCode
			if code == 200 {
				args := v["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"].(string)
				if !json.Valid([]byte(args)) {
					code = 299 // marks a malformed reply
				}
			}
			if code == 429 && resp.Header.Get("Retry-After") != "1" {
				t.Errorf("429 without Retry-After")
			}
			codes = append(codes, code)
		}
		return codes, s.Stats()
	}
	a, sa := run(1)
	b, _ := run(1)
	c, _ := run(2)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different faults:\n%v\n%v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("different seeds, same faults")
	}
	count := map[int]int{}
	for _, code := range a {
		count[code]++
	}
	if count[429] != sa.RateLimited || count[500] != sa.ServerErrors || count[299] != sa.MalformedArgs ||
		sa.RateLimited == 0 || sa.ServerErrors == 0 || sa.MalformedArgs == 0 || sa.Requests != 60 {
		t.Errorf("codes %v vs stats %+v", count, sa)
	}
}
