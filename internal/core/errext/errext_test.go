package errext

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestCode(t *testing.T) {
	t.Parallel()
	usage := Usagef("--trials %d: need at least 1", 0)
	tests := []struct {
		name string
		err  error
		want ExitCode
	}{
		{"nil", nil, ExitOK},
		{"plain", errors.New("boom"), ExitError},
		{"usage", usage, ExitUsage},
		{"wrapped", fmt.Errorf("run: %w", usage), ExitUsage},
		{"joined", errors.Join(errors.New("a"), usage), ExitUsage},
		{"outermost wins", WithExitCode(fmt.Errorf("x: %w", usage), ExitFailed), ExitFailed},
		{"if none keeps", WithExitCodeIfNone(usage, ExitFailed), ExitUsage},
		{"if none sets", WithExitCodeIfNone(context.Canceled, ExitInterrupted), ExitInterrupted},
		{"hint keeps code", WithHint(usage, "pass --trials 1"), ExitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Code(tc.err); got != tc.want {
				t.Errorf("Code(%v) = %d; want %d", tc.err, got, tc.want)
			}
		})
	}
	if WithExitCode(nil, ExitUsage) != nil || Usage(nil) != nil || WithHint(nil, "h") != nil {
		t.Error("a nil error gained a code or hint")
	}
	if !errors.Is(fmt.Errorf("x: %w", Usage(context.Canceled)), context.Canceled) {
		t.Error("errors.Is does not see through the code")
	}
}

func TestMessage(t *testing.T) {
	t.Parallel()
	base := errors.New("backbone gpt: environment variable K is empty or unset")
	h := WithHint(base, "set K")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"no hint", base, base.Error()},
		{"hint", h, base.Error() + " (hint: set K)"},
		{"wrapped hint", fmt.Errorf("run: %w", h), "run: " + base.Error() + " (hint: set K)"},
		{"joined hints once", errors.Join(h, WithHint(errors.New("b"), "set K"), WithHint(errors.New("c"), "pass --x")),
			base.Error() + "\nb\nc (hint: set K) (hint: pass --x)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Message(tc.err); got != tc.want {
				t.Errorf("Message = %q; want %q", got, tc.want)
			}
		})
	}
	if h.Error() != base.Error() {
		t.Errorf("Error() = %q; the hint belongs to Message only", h.Error())
	}
}
