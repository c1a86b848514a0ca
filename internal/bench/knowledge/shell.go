package knowledge

import (
	"context"
	"errors"

	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge/sandbox"
)

// ShellOptions configure the shell tool's sandboxes.
type ShellOptions struct {
	// TempDir is where sandbox directories are made ("" is os.TempDir(),
	// as upstream's tempfile.gettempdir()).
	TempDir string
	// Sandbox configures bubblewrap (time and output limits).
	Sandbox sandbox.Options
}

// Shell is a shell variant's sandbox template (sandbox_manager.py's
// SandboxManager as retrieval.py's _create_sandbox fills it): the documents
// exported once as files, shared read-only by every simulation's Session,
// or copied into a private writable directory per Session when the variant
// allows writes. Close removes every directory it made.
type Shell struct {
	spec ShellSpec
}

// NewShell checks that bubblewrap can run (an error wrapping
// sandbox.ErrUnavailable says what is missing) and exports the documents.
func NewShell(ctx context.Context, base *Base, spec ShellSpec, opts ShellOptions) (*Shell, error) {
	if err := sandbox.Check(ctx, opts.Sandbox); err != nil {
		return nil, err
	}
	return nil, errors.New("knowledge: shell sandboxes are not built yet")
}

// NewSession returns one simulation's sandbox. Its writable copy (when the
// variant allows writes) is made on its first command.
func (s *Shell) NewSession() *Session { return &Session{shell: s} }

// Close removes the shell's directories (sessions' copies included).
func (s *Shell) Close() error { return nil }

// Session is one simulation's sandbox (one SandboxManager upstream).
type Session struct {
	shell *Shell
}

// Run is SandboxManager.run_command: upstream's escape-pattern check, the
// command in the sandbox with the knowledge base as working directory,
// upstream's timeout message and output sanitising. The error is an
// infrastructure failure (the sandbox could not run).
func (se *Session) Run(ctx context.Context, command string) (code int, stdout, stderr string, err error) {
	return 0, "", "", errors.ErrUnsupported
}

// Close removes the session's private copy, if it made one.
func (se *Session) Close() error { return nil }
