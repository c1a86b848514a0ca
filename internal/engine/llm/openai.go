package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// This is the only file that imports go-openai. The SDK does the HTTP
// exchange: URL, authentication header, error decoding (*openai.APIError,
// *openai.RequestError) and response decoding. The request body is built by
// encoder (wire.go) and put on the wire by bodyTransport, which swaps it in
// for the SDK's own encoding of a bare request. That keeps every byte sent
// under our control (extra_body, temperature 0, null content) while the SDK's
// request type stays untouched.

// Options are the process-wide settings of clients.
type Options struct {
	// LookupEnv reads API keys (os.LookupEnv in the CLI). Nil: no keys.
	LookupEnv func(string) (string, bool)
	// CacheDir enables the on-disk response cache ("" disables it).
	CacheDir string
	// Transport is the base HTTP transport; nil: Shared's, else a transport
	// tuned for many concurrent calls (a Pool shares one among its clients).
	Transport http.RoundTripper
	// Shared holds the process's rate limiters (one per backbone) and
	// transport; nil: a client paces only its own calls (a Pool makes one
	// for its clients).
	Shared *Shared
	// BackoffBase and BackoffMax bound the exponential backoff (defaults 1s
	// and 60s); each wait is uniform in [0, min(max, base·2^(n-1))).
	BackoffBase, BackoffMax time.Duration
	// Sleep waits between retries; nil: a timer that watches ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a random duration in [0, d); nil: math/rand/v2.
	Jitter func(d time.Duration) time.Duration
	// Now is the clock used for HTTP-date Retry-After values; nil: time.Now.
	Now func() time.Time
	// OnRequest, when set, receives the body of every request Generate
	// builds, once per call (not per retry), with cached true when the
	// response cache answered it instead of the provider. The body holds
	// no credentials (they travel in headers). It must be safe for
	// concurrent use and must not keep or modify body.
	OnRequest func(backbone string, body []byte, cached bool)
	// Logf receives non-fatal events (retries, cache write failures); nil:
	// discarded. Messages never contain API keys.
	Logf func(format string, args ...any)
}

func (o *Options) sleep(ctx context.Context, d time.Duration) error {
	if o.Sleep != nil {
		return o.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d or until ctx is done, whichever comes first, and returns
// ctx's error in the latter case (the wait between retries).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (o *Options) jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	if o.Jitter != nil {
		return o.Jitter(d)
	}
	return rand.N(d)
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

func (o *Options) backoffBase() time.Duration {
	if o.BackoffBase > 0 {
		return o.BackoffBase
	}
	return time.Second
}

func (o *Options) backoffMax() time.Duration {
	if o.BackoffMax > 0 {
		return o.BackoffMax
	}
	return time.Minute
}

// newTransport returns a transport that keeps enough idle connections for
// hundreds of concurrent simulations on one provider.
func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 256
	return t
}

// Client calls one backbone. It is safe for concurrent use; its rate limits
// apply to all calls made through it.
type Client struct {
	b     Backbone
	key   string
	opts  Options
	api   *openai.Client
	enc   *encoder
	lim   *limiter
	cache *cache
}

// New returns a client for b, reading its API key through opts.LookupEnv.
// Prefer Pool, which shares one client per backbone; clients built with one
// Options.Shared share their backbone's rate limits.
func New(b Backbone, opts Options) (*Client, error) {
	return newClient(b, "", opts)
}

// newClient is New for an entry of kind ("" a chat backbone, "embedding").
func newClient(b Backbone, kind string, opts Options) (*Client, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	key, err := b.APIKey(opts.LookupEnv)
	if err != nil {
		return nil, err
	}
	enc, err := newEncoder(b)
	if err != nil {
		return nil, fmt.Errorf("backbone %s: %w", b.Name, err)
	}
	base := opts.Transport
	if base == nil && opts.Shared != nil {
		base = opts.Shared.transport
	}
	if base == nil {
		base = newTransport()
	}
	cfg := openai.DefaultConfig(key)
	cfg.BaseURL = strings.TrimRight(b.BaseURL, "/")
	cfg.HTTPClient = &http.Client{Transport: bodyTransport{base: base}}
	c := &Client{
		b:    b,
		key:  key,
		opts: opts,
		api:  openai.NewClientWithConfig(cfg),
		enc:  enc,
	}
	if opts.Shared != nil {
		c.lim = opts.Shared.limiter(limiterKey{kind: kind, name: b.Name, rpm: b.RPM, tpm: b.TPM})
	} else {
		c.lim = newLimiter(b.RPM, b.TPM)
	}
	if opts.CacheDir != "" {
		c.cache = &cache{dir: opts.CacheDir}
	}
	return c, nil
}

