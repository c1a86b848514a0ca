package errext

import (
	"context"
	"encoding/json"
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

// Decoding errors name the data's terms, never Go's types.
func TestJSON(t *testing.T) {
	t.Parallel()
	type sim struct {
		Trial int `json:"trial"`
	}
	type file struct {
		Simulations []sim `json:"simulations"`
	}
	tests := []struct {
		name, in string
		into     any
		want     string
	}{
		{"value", `[1]`, &file{}, "json: a list where an object (a mapping of keys) was expected"},
		{"field", `{"simulations":[{"trial":"x"}]}`, &file{}, "json: field simulations.trial: a string where a whole number was expected"},
		{"fraction", `{"simulations":[{"trial":1.5}]}`, &file{}, "json: field simulations.trial: a number where a whole number was expected"},
		{"syntax stays", `{`, &file{}, "unexpected end of JSON input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := JSON(json.Unmarshal([]byte(tc.in), tc.into))
			if err == nil || err.Error() != tc.want {
				t.Errorf("JSON(%s) = %v; want %q", tc.in, err, tc.want)
			}
			var te *json.UnmarshalTypeError
			if tc.name != "syntax stays" && !errors.As(err, &te) {
				t.Errorf("%v does not unwrap to encoding/json's error", err)
			}
		})
	}
	if JSON(nil) != nil {
		t.Error("JSON(nil) != nil")
	}
}
