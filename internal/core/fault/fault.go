// Package fault marks infrastructure failures: failures outside the agent's
// control (a provider that could not be reached, kept failing after the
// retries or refused the request; a harness defect). A simulation that ends
// with one is recorded as an infrastructure error, never scored as a model
// failure, and re-run on resume.
package fault

import "errors"

// ErrInfrastructure is the one sentinel for infrastructure failures. Every
// error a backbone call returns for a failed call (as opposed to a context
// that ended) wraps it.
var ErrInfrastructure = errors.New("infrastructure error")

// Infrastructure marks err as an infrastructure failure: the result wraps
// ErrInfrastructure and err, and its text is "infrastructure error: " and
// err's. An error already marked is returned as it is.
func Infrastructure(err error) error {
	var m *infraError
	if errors.As(err, &m) {
		return err
	}
	return &infraError{err: err}
}

type infraError struct{ err error }

func (e *infraError) Error() string   { return ErrInfrastructure.Error() + ": " + e.err.Error() }
func (e *infraError) Unwrap() []error { return []error{ErrInfrastructure, e.err} }