// Backbone returns the client's backbone settings (they hold no secret).
func (c *Client) Backbone() Backbone { return c.b }

// attempt carries one HTTP attempt's body to bodyTransport and brings back
// what the SDK does not expose: the status, the headers (Retry-After) and the
// raw body of a successful response.
type attempt struct {
	body   []byte
	status int
	header http.Header
	raw    []byte
}

type attemptKey struct{}

// maxResponseBytes bounds the body kept from a successful response.
const maxResponseBytes = 64 << 20

// bodyTransport replaces the SDK's request body with the attempt's body.
type bodyTransport struct{ base http.RoundTripper }

func (t bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	a, _ := r.Context().Value(attemptKey{}).(*attempt)
	if a == nil {
		return t.base.RoundTrip(r)
	}
	if r.Body != nil {
		r.Body.Close()
	}
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(bytes.NewReader(a.body))
	r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(a.body)), nil }
	r2.ContentLength = int64(len(a.body))
	resp, err := t.base.RoundTrip(r2)
	if err != nil {
		return nil, err
	}
	a.status = resp.StatusCode
	a.header = resp.Header
	if resp.StatusCode/100 == 2 {
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read response: %w", err)
		}
		a.raw = raw
		resp.Body = io.NopCloser(bytes.NewReader(raw))
	}
	return resp, nil
}

// chatResponse is the SDK's decoded completion, named here so that no
// other file imports go-openai.
type chatResponse = openai.ChatCompletionResponse

// send makes one HTTP attempt.
func (c *Client) send(ctx context.Context, a *attempt) (openai.ChatCompletionResponse, error) {
	ctx = context.WithValue(ctx, attemptKey{}, a)
	// Only the model is set: the body actually sent is a.body.
	return c.api.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: c.b.Model})
}

// statusOf returns the HTTP status of a failed attempt, if one came back.
func statusOf(err error, a *attempt) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0 {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) && reqErr.HTTPStatusCode != 0 {
		return reqErr.HTTPStatusCode
	}
	if a.status >= 400 {
		return a.status
	}
	return 0
}

// describe turns the SDK's error into a plain one whose text is the
// provider's message, so Error does not repeat the status and callers never
// depend on SDK types.
func describe(err error) error {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0 {
		msg := apiErr.Message
		if code, ok := apiErr.Code.(string); ok && code != "" {
			msg = code + ": " + msg
		}
		return errors.New(msg)
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) && reqErr.HTTPStatusCode != 0 {
		body := clip.Runes(strings.TrimSpace(string(reqErr.Body)), 300, "…")
		return fmt.Errorf("unreadable error response: %s", body)
	}
	return err
}

// errorCode returns the provider's error code and message, if any.
func errorCode(err error) (code, msg string) {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		if s, ok := apiErr.Code.(string); ok {
			code = s
		}
		return code, apiErr.Message
	}
	return "", err.Error()
}

// replyError reports a successful HTTP exchange whose body is no completion:
// an "error" member (some providers and proxies answer 200 with one) or no
// choices at all.
func replyError(resp *openai.ChatCompletionResponse, raw []byte) error {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &body) == nil && len(body.Error) > 0 && string(body.Error) != "null" {
		return &badReplyError{"reply carries an error: " + providerMessage(body.Error)}
	}
	if len(resp.Choices) == 0 {
		return &badReplyError{"reply has no choices"}
	}
	return nil
}

