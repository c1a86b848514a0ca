package llm

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"
)

// One retry loop for every model service: backoff with jitter, Retry-After,
// permanent failures, running out, cancellation.
func TestRetry(t *testing.T) {
	t.Parallel()
	fail := func(status int, h http.Header) Attempt {
		return Attempt{Err: errors.New("x"), Status: status, Header: h}
	}
	tests := []struct {
		name      string
		outcomes  []Attempt
		max       int
		attempts  int
		exhausted bool
		failed    bool
		waits     []time.Duration
	}{
		{"first try", []Attempt{{}}, 3, 1, false, false, nil},
		{"5xx then success", []Attempt{fail(503, nil), fail(0, nil), {}}, 3, 3, false, false, []time.Duration{time.Second - 1, 2*time.Second - 1}},
		{"retry-after", []Attempt{fail(429, http.Header{"Retry-After": {"7"}}), {}}, 3, 2, false, false, []time.Duration{7*time.Second + 250*time.Millisecond - 1}},
		{"permanent", []Attempt{fail(400, nil)}, 3, 1, false, true, nil},
		{"final", []Attempt{{Err: errors.New("stop"), Status: 503, Final: true}}, 3, 1, false, true, nil},
		{"runs out", []Attempt{fail(500, nil), fail(500, nil), fail(500, nil)}, 2, 3, true, true, []time.Duration{time.Second - 1, 2*time.Second - 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var slept, heard []time.Duration
			o := &Options{
				Jitter: func(d time.Duration) time.Duration { return d - 1 },
				Sleep:  func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil },
			}
			n, last, exhausted, err := o.Retry(t.Context(), tc.max, func(n int) Attempt { return tc.outcomes[n-1] },
				func(_ int, _ Attempt, d time.Duration) { heard = append(heard, d) })
			if err != nil || n != tc.attempts || exhausted != tc.exhausted || (last.Err != nil) != tc.failed {
				t.Errorf("Retry = %d, %+v, %v, %v; want %d attempts, exhausted %v, failed %v", n, last, exhausted, err, tc.attempts, tc.exhausted, tc.failed)
			}
			if !reflect.DeepEqual(slept, tc.waits) || !reflect.DeepEqual(heard, tc.waits) {
				t.Errorf("waits %v (told %v); want %v", slept, heard, tc.waits)
			}
		})
	}
}

func TestRetryCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	o := &Options{}
	n, _, _, err := o.Retry(ctx, 5, func(int) Attempt {
		cancel()
		return Attempt{Err: errors.New("x"), Status: 503}
	}, nil)
	if n != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("Retry = %d, %v; want 1 attempt and context.Canceled", n, err)
	}
}
