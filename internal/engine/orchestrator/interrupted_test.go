package orchestrator_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
)

// TestInterrupted: a live context goes on; a passed deadline is a timeout
// only when the simulation has a wall-clock limit; anything else that ended
// the context is an infrastructure error.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		timeout time.Duration
		want    evaluator.Termination
		infra   bool
	}{
		{"live", context.Background(), time.Minute, "", false},
		{"canceled", canceled, time.Minute, evaluator.InfrastructureError, true},
		{"deadline with a limit", expired, time.Minute, evaluator.Timeout, false},
		{"deadline without a limit", expired, 0, evaluator.InfrastructureError, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := orchestrator.Interrupted(tc.ctx, orchestrator.Config{Timeout: tc.timeout})
			if got != tc.want || errors.Is(err, fault.ErrInfrastructure) != tc.infra || (err != nil) != tc.infra {
				t.Errorf("Interrupted = %q, %v; want %q (infrastructure error %v)", got, err, tc.want, tc.infra)
			}
		})
	}
}
