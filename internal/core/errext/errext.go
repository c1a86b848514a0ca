// Package errext lets an error carry, from where it arises, the exit code
// the command line ends with and a hint for the person reading it (as k6's
// errext does). Nothing downstream rewrites or classifies messages: the
// code that knows what went wrong says how bad it is and what to do.
//
// The codes are found with errors.As, so they survive wrapping with %w and
// errors.Join; the outermost code in the chain wins.
package errext

import (
	"errors"
	"fmt"
	"slices"
)

// ExitCode is a process exit status.
type ExitCode int

// The exit codes of ledgerbench.
const (
	ExitOK          ExitCode = 0
	ExitError       ExitCode = 1   // any other failure
	ExitUsage       ExitCode = 2   // the command line or a settings file is wrong
	ExitFailed      ExitCode = 3   // verification failed or a --min-pass threshold was not met
	ExitBudget      ExitCode = 4   // an experiment stopped on a budget cap
	ExitInterrupted ExitCode = 130 // Ctrl-C or SIGTERM
)

// HasExitCode is an error that says which exit code it ends the process
// with.
type HasExitCode interface {
	error
	ExitCode() ExitCode
}

// HasHint is an error with advice for the reader (what to pass or set).
type HasHint interface {
	error
	Hint() string
}

type withCode struct {
	err  error
	code ExitCode
}

func (e withCode) Error() string      { return e.err.Error() }
func (e withCode) Unwrap() error      { return e.err }
func (e withCode) ExitCode() ExitCode { return e.code }

// WithExitCode gives err an exit code (nil stays nil).
func WithExitCode(err error, code ExitCode) error {
	if err == nil {
		return nil
	}
	return withCode{err, code}
}

// WithExitCodeIfNone gives err code unless it already carries one.
func WithExitCodeIfNone(err error, code ExitCode) error {
	var hc HasExitCode
	if err == nil || errors.As(err, &hc) {
		return err
	}
	return withCode{err, code}
}

// Usage marks err as a usage error (exit 2).
func Usage(err error) error { return WithExitCode(err, ExitUsage) }

// Usagef is a usage error formatted as fmt.Errorf does.
func Usagef(format string, args ...any) error {
	return withCode{fmt.Errorf(format, args...), ExitUsage}
}

// Code is the exit code err carries: the outermost one in its chain, else
// ExitError (ExitOK for nil).
func Code(err error) ExitCode {
	if err == nil {
		return ExitOK
	}
	var hc HasExitCode
	if errors.As(err, &hc) {
		return hc.ExitCode()
	}
	return ExitError
}

// IsUsage reports whether err is a usage error.
func IsUsage(err error) bool { return Code(err) == ExitUsage }

type withHint struct {
	err  error
	hint string
}

func (e withHint) Error() string { return e.err.Error() }
func (e withHint) Unwrap() error { return e.err }
func (e withHint) Hint() string  { return e.hint }

// WithHint attaches a hint to err (nil stays nil). Error() stays the
// error's own text; Message adds the hint.
func WithHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return withHint{err, hint}
}

// Hints are every hint in err's tree, outermost first, without repeats.
func Hints(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if h, ok := e.(HasHint); ok && h.Hint() != "" && !slices.Contains(out, h.Hint()) {
			out = append(out, h.Hint())
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// Message is err as a person reads it: its text, then its hints as
// "(hint: …)".
func Message(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	for _, h := range Hints(err) {
		msg += " (hint: " + h + ")"
	}
	return msg
}
