package parallel

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestMapKeepsOrder(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 17, 1000} {
		got, err := Map(context.Background(), n, func(_ context.Context, i int) (int, error) {
			if i%3 == 0 {
				time.Sleep(time.Microsecond) // finish out of order
			}
			return i * i, nil
		})
		if err != nil || len(got) != n {
			t.Fatalf("Map(n=%d) = %d results, %v", n, len(got), err)
		}
		for i, v := range got {
			if v != i*i {
				t.Fatalf("Map(n=%d)[%d] = %d; want %d", n, i, v, i*i)
			}
		}
	}
}

func TestMapLimitAndError(t *testing.T) {
	t.Parallel()
	var running, peak atomic.Int32
	boom := errors.New("boom")
	_, err := Map(context.Background(), 50, func(ctx context.Context, i int) (struct{}, error) {
		r := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if r <= p || peak.CompareAndSwap(p, r) {
				break
			}
		}
		time.Sleep(100 * time.Microsecond)
		if i == 10 {
			return struct{}{}, boom
		}
		return struct{}{}, ctx.Err()
	})
	if !errors.Is(err, boom) {
		t.Errorf("Map error = %v; want the first failure", err)
	}
	if p, max := peak.Load(), int32(runtime.GOMAXPROCS(0)); p > max {
		t.Errorf("%d calls at once; want at most GOMAXPROCS = %d", p, max)
	}
}
