// Package openaitest is an in-process fake of the OpenAI chat completions
// endpoint (POST …/chat/completions) for tests and load tests.
//
// A Server answers with scripted replies in order (NewServer) or asks a
// handler for each reply (NewHandlerServer). Replies can be text, tool calls
// (several at once, with arguments that need not be valid JSON), empty
// replies, reasoning text and usage, or faults: an HTTP error status with a
// Retry-After header, a slow answer, or an answer that never comes. SetFaults
// adds seeded random faults on top of any script, for load tests. Every
// request is decoded and recorded for assertions.
//
// The fake is written from the public API description and does not import an
// SDK, so client tests check the client against an independent encoding.
package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ToolCall is one scripted function call. Arguments is sent verbatim as the
// function's arguments text, so it may be invalid JSON. An empty ID is
// replaced by "call_<reply>_<index>".
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Usage is the token usage a reply reports.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	ReasoningTokens  int
	CachedTokens     int
}

// Reply is one scripted answer: a completion, or a fault when Status is set,
// Hang is true or Body is set.
type Reply struct {
	Content string
	// EmptyContent sends an empty Content as "" instead of null.
	EmptyContent     bool
	ReasoningContent string
	// ReasoningKey is the JSON key the reasoning is sent under;
	// "" means "reasoning_content" (Kimi, GLM, DeepSeek, vLLM); OpenRouter
	// uses "reasoning".
	ReasoningKey string
	ToolCalls    []ToolCall
	// Usage is reported as is; nil reports an estimate from the sizes of the
	// request and the reply (about four bytes a token).
	Usage *Usage
	// FinishReason defaults to "tool_calls" when there are tool calls, else
	// "stop".
	FinishReason string

	// Status, when not 0 or 200, makes an error reply
	// {"error":{"message":Message,...}} with that status.
	Status int
	// RetryAfter is sent as the Retry-After header (seconds or HTTP date).
	RetryAfter string
	// Message is the error message of an error reply.
	Message string
	// Body, when set, is sent verbatim (with Status, or 200) instead of a
	// generated body: for malformed responses.
	Body string
	// Delay postpones the reply (a slow provider). The wait ends early if the
	// client gives up.
	Delay time.Duration
	// Hang never replies: the handler waits until the client gives up or the
	// server closes.
	Hang bool
}

// Text is a plain text reply.
func Text(s string) Reply { return Reply{Content: s} }

// Calls is a reply calling the given tools, in order.
func Calls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// Call is a tool call with a generated ID.
func Call(name, args string) ToolCall { return ToolCall{Name: name, Arguments: args} }

// Empty is a reply with neither content nor tool calls.
func Empty() Reply { return Reply{} }

// Status is an error reply with the given status and optional Retry-After
// header value ("" for none).
func Status(code int, retryAfter string) Reply {
	return Reply{Status: code, RetryAfter: retryAfter, Message: http.StatusText(code)}
}

// Hang is a reply that never comes.
func Hang() Reply { return Reply{Hang: true} }

// Slow delays r by d.
func Slow(d time.Duration, r Reply) Reply {
	r.Delay = d
	return r
}

// Handler decides the reply to one request. It may be called concurrently.
type Handler func(r *Request) Reply

// Faults configures random faults drawn per request from a generator seeded
// with Seed, so a load test sees the same fault sequence for the same
// request order. Rates are probabilities in [0,1]; their sum must not exceed
// 1. A rate-limit, server-error or hang fault does not consume a scripted
// reply (the client's retry gets it); a malformed-arguments fault corrupts
// the arguments of the reply it is applied to; a slow fault delays it.
type Faults struct {
	Seed          uint64
	RateLimit     float64 // 429 with RetryAfter
	ServerError   float64 // 500
	MalformedArgs float64 // first tool call's arguments cut in half
	Hang          float64 // no reply until the client gives up
	Slow          float64 // reply delayed by SlowDelay
	// RetryAfter is the Retry-After value sent with injected 429s ("" none).
	RetryAfter string
	SlowDelay  time.Duration
}

// Limits make the server enforce a provider's rate limits (SetLimits), as
// providers quantize them: requests per calendar second, tokens from a
// bucket. A request over a limit gets a 429 with Retry-After-Ms (the
// milliseconds until it would pass) and Retry-After (whole seconds, rounded
// up) and is not counted against the limits.
type Limits struct {
	// RPM allows RPM/60 requests (at least 1) in each calendar second.
	RPM int
	// TPM is a bucket of TPM/10 tokens refilled at TPM/60 a second, full at
	// the start: a request needs its prompt tokens (body bytes / 4 + 1, the
	// usage estimate of replies without Usage) in the bucket, and its reply's
	// completion tokens are taken when it is sent (the bucket may go below
	// zero).
	TPM int
}

