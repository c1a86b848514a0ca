package llm

import (
	"context"
	"time"

	"golang.org/x/time/rate"
)

// limiter holds a backbone's request and token rate limits. Requests are
// admitted at rpm/60 per second with a burst of one second's worth. Tokens
// are admitted at tpm/60 per second with a burst of a tenth of a minute's
// worth: before a call its prompt estimate (body bytes / 4) is taken, and
// after it the tokens used beyond the estimate are charged, delaying later
// calls. A nil limiter field means no limit.
type limiter struct {
	req *rate.Limiter
	tok *rate.Limiter
}

func newLimiter(rpm, tpm int) *limiter {
	l := &limiter{}
	if rpm > 0 {
		l.req = rate.NewLimiter(rate.Limit(float64(rpm)/60), max(1, rpm/60))
	}
	if tpm > 0 {
		l.tok = rate.NewLimiter(rate.Limit(float64(tpm)/60), max(1, tpm/10))
	}
	return l
}

// wait blocks until a call estimated at tokens may start, or ctx ends.
func (l *limiter) wait(ctx context.Context, tokens int) error {
	if l.req != nil {
		if err := l.req.Wait(ctx); err != nil {
			return err
		}
	}
	if l.tok != nil && tokens > 0 {
		if err := l.tok.WaitN(ctx, min(tokens, l.tok.Burst())); err != nil {
			return err
		}
	}
	return nil
}

// charge records tokens used beyond the estimate.
func (l *limiter) charge(tokens int) {
	if l.tok != nil && tokens > 0 {
		l.tok.ReserveN(time.Now(), min(tokens, l.tok.Burst()))
	}
}
