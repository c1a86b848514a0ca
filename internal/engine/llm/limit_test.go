package llm

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
)

// fakeClock is a clock that moves only when a sleep asks it to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return nil
}

func (c *fakeClock) limiter(rpm, tpm int) *limiter {
	l := newLimiter(rpm, tpm)
	l.clock, l.sleep = c.Now, c.Sleep
	return l
}

func TestLimiterSchedule(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Starts in units of the request interval (iv) and of one token's time
	// (tok); 6000 tpm at 95% is 95 tokens a second and a bucket of 570.
	type at struct{ iv, tok int }
	tests := []struct {
		name     string
		rpm, tpm int
		tokens   []int
		want     []at
	}{
		{"requests evenly spread, no burst", 600, 0, []int{1, 1, 1, 1}, []at{{0, 0}, {1, 0}, {2, 0}, {3, 0}}},
		{"tokens within the bucket go at once", 0, 6000, []int{285, 285}, []at{{0, 0}, {0, 0}}},
		{"tokens beyond the bucket wait for the excess", 0, 6000, []int{570, 95, 50}, []at{{0, 0}, {0, 95}, {0, 145}}},
		{"a call larger than the bucket waits for its excess", 0, 6000, []int{670}, []at{{0, 100}}},
		{"both limits, requests bind", 6000, 6000, []int{5, 5, 5}, []at{{0, 0}, {1, 0}, {2, 0}}},
		{"both limits, tokens bind", 6000, 6000, []int{570, 5, 5}, []at{{0, 0}, {0, 5}, {0, 10}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := (&fakeClock{now: t0}).limiter(tc.rpm, tc.tpm)
			for i, n := range tc.tokens {
				got, _ := l.reserve(t0, n)
				want := time.Duration(tc.want[i].iv)*l.interval + time.Duration(tc.want[i].tok)*l.perToken
				if got.Sub(t0) != want {
					t.Errorf("reservation %d (%d tokens) starts at %v; want %v", i, n, got.Sub(t0), want)
				}
			}
		})
	}
	l := newLimiter(1200, 6000)
	sec := float64(time.Second)
	if want := time.Duration(sec / (0.95 * 20)); l.interval != want {
		t.Errorf("1200 rpm: a start every %v; want %v (95%% of 20 a second)", l.interval, want)
	}
	if want := time.Duration(sec / 95); l.perToken != want || l.tolerance != 570*want {
		t.Errorf("6000 tpm: %v a token, bucket %v; want %v and 570 tokens' worth", l.perToken, l.tolerance, want)
	}
}

// A pause moves every call already given a start time back by the time it
// adds, keeps their spacing, and a shorter pause during a longer one adds
// nothing.
func TestLimiterPause(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := &fakeClock{now: t0}
	l := clk.limiter(600, 0) // one start every iv (≈105ms)
	iv := l.interval
	var starts []time.Duration
	for range 3 {
		s, _ := l.reserve(t0, 1)
		starts = append(starts, s.Sub(t0))
	}
	l.pause(t0.Add(50*time.Millisecond), time.Second) // a 429 at 50ms: nothing before 1.05s
	l.pause(t0.Add(60*time.Millisecond), 200*time.Millisecond)
	// The reservations at iv and 2iv move by 1s; a new one follows them.
	var got []time.Duration
	for _, d := range starts[1:] {
		clk.now = t0
		start, shift := t0.Add(d), time.Duration(0)
		for {
			delta, cur := l.moved(shift)
			if delta <= 0 {
				break
			}
			start, shift = start.Add(delta), cur
		}
		got = append(got, start.Sub(t0))
	}
	next, _ := l.reserve(t0.Add(70*time.Millisecond), 1)
	got = append(got, next.Sub(t0))
	want := []time.Duration{time.Second + iv, time.Second + 2*iv, time.Second + 3*iv}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("start %d after the pause = %v; want %v (all: %v)", i, got[i], want[i], got)
		}
	}
	// wait follows the shift with its sleeps.
	clk.now = t0.Add(2 * time.Second)
	l2 := clk.limiter(60, 0)
	l2.pause(clk.Now(), 3*time.Second)
	if err := l2.wait(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if got := clk.Now().Sub(t0); got != 5*time.Second {
		t.Errorf("wait during a 3s pause returned at %v; want 5s", got)
	}
}

// A call whose context ends while it waits gives its slot back.
func TestLimiterRelease(t *testing.T) {
	l := newLimiter(60, 0) // one a second
	ctx := t.Context()
	if err := l.wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := l.wait(short, 1); err == nil {
		t.Fatal("wait past its context succeeded")
	}
	start, _ := l.reserve(time.Now(), 1)
	if d := time.Until(start); d > 1100*time.Millisecond {
		t.Errorf("next start in %v; the canceled call's slot was not given back", d)
	}
}

