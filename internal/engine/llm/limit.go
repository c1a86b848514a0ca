package llm

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Shared is what the clients of one process share: one limiter per
// backbone and one HTTP transport. Build one per process (the CLI does,
// for `run` and for every cell of an `experiment`) and set it in
// Options.Shared; every client built with it — the agent's, the user
// simulator's, the judge's, the reranker's, the embeddings', from any pool
// — paces its calls with the others on the same backbone. It is safe for
// concurrent use.
type Shared struct {
	mu        sync.Mutex
	limiters  map[limiterKey]*limiter
	transport http.RoundTripper
}

// NewShared returns an empty process-wide registry.
func NewShared() *Shared {
	return &Shared{limiters: map[limiterKey]*limiter{}, transport: newTransport()}
}

// limiterKey names a limiter: the kind of entry ("" for a chat backbone,
// "embedding"), its name and the limits it was given. Two backbones files
// that give one name different limits get two limiters, each with the limits
// it was told.
type limiterKey struct {
	kind, name string
	rpm, tpm   int
}

func (s *Shared) limiter(k limiterKey) *limiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.limiters[k]
	if !ok {
		l = newLimiter(k.rpm, k.tpm)
		s.limiters[k] = l
	}
	return l
}

// Limits that no provider grants: a backbone asking for more is a mistake in
// the backbones file (a missing "k"?), reported as such.
const (
	maxRPM = 1_000_000
	maxTPM = 10_000_000_000
	// minTPM is below one request of any τ² conversation.
	minTPM = 1000
)

// rateProblem describes a bad rpm or tpm ("" when both are fine).
func rateProblem(rpm, tpm int) (key, msg string) {
	switch {
	case rpm < 0 || tpm < 0:
		return cmpKey(rpm < 0, "rpm", "tpm"), "rpm and tpm must not be negative (0: no limit)"
	case rpm > maxRPM:
		return "rpm", fmt.Sprintf("rpm %d is more than any provider grants (at most %s)", rpm, strconv.Itoa(maxRPM))
	case tpm > maxTPM:
		return "tpm", fmt.Sprintf("tpm %d is more than any provider grants (at most %s)", tpm, strconv.Itoa(maxTPM))
	case tpm > 0 && tpm < minTPM:
		return "tpm", fmt.Sprintf("tpm %d cannot carry one request (a τ² prompt is thousands of tokens; at least %d, or 0 for no limit)", tpm, minTPM)
	}
	return "", ""
}

// headroom is the share of a limit the limiter uses. Providers enforce
// per-minute limits per second, so a call started at the end of one second
// that arrives a little late counts in the next: pacing at 95% keeps every
// one-second window within the limit for arrival jitter up to 50ms (a
// window of 1.05s holds at most 0.95·1.05 < 1 second's worth of starts).
const headroom = 0.95

// limiter paces one backbone's calls. Requests start one every
// 60/(headroom·rpm) seconds, evenly spread and never in a burst, so no
// one-second window sees more than rpm/60 of them (providers enforce their
// per-minute limits per second). Tokens flow at headroom·tpm/60 a second from
// a bucket holding a tenth of that minute's worth (GCRA): before a call its prompt estimate is taken, a call
// larger than the bucket waits for its excess, and after the call the
// difference between the tokens used and the estimate is charged (or given
// back). A 429 pauses the limiter (pause): no call starts until the pause
// ends, and every call already given a start time moves back by the pause.
type limiter struct {
	mu sync.Mutex
	// interval is the spacing of request starts (0: no request limit);
	// next the earliest start of the next request.
	interval time.Duration
	next     time.Time
	// perToken is the time one token takes to flow (0: no token limit);
	// tolerance the bucket (burst) in time; tat the bucket's theoretical
	// arrival time.
	perToken  time.Duration
	tolerance time.Duration
	tat       time.Time
	// pausedUntil is the end of the current pause; shift the total time
	// pauses have added, by which reservations made earlier move.
	pausedUntil time.Time
	shift       time.Duration
	// clock and sleep are time.Now and Sleep (tests replace them).
	clock func() time.Time
	sleep func(context.Context, time.Duration) error
}