// convert turns a successful response into our Response (without cost and
// timings). A response without choices is an empty reply.
func (c *Client) convert(resp *openai.ChatCompletionResponse, a *attempt) Response {
	r := Response{Model: resp.Model, Usage: replyUsage(a.raw)}
	m := message.Message{Role: message.Assistant}
	if len(resp.Choices) > 0 {
		ch := resp.Choices[0]
		r.FinishReason = string(ch.FinishReason)
		m.Content = ch.Message.Content
		m.ReasoningContent = ch.Message.ReasoningContent
		if m.ReasoningContent == "" {
			m.ReasoningContent = altReasoning(a.raw)
		}
		if c.b.StripThink {
			m.Content, m.ReasoningContent = stripThink(m.Content, m.ReasoningContent)
		}
		if n := len(ch.Message.ToolCalls); n > 0 {
			m.ToolCalls = make([]message.ToolCall, n)
			for i, tc := range ch.Message.ToolCalls {
				args, ok := parseArguments(tc.Function.Arguments)
				if !ok {
					r.MalformedArgs++
				}
				id := tc.ID
				if id == "" {
					id = fallbackCallID(a.body, i)
				}
				m.ToolCalls[i] = message.ToolCall{ID: id, Name: tc.Function.Name, Arguments: args, Requestor: message.ByAssistant}
			}
			m.EmptyContent = m.Content == "" && emptyContent(a.raw)
		}
	}
	r.Message = m
	return r
}

// replyUsage reads the reply's usage block with message.ParseUsage: the
// SDK's Usage has OpenAI's cached count only and cannot tell an absent one
// from 0. A reply without a readable usage block has no tokens and an
// unknown cached count.
func replyUsage(raw []byte) message.Usage {
	var v struct {
		Usage json.RawMessage `json:"usage"`
	}
	if json.Unmarshal(raw, &v) == nil && len(v.Usage) > 0 && string(v.Usage) != "null" {
		if u, err := message.ParseUsage(v.Usage); err == nil {
			return u
		}
	}
	return message.Usage{CacheUnknown: 1}
}

// emptyContent reports whether the first choice's content was the empty
// string rather than null or absent (the SDK reads both as "").
func emptyContent(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`""`)) {
		return false
	}
	var v struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(raw, &v) != nil || len(v.Choices) == 0 {
		return false
	}
	c := v.Choices[0].Message.Content
	return c != nil && *c == ""
}

// altReasoning reads reasoning sent under other keys than reasoning_content:
// "reasoning" (OpenRouter, newer vLLM) or "reasoning_details" (OpenRouter,
// MiniMax with reasoning_split).
func altReasoning(raw []byte) string {
	if !bytes.Contains(raw, []byte(`"reasoning`)) {
		return ""
	}
	var v struct {
		Choices []struct {
			Message struct {
				Reasoning        string `json:"reasoning"`
				ReasoningDetails []struct {
					Text    string `json:"text"`
					Summary string `json:"summary"`
				} `json:"reasoning_details"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(raw, &v) != nil || len(v.Choices) == 0 {
		return ""
	}
	msg := v.Choices[0].Message
	if msg.Reasoning != "" {
		return msg.Reasoning
	}
	var b strings.Builder
	for _, d := range msg.ReasoningDetails {
		b.WriteString(d.Text)
		b.WriteString(d.Summary)
	}
	return b.String()
}

// sendEmbeddings makes one HTTP attempt at base_url/embeddings (the body
// is a.body; the SDK's request only chooses the endpoint and how it reads
// the reply, which embeddings.go reads again from a.raw).
func (c *Client) sendEmbeddings(ctx context.Context, a *attempt, format string) error {
	ctx = context.WithValue(ctx, attemptKey{}, a)
	req := openai.EmbeddingRequest{Model: openai.EmbeddingModel(c.b.Model), EncodingFormat: openai.EmbeddingEncodingFormatFloat}
	if format == "base64" {
		req.EncodingFormat = openai.EmbeddingEncodingFormatBase64
	}
	_, err := c.api.CreateEmbeddings(ctx, req)
	return err
}
