package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/clip"
)

// maxRetryAfter caps how long a Retry-After header can make us wait.
const maxRetryAfter = 5 * time.Minute

// Generate makes one model call: it converts req, waits for the backbone's
// rate limits, and retries 408, 409, 429, 5xx, per-attempt timeouts,
// connection errors and unreadable responses with exponential backoff and
// full jitter (a Retry-After header sets the wait instead), up to the
// backbone's max_retries. Other 4xx statuses are not retried.
//
// A 2xx reply that carries an "error" object, or has no choices, is no
// completion: it is retried like a 5xx and, when the retries run out, is an
// *Error with the provider's message.
//
// Errors: a call that failed returns an *Error wrapping fault.ErrInfrastructure
// (and ErrContextLength when the conversation is too long, ErrAuth when the
// provider refused the key); when ctx ends first the error wraps ctx.Err().
// Empty replies (a choice with neither text nor tool calls) and malformed
// tool arguments are not errors (see Response.Empty, Response.MalformedArgs).
func (c *Client) Generate(ctx context.Context, req Request) (Response, error) {
	body, err := c.enc.encode(make([]byte, 0, sizeHint(&req)), &req)
	if err != nil {
		return Response{}, fmt.Errorf("llm %s: build request: %w", c.b.Name, err)
	}
	var cacheKey string
	if c.cache != nil {
		cacheKey = c.cache.key(c.b.BaseURL, body)
		r, ok, err := c.cache.get(cacheKey)
		if err != nil {
			c.opts.logf("llm %s: cache read %s: %v (calling the model)", c.b.Name, cacheKey, err)
		}
		if ok {
			c.record(body, true)
			return r, nil
		}
	}
	c.record(body, false)

	var resp chatResponse
	a, n, waited, latency, err := c.exchange(ctx, body, len(body)/4+1, func(actx context.Context, a *attempt) error {
		r, err := c.send(actx, a)
		if err == nil {
			err = replyError(&r, a.raw)
		}
		resp = r
		return err
	})
	if err != nil {
		return Response{}, err
	}
	r := c.convert(&resp, a)
	r.Latency = latency
	r.Wait = waited
	r.Attempts = n
	if p := c.b.Price; p != nil {
		r.Cost = p.Cost(r.Usage)
	}
	usage := r.Usage
	r.Message.Usage = &usage
	r.Message.Cost = r.Cost
	c.lim.charge(r.Usage.Total() - (len(body)/4 + 1))
	if c.cache != nil {
		if err := c.cache.put(cacheKey, c.b.Name, &r); err != nil {
			c.opts.logf("llm %s: cache write: %v", c.b.Name, err)
		}
	}
	return r, nil
}

// exchange makes one call with body: it waits for the backbone's rate
// limits (estimate tokens), makes an attempt with send, and retries 408,
// 409, 429, 5xx, per-attempt timeouts, connection errors and unreadable
// or error-carrying replies (send's *badReplyError) with exponential
// backoff and full jitter (Options.Retry), a Retry-After header setting the
// wait instead. Other failures are retried up to the backbone's
// max_retries, 429s up to rateLimitRetries; a 429 also pauses every call to
// the backbone for its Retry-After (RateLimitPause without one). It returns
// the attempt that succeeded, the number of attempts, the time spent
// waiting and the successful attempt's latency; a failed call is an *Error,
// an interrupted one wraps the context's error.
func (c *Client) exchange(ctx context.Context, body []byte, estimate int, send func(ctx context.Context, a *attempt) error) (*attempt, int, time.Duration, time.Duration, error) {
	var (
		waited, latency   time.Duration
		ok                *attempt // the attempt that succeeded
		e                 *Error   // the last failure
		cause             error    // its cause as the SDK reported it
		late              bool     // the last attempt timed out
		failures, limited int      // failures retried on each budget
		spent             bool     // a budget ran out (the attempt is Final)
	)
	// Each budget is kept here (an attempt past its budget is Final); the
	// loop's own bound only backs them.
	bound := c.b.maxRetries() + c.b.rateLimitRetries() + 1
	n, last, exhausted, err := c.opts.Retry(ctx, bound, func(n int) Attempt {
		t0 := time.Now()
		if err := c.lim.wait(ctx, estimate); err != nil {
			return Attempt{Err: c.ctxError(ctx, err), Final: true}
		}
		waited += time.Since(t0)

		a := &attempt{body: body}
		actx, cancel := context.WithTimeout(ctx, c.b.timeout())
		t1 := time.Now()
		err := send(actx, a)
		took := time.Since(t1)
		timedOut := actx.Err() != nil
		cancel()
		if err == nil {
			ok, latency = a, took
			return Attempt{}
		}
		if ctx.Err() != nil {
			return Attempt{Err: c.ctxError(ctx, ctx.Err()), Final: true}
		}
		status := statusOf(err, a)
		e = &Error{Backbone: c.b.Name, Attempts: n, Status: status, Err: Redact(describe(err), c.key), KeyEnv: c.b.APIKeyEnv}
		cause, late = err, timedOut
		if timedOut {
			e.Err = fmt.Errorf("attempt timed out after %s", c.b.timeout())
		}
		if Retryable(status) {
			if status == http.StatusTooManyRequests {
				limited++
				spent = limited > c.b.rateLimitRetries()
				// The whole backbone waits, not only this call: the
				// provider counts every call of the process against one
				// limit.
				pause := retryAfter(a.header, c.opts.now())
				if pause <= 0 {
					pause = RateLimitPause
				}
				c.lim.pause(time.Now(), min(pause, maxRetryAfter))
			} else {
				failures++
				spent = failures > c.b.maxRetries()
			}
		}
		return Attempt{Err: e, Status: status, Header: a.header, Final: spent}
	}, func(n int, a Attempt, d time.Duration) {
		c.opts.logf("llm %s: attempt %d failed (%v); retrying in %s", c.b.Name, n, a.Err, d.Round(time.Millisecond))
		waited += d
	})
	switch {
	case err != nil:
		return nil, n, waited, 0, c.ctxError(ctx, err)
	case last.Final && !spent:
		return nil, n, waited, 0, last.Err
	case last.Err == nil:
		return ok, n, waited, latency, nil
	case !exhausted && !spent:
		c.explain(e, cause)
		return nil, n, waited, 0, e
	}
	e.Retryable = true
	switch {
	case e.Status == http.StatusTooManyRequests:
		e.rateLimited = true
		e.Hint = "the provider keeps rate limiting; lower rpm/tpm or concurrency"
	case late:
		e.Hint = "raise the backbone's timeout if the model is slow"
	case e.Status >= 500:
		e.Hint = "the provider is failing; try again later"
	case errors.As(cause, new(*badReplyError)):
		e.Hint = "the provider keeps answering without a completion; try again later"
	default:
		e.Hint = "check base_url and the network"
	}
	return nil, n, waited, 0, e
}

