// Package parallel runs independent units of work on every core and returns
// their results in input order, so output is stable however the work was
// scheduled.
package parallel

import (
	"context"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// Map calls fn(ctx, i) for every i in [0, n) on up to GOMAXPROCS goroutines
// and returns the results by index. The first error cancels the context the
// other calls see and is returned (with the results gathered so far).
func Map[T any](ctx context.Context, n int, fn func(ctx context.Context, i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	if n == 1 { // no goroutine for a single unit
		v, err := fn(ctx, 0)
		out[0] = v
		return out, err
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range n {
		g.Go(func() error {
			v, err := fn(ctx, i)
			out[i] = v
			return err
		})
	}
	return out, g.Wait()
}