func newLimiter(rpm, tpm int) *limiter {
	l := &limiter{clock: time.Now, sleep: Sleep}
	if rpm > 0 {
		l.interval = time.Duration(float64(time.Minute) / (headroom * float64(rpm)))
	}
	if tpm > 0 {
		l.perToken = max(time.Duration(float64(time.Minute)/(headroom*float64(tpm))), 1)
		l.tolerance = l.perToken * time.Duration(max(1, int(headroom*float64(tpm))/10))
	}
	return l
}

// reserve gives a call estimated at tokens its start time, and the pause
// shift it was computed under.
func (l *limiter) reserve(now time.Time, tokens int) (time.Time, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	start := now
	if l.pausedUntil.After(start) {
		start = l.pausedUntil
	}
	if l.interval > 0 && l.next.After(start) {
		start = l.next
	}
	if l.perToken > 0 && tokens > 0 {
		tat := l.tat
		if tat.Before(start) {
			tat = start
		}
		tat = tat.Add(time.Duration(tokens) * l.perToken)
		if at := tat.Add(-l.tolerance); at.After(start) {
			start = at
		}
		l.tat = tat
	}
	if l.interval > 0 {
		l.next = start.Add(l.interval)
	}
	return start, l.shift
}

// release gives back what a call that will not start (its context ended
// while it waited) reserved: its tokens, and its request slot when no later
// call has taken one and no pause has moved it.
func (l *limiter) release(start time.Time, shift time.Duration, tokens int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.interval > 0 && l.shift == shift && l.next.Equal(start.Add(l.interval)) {
		l.next = start
	}
	if l.perToken > 0 && tokens > 0 {
		l.tat = l.tat.Add(-time.Duration(tokens) * l.perToken)
	}
}

// moved returns how far pauses since a reservation made under shift have
// moved it, and the current shift.
func (l *limiter) moved(shift time.Duration) (time.Duration, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.shift - shift, l.shift
}

// wait blocks until a call estimated at tokens may start, or ctx ends.
func (l *limiter) wait(ctx context.Context, tokens int) error {
	now, sleep := l.clock, l.sleep
	if l.interval == 0 && l.perToken == 0 {
		l.mu.Lock()
		paused := l.pausedUntil
		l.mu.Unlock()
		if d := paused.Sub(now()); d > 0 {
			return sleep(ctx, d)
		}
		return ctx.Err()
	}
	start, shift := l.reserve(now(), tokens)
	first, shift0 := start, shift
	for {
		if d := start.Sub(now()); d > 0 {
			if err := sleep(ctx, d); err != nil {
				l.release(first, shift0, tokens)
				return err
			}
		}
		var delta time.Duration
		if delta, shift = l.moved(shift); delta <= 0 {
			return ctx.Err()
		}
		start = start.Add(delta)
	}
}

// pause stops every call from starting for d from now (a 429's
// Retry-After): calls given a start time before the pause move back by the
// time it adds; a pause that ends before the current one adds nothing.
func (l *limiter) pause(now time.Time, d time.Duration) {
	if d <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	until := now.Add(d)
	if !until.After(l.pausedUntil) {
		return
	}
	from := l.pausedUntil
	if from.Before(now) {
		from = now
	}
	delta := until.Sub(from)
	l.pausedUntil = until
	l.shift += delta
	if l.next.After(now) {
		l.next = l.next.Add(delta)
	}
}

// charge records the tokens a call used beyond its estimate (negative: fewer
// than estimated, given back).
func (l *limiter) charge(tokens int) {
	if tokens == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perToken > 0 {
		l.tat = l.tat.Add(time.Duration(tokens) * l.perToken)
	}
}