// RateLimitPause is how long a 429 without Retry-After pauses its backbone
// (providers enforce per-minute limits per second).
const RateLimitPause = time.Second

// ctxError wraps the error of an interrupted wait or call.
func (c *Client) ctxError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		err = ctx.Err()
	} else if !errors.Is(err, context.DeadlineExceeded) {
		// rate.Limiter refuses waits that would pass the deadline.
		err = fmt.Errorf("%v: %w", err, context.DeadlineExceeded)
	}
	return fmt.Errorf("llm %s: call interrupted: %w", c.b.Name, err)
}

// explain adds a hint to a non-retryable failure.
func (c *Client) explain(e *Error, err error) {
	code, msg := errorCode(err)
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		e.auth = true
		if c.b.APIKeyEnv == "" {
			e.Hint = "the provider wants an API key: set api_key_env for this backbone"
		} else {
			e.Hint = fmt.Sprintf("the provider refused the key: set %s to a valid key", c.b.APIKeyEnv)
		}
	case http.StatusNotFound:
		e.Hint = fmt.Sprintf("check model %q and base_url %q", c.b.Model, c.b.BaseURL)
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		low := strings.ToLower(code + " " + msg)
		if strings.Contains(low, "context_length") || strings.Contains(low, "context length") ||
			strings.Contains(low, "context window") || strings.Contains(low, "maximum context") {
			e.contextLength = true
			e.Hint = "the conversation exceeds the model's context window"
			return
		}
		e.Hint = "the provider rejected the request; check the backbone's temperature, max_tokens, reasoning_effort and extra_body"
	default:
		e.Hint = "the provider refused the request"
	}
}

// retryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds or an
// HTTP date); 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// fallbackCallID names a tool call the provider left without an ID,
// deterministically from the request.
func fallbackCallID(body []byte, i int) string {
	sum := sha256.Sum256(body)
	return "call_" + hex.EncodeToString(sum[:6]) + "_" + strconv.Itoa(i)
}

// badReplyError is a 2xx reply that is no completion.
type badReplyError struct{ msg string }

func (e *badReplyError) Error() string { return e.msg }

// providerMessage reads an error member: {"message", "code", "type"} or a
// string; anything else is quoted as it came (shortened).
func providerMessage(raw json.RawMessage) string {
	var obj struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
		Type    string `json:"type"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		msg := obj.Message
		switch c := obj.Code.(type) {
		case string:
			if c != "" {
				msg = c + ": " + msg
			}
		case float64:
			msg = strconv.FormatFloat(c, 'f', -1, 64) + ": " + msg
		}
		return msg
	}
	var str string
	if json.Unmarshal(raw, &str) == nil && str != "" {
		return str
	}
	return clip.Runes(strings.TrimSpace(string(raw)), 300, "…")
}

// record hands the request body to Options.OnRequest, if set.
func (c *Client) record(body []byte, cached bool) {
	if c.opts.OnRequest != nil {
		c.opts.OnRequest(c.b.Name, body, cached)
	}
}