// Clients of two pools built over one Shared (two cells of an experiment,
// the user simulator and the judge on the agent's backbone) pace together:
// a provider enforcing the limit per second rejects none of their calls,
// and the calls take what the limit allows.
func TestSharedLimiterAcrossPools(t *testing.T) {
	srv := openaitest.NewHandlerServer(t, func(*openaitest.Request) openaitest.Reply { return openaitest.Text("ok") })
	srv.SetLimits(&openaitest.Limits{RPM: 1200})
	b := testBackbone(srv)
	b.RPM = 1200
	cfg := &Config{Backbones: map[string]Backbone{"test": b}}
	shared := NewShared()
	var clients []*Client
	for range 2 {
		c, err := NewPool(cfg, Options{LookupEnv: testEnv, Shared: shared}).Client("test")
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	const calls = 40
	start := time.Now()
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			if _, err := clients[i%2].Generate(t.Context(), Request{Messages: conversation()}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	st := srv.Stats()
	if st.OverLimit > 0 || st.Replies != calls {
		t.Errorf("stats %+v; want %d replies and no 429", st, calls)
	}
	// 40 starts 1/19s apart: 2.05s.
	if elapsed < 2*time.Second || elapsed > 3*time.Second {
		t.Errorf("%d calls at 1200 rpm took %v; want about 2.05s", calls, elapsed)
	}
	// Without the shared registry the two pools would offer twice the rate.
	// Their limiters do not sleep here, so the calls go at once: three
	// times as many as the server allows in a second, so that however the
	// burst falls across calendar seconds (a loaded machine spreads it),
	// one second gets more than its 20.
	srv2 := openaitest.NewHandlerServer(t, func(*openaitest.Request) openaitest.Reply { return openaitest.Text("ok") })
	srv2.SetLimits(&openaitest.Limits{RPM: 1200})
	b.BaseURL = srv2.BaseURL()
	b.MaxRetries = ptr(0)
	cfg2 := &Config{Backbones: map[string]Backbone{"test": b}}
	var sep []*Client
	for range 2 {
		c, _ := NewPool(cfg2, Options{LookupEnv: testEnv, Sleep: (&sleeper{}).sleep}).Client("test")
		sep = append(sep, c)
	}
	for i := range 3 * calls {
		wg.Go(func() { sep[i%2].Generate(t.Context(), Request{Messages: conversation()}) })
	}
	wg.Wait()
	if srv2.Stats().OverLimit == 0 {
		t.Errorf("two pools without a shared registry met no limit (stats %+v): the test does not test the sharing", srv2.Stats())
	}
}

// A 429 pauses the whole backbone for its Retry-After: a call that starts
// after it waits, on another client of the same Shared too.
func TestRateLimitPausesBackbone(t *testing.T) {
	limited := make(chan time.Time, 1)
	var n atomic.Int64
	srv := openaitest.NewHandlerServer(t, func(*openaitest.Request) openaitest.Reply {
		if n.Add(1) == 1 {
			limited <- time.Now()
			return openaitest.Reply{Status: 429, RetryAfter: "0.4", Message: "slow down"}
		}
		return openaitest.Text("ok")
	})
	b := testBackbone(srv)
	shared := NewShared()
	// The first call's retry wait starts after its 429 has paused the
	// backbone: then the other call starts.
	retrying := make(chan struct{})
	var once sync.Once
	a := newTestClient(t, b, Options{Shared: shared, Sleep: func(ctx context.Context, d time.Duration) error {
		once.Do(func() { close(retrying) })
		return Sleep(ctx, d)
	}})
	other := newTestClient(t, b, Options{Shared: shared})
	done := make(chan error, 1)
	go func() {
		_, err := a.Generate(t.Context(), Request{Messages: conversation()})
		done <- err
	}()
	at := <-limited
	<-retrying
	if _, err := other.Generate(t.Context(), Request{Messages: conversation()}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, r := range srv.Requests()[1:] {
		if d := r.Received.Sub(at); d < 380*time.Millisecond {
			t.Errorf("request %d arrived %v after the 429; want ≥ its Retry-After 400ms", i+1, d)
		}
	}
}

// A provider that answers 429 forever: the call gives up after its 429
// retries with ErrRateLimited, naming the backbone.
func TestRateLimitedForever(t *testing.T) {
	srv := openaitest.NewHandlerServer(t, func(*openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Status: 429, RetryAfter: "0.001", Message: "rate limit"}
	})
	b := testBackbone(srv)
	c := newTestClient(t, b, Options{Shared: NewShared()})
	_, err := c.Generate(t.Context(), Request{Messages: conversation()})
	var e *Error
	if !errors.Is(err, ErrRateLimited) || !errors.As(err, &e) || e.Attempts != RateLimitRetries+1 || !strings.Contains(err.Error(), "llm test: giving up") {
		t.Errorf("err = %v; want ErrRateLimited after %d attempts", err, RateLimitRetries+1)
	}
}

// TestTokenLimitAgainstProvider: a provider enforcing tpm sees no call over
// it from a client told the same tpm.
func TestTokenLimitAgainstProvider(t *testing.T) {
	srv := openaitest.NewHandlerServer(t, func(*openaitest.Request) openaitest.Reply { return openaitest.Text("ok") })
	b := testBackbone(srv)
	// Each call: about 60 prompt and 1 completion tokens; 120,000 tpm is
	// 2,000 a second, a bucket of 12,000 (the client takes 95% of both):
	// about 190 calls in at once, the rest at about 31 a second.
	b.TPM = 120_000
	srv.SetLimits(&openaitest.Limits{TPM: b.TPM})
	c := newTestClient(t, b, Options{Shared: NewShared(), Sleep: Sleep})
	var wg sync.WaitGroup
	for range 240 {
		wg.Go(func() {
			if _, err := c.Generate(t.Context(), Request{Messages: conversation()}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if st := srv.Stats(); st.OverLimit > 2 {
		t.Errorf("stats %+v; want (almost) no call over the token limit", st)
	}
}

// BenchmarkLimiterReserve is the limiter's bookkeeping per call (the wait
// itself is the limit's).
func BenchmarkLimiterReserve(b *testing.B) {
	l := newLimiter(maxRPM, maxTPM)
	b.ReportAllocs()
	for b.Loop() {
		_, shift := l.reserve(time.Now(), 100)
		l.moved(shift)
		l.charge(-10)
	}
}