// Stats counts what the server did.
type Stats struct {
	Requests      int
	Replies       int // completions sent (status 200)
	OverLimit     int // 429s for the limits of SetLimits
	RateLimited   int // injected 429s
	ServerErrors  int // injected 500s
	MalformedArgs int // injected malformed arguments
	Hangs         int // injected hangs
	Slow          int // injected delays
}

// Server is a running fake. Close is registered with t.Cleanup.
type Server struct {
	*httptest.Server

	t       testing.TB
	handler Handler
	done    chan struct{}

	mu       sync.Mutex
	script   []Reply
	next     int
	requests []Request
	faults   *Faults
	rng      *rand.Rand
	stats    Stats
	replyN   int
	limits   *limitState
}

// limitState is the enforcement of Limits.
type limitState struct {
	Limits
	second time.Time // the calendar second being counted
	inSec  int
	tokens float64 // the bucket
	filled time.Time
	now    func() time.Time
}

// admit reports whether a request of tokens passes, and if not how long
// until it would.
func (l *limitState) admit(tokens int) (bool, time.Duration) {
	now := l.now()
	if l.RPM > 0 {
		if sec := now.Truncate(time.Second); !sec.Equal(l.second) {
			l.second, l.inSec = sec, 0
		}
		if l.inSec >= max(1, l.RPM/60) {
			return false, l.second.Add(time.Second).Sub(now)
		}
	}
	if l.TPM > 0 {
		l.refill(now)
		if l.tokens < float64(tokens) {
			need := min(float64(tokens), float64(l.TPM)/10) - l.tokens
			return false, time.Duration(need / (float64(l.TPM) / 60) * float64(time.Second))
		}
		l.tokens -= float64(tokens)
	}
	l.inSec++
	return true, 0
}

func (l *limitState) refill(now time.Time) {
	rate := float64(l.TPM) / 60
	l.tokens = min(float64(l.TPM)/10, l.tokens+now.Sub(l.filled).Seconds()*rate)
	l.filled = now
}

// SetLimits makes the server enforce l from now on (nil: no limits).
func (s *Server) SetLimits(l *Limits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l == nil {
		s.limits = nil
		return
	}
	now := time.Now
	s.limits = &limitState{Limits: *l, tokens: float64(l.TPM) / 10, filled: now(), now: now}
}

// NewServer starts a server that answers requests with replies, in order.
// A request after the script is exhausted fails the test and gets a 500.
func NewServer(t testing.TB, replies ...Reply) *Server {
	s := &Server{t: t, script: replies, done: make(chan struct{})}
	s.start()
	return s
}

// NewHandlerServer starts a server that asks h for every reply.
func NewHandlerServer(t testing.TB, h Handler) *Server {
	s := &Server{t: t, handler: h, done: make(chan struct{})}
	s.start()
	return s
}

func (s *Server) start() {
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	s.t.Cleanup(func() {
		close(s.done) // release hung handlers first: Close waits for them
		s.Server.Close()
	})
}

// BaseURL is the URL to configure as a backbone's base_url.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// SetFaults turns on random faults (nil turns them off).
func (s *Server) SetFaults(f *Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
	if f != nil {
		s.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	}
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Remaining is the number of scripted replies not yet served.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script) - s.next
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "openaitest: only POST …/chat/completions", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, derr := decodeRequest(body)
	req.Header = r.Header.Clone()
	req.Path = r.URL.Path
	req.Received = time.Now()

	s.mu.Lock()
	var over time.Duration
	if s.limits != nil {
		if ok, wait := s.limits.admit(len(body)/4 + 1); !ok {
			s.stats.OverLimit++
			over = max(wait, time.Millisecond)
			req.OverLimit = true
		}
	}
	s.requests = append(s.requests, req)
	s.stats.Requests++
	fault := faultNone
	if over == 0 {
		fault = s.drawFault()
	}
	s.mu.Unlock()

	if over > 0 {
		w.Header().Set("Retry-After-Ms", strconv.FormatInt(over.Milliseconds()+1, 10))
		w.Header().Set("Retry-After", strconv.Itoa(int((over+time.Second-1)/time.Second)))
		writeError(w, http.StatusTooManyRequests, errorType(http.StatusTooManyRequests), "openaitest: rate limit reached")
		return
	}
	if derr != nil {
		writeError(w, http.StatusBadRequest, "", "openaitest: cannot decode request: "+derr.Error())
		return
	}

	var reply Reply
	switch fault {
	case faultHang:
		reply = Hang()
	case faultRateLimit:
		reply = Status(http.StatusTooManyRequests, s.faultRetryAfter())
	case faultServerError:
		reply = Status(http.StatusInternalServerError, "")
	default:
		var ok bool
		reply, ok = s.nextReply(&req)
		if !ok {
			s.t.Errorf("openaitest: unexpected request %d: script exhausted", len(s.Requests()))
			writeError(w, http.StatusInternalServerError, "", "openaitest: script exhausted")
			return
		}
		switch fault {
		case faultMalformed:
			if len(reply.ToolCalls) > 0 {
				calls := append([]ToolCall(nil), reply.ToolCalls...)
				calls[0].Arguments = calls[0].Arguments[:len(calls[0].Arguments)/2]
				reply.ToolCalls = calls
			}
		case faultSlow:
			reply.Delay += s.faultSlowDelay()
		}
	}
	s.write(w, r, &req, reply)
}

