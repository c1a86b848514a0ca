// Package parallel runs independent units of work on every core and returns
// their results in input order, so output is stable however the work was
// scheduled.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Map calls fn(ctx, i) for every i in [0, n) on up to GOMAXPROCS goroutines
// and returns the results by index. The first error cancels the context the
// other calls see and is returned (with the results gathered so far).
//
// Each goroutine takes the next index until none is left (one goroutine per
// core, not per unit: a unit runs on a stack its predecessors already grew).
func Map[T any](ctx context.Context, n int, fn func(ctx context.Context, i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	if n == 1 { // no goroutine for a single unit
		v, err := fn(ctx, 0)
		out[0] = v
		return out, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		next     atomic.Int64
		once     sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				v, err := fn(ctx, i)
				out[i] = v
				if err != nil {
					once.Do(func() {
						firstErr = err
						cancel(err)
					})
				}
			}
		})
	}
	wg.Wait()
	return out, firstErr
}
