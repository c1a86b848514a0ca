package llm_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
)

// TestFailed: the one way a participant passes a failed call on. A backbone
// failure is named an infrastructure error once, however many participants
// pass it on; context errors and the participant's own errors keep their
// kind.
func TestFailed(t *testing.T) {
	t.Parallel()
	backbone := &llm.Error{Backbone: "gpt", Attempts: 4, Status: 429, Retryable: true, Err: errors.New("Too Many Requests")}
	own := errors.New("no tool named x")
	tests := []struct {
		name  string
		err   error
		want  string
		infra bool
		cause error
	}{
		{"backbone failure", llm.Failed("agent", backbone),
			"agent: infrastructure error: llm gpt: giving up after 4 attempts: status 429: Too Many Requests", true, backbone},
		{"passed on twice", llm.Failed("solo agent", llm.Failed("agent", backbone)),
			"solo agent: agent: infrastructure error: llm gpt: giving up after 4 attempts: status 429: Too Many Requests", true, backbone},
		{"already marked", llm.Failed("user simulator", fault.Infrastructure(fmt.Errorf("steer endpoint: after 4 attempts: %w", own))),
			"user simulator: infrastructure error: steer endpoint: after 4 attempts: no tool named x", true, own},
		{"context canceled", llm.Failed("judge", context.Canceled), "judge: context canceled", false, context.Canceled},
		{"own error", llm.Failed("agent", own), "agent: no tool named x", false, own},
		{"interrupted", fault.Infrastructure(context.Canceled), "infrastructure error: context canceled", true, context.Canceled},
		{"marked twice", fault.Infrastructure(fault.Infrastructure(own)), "infrastructure error: no tool named x", true, own},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("text %q; want %q", got, tc.want)
			}
			if errors.Is(tc.err, fault.ErrInfrastructure) != tc.infra {
				t.Errorf("errors.Is(fault.ErrInfrastructure) = %v; want %v", !tc.infra, tc.infra)
			}
			if !errors.Is(tc.err, tc.cause) {
				t.Errorf("error does not wrap its cause %v", tc.cause)
			}
		})
	}
}