func (s *Server) faultRetryAfter() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults == nil {
		return ""
	}
	return s.faults.RetryAfter
}

func (s *Server) faultSlowDelay() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults == nil {
		return 0
	}
	return s.faults.SlowDelay
}

type faultKind int

const (
	faultNone faultKind = iota
	faultHang
	faultRateLimit
	faultServerError
	faultMalformed
	faultSlow
)

// drawFault is called with s.mu held.
func (s *Server) drawFault() faultKind {
	f := s.faults
	if f == nil {
		return faultNone
	}
	u := s.rng.Float64()
	for _, c := range []struct {
		p float64
		k faultKind
		n *int
	}{
		{f.Hang, faultHang, &s.stats.Hangs},
		{f.RateLimit, faultRateLimit, &s.stats.RateLimited},
		{f.ServerError, faultServerError, &s.stats.ServerErrors},
		{f.MalformedArgs, faultMalformed, &s.stats.MalformedArgs},
		{f.Slow, faultSlow, &s.stats.Slow},
	} {
		if u < c.p {
			*c.n++
			return c.k
		}
		u -= c.p
	}
	return faultNone
}

func (s *Server) nextReply(req *Request) (Reply, bool) {
	if s.handler != nil {
		return s.handler(req), true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.script) {
		return Reply{}, false
	}
	r := s.script[s.next]
	s.next++
	return r, true
}

func (s *Server) write(w http.ResponseWriter, r *http.Request, req *Request, reply Reply) {
	if reply.Hang {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	if reply.Delay > 0 {
		tm := time.NewTimer(reply.Delay)
		defer tm.Stop()
		select {
		case <-tm.C:
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, reply.Body)
		return
	}
	if status != http.StatusOK {
		writeError(w, status, errorType(status), reply.Message)
		return
	}
	s.mu.Lock()
	s.replyN++
	n := s.replyN
	s.stats.Replies++
	s.mu.Unlock()
	body, u := completion(n, req, reply)
	s.mu.Lock()
	if l := s.limits; l != nil && l.TPM > 0 {
		l.refill(l.now())
		l.tokens -= float64(u.CompletionTokens)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// completion is the body of a completion and the usage it reports.
func completion(n int, req *Request, r Reply) ([]byte, Usage) {
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	if r.Content != "" || r.EmptyContent {
		msg["content"] = r.Content
	}
	if r.ReasoningContent != "" {
		key := r.ReasoningKey
		if key == "" {
			key = "reasoning_content"
		}
		msg[key] = r.ReasoningContent
	}
	size := len(r.Content) + len(r.ReasoningContent)
	if len(r.ToolCalls) > 0 {
		calls := make([]call, len(r.ToolCalls))
		for i, tc := range r.ToolCalls {
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d_%d", n, i)
			}
			calls[i] = call{ID: id, Type: "function", Function: fn{Name: tc.Name, Arguments: tc.Arguments}}
			size += len(tc.Name) + len(tc.Arguments)
		}
		msg["tool_calls"] = calls
	}
	finish := r.FinishReason
	if finish == "" {
		finish = "stop"
		if len(r.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	u := r.Usage
	if u == nil {
		u = &Usage{PromptTokens: len(req.Body)/4 + 1, CompletionTokens: size/4 + 1}
	}
	resp := map[string]any{
		"id":      fmt.Sprintf("chatcmpl-%d", n),
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{
			"prompt_tokens":             u.PromptTokens,
			"completion_tokens":         u.CompletionTokens,
			"total_tokens":              u.PromptTokens + u.CompletionTokens,
			"prompt_tokens_details":     map[string]any{"cached_tokens": u.CachedTokens},
			"completion_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(resp); err != nil {
		panic(err) // only plain values above
	}
	return buf.Bytes(), *u
}
