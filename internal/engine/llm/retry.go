package llm

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Attempt is the outcome of one try of a call to a model service.
type Attempt struct {
	// Err is nil when the call succeeded.
	Err error
	// Status is the HTTP status (0: no response arrived: a connection
	// error, a timeout, an unreadable reply).
	Status int
	// Header is the response's (a Retry-After sets the wait).
	Header http.Header
	// Final ends the retries whatever the status.
	Final bool
}

// Retry is the retry loop of every call to a model service (a backbone's
// chat completions, τ-Trait's steering endpoint). It calls attempt (n counts
// from 1) until it succeeds, fails for good (Final, or a status Retryable
// refuses), or max retries have failed too. Between attempts it waits on
// ctx with exponential backoff and full jitter (BackoffBase, BackoffMax),
// or as long as a Retry-After header says (at most 5 minutes, plus a little
// jitter); onRetry, when set, hears of each failure retried and the wait.
//
// It returns the attempts made and the last outcome; exhausted is true when
// the retries ran out on a failure worth retrying. err is ctx's error when
// ctx ended between attempts or during one.
func (o *Options) Retry(ctx context.Context, max int, attempt func(n int) Attempt, onRetry func(n int, a Attempt, wait time.Duration)) (n int, last Attempt, exhausted bool, err error) {
	for n = 1; ; n++ {
		last = attempt(n)
		if last.Err == nil || last.Final {
			return n, last, false, nil
		}
		if ctx.Err() != nil {
			return n, last, false, ctx.Err()
		}
		if !Retryable(last.Status) {
			return n, last, false, nil
		}
		if n > max {
			return n, last, true, nil
		}
		d := o.backoff(n, retryAfter(last.Header, o.now()))
		if onRetry != nil {
			onRetry(n, last, d)
		}
		if err := o.sleep(ctx, d); err != nil {
			return n, last, false, err
		}
	}
}

// Retryable reports whether a failure with this HTTP status (0: no
// response) is worth retrying: 408, 409, 429, 5xx and no response.
func Retryable(status int) bool {
	switch {
	case status == 0:
		return true // connection error, timeout or unreadable response
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status == http.StatusTooManyRequests:
		return true
	case status >= 500:
		return true
	}
	return false
}

// backoff returns the wait before retry n (n ≥ 1).
func (o *Options) backoff(n int, retryAfter time.Duration) time.Duration {
	base := o.backoffBase()
	if retryAfter > 0 {
		return min(retryAfter, maxRetryAfter) + o.jitter(base/4)
	}
	ceil := o.backoffMax()
	if n <= 30 {
		ceil = min(ceil, base<<(n-1))
	}
	return o.jitter(ceil)
}

// minKeyLen is the shortest secret Redact removes: a shorter "key" cannot
// be told from the words of an error's text (a one-letter key would redact
// every such letter), and no provider issues one.
const minKeyLen = 8

// Redact removes an API key from an error's text (every error that may hold
// a provider's echo of a request goes through it). Keys shorter than
// minKeyLen are left alone.
func Redact(err error, key string) error {
	if err == nil || len(key) < minKeyLen || !strings.Contains(err.Error(), key) {
		return err
	}
	return redactedError(strings.ReplaceAll(err.Error(), key, "[REDACTED]"))
}

type redactedError string

func (e redactedError) Error() string { return string(e) }
