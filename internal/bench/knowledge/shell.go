package knowledge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge/sandbox"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyre"
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
// exported once as upstream's export_documents writes them, shared
// read-only by every simulation's Session, or copied into a private
// writable directory per Session when the variant allows writes. Inside a
// sandbox the knowledge base is at upstream's path,
// /tmp/agentic_search_<8 hex digits>/knowledge_base, which is the working
// directory. Close removes every directory it made.
type Shell struct {
	spec ShellSpec
	opts ShellOptions
	root string // our directory: the export and the sessions' copies
	kb   string // the export

	home *pyre.Regexp // the host user's home directory (nil: unknown user)
}

// NewShell checks that bubblewrap can run (an error wrapping
// sandbox.ErrUnavailable says what is missing) and exports the documents.
func NewShell(ctx context.Context, base *Base, spec ShellSpec, opts ShellOptions) (*Shell, error) {
	if spec.FileFormat == "" {
		spec.FileFormat = "md"
	}
	if err := sandbox.Check(ctx, opts.Sandbox); err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp(opts.TempDir, "ledgerbench-kb-")
	if err != nil {
		return nil, fmt.Errorf("knowledge shell: %w", err)
	}
	s := &Shell{spec: spec, opts: opts, root: root, kb: filepath.Join(root, "knowledge_base")}
	if s.opts.Sandbox.Files == nil {
		files, err := sandbox.PasswdFiles(root)
		if err != nil {
			os.RemoveAll(root)
			return nil, err
		}
		s.opts.Sandbox.Files = files
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		s.home = pyre.MustCompile(`/(?:Users|home)/`+pyre.Escape(u.Username)+`(?=/|$)`, 0)
	}
	if err := exportDocuments(s.kb, base.Docs(), spec.FileFormat); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return s, nil
}

// exportDocuments is SandboxManager.export_documents: one file per
// document named after its sanitised id, and INDEX.md (or INDEX.txt).
func exportDocuments(dir string, docs []Document, format string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("knowledge shell: %w", err)
	}
	for _, d := range docs {
		name := sanitizeFilename(d.ID)
		var body string
		switch format {
		case "json":
			o := &pyjson.Dict{}
			o.Set("id", d.ID)
			o.Set("title", d.Title)
			o.Set("content", d.Content)
			b, err := pyjson.MarshalOptions(o, pyjson.Options{Indent: 2})
			if err != nil {
				return fmt.Errorf("knowledge shell: export %s: %w", d.ID, err)
			}
			name, body = name+".json", string(b)
		case "md":
			name, body = name+".md", "# "+d.Title+"\n\n"+d.Content
		default:
			name, body = name+".txt", "Title: "+d.Title+"\n"+strings.Repeat("=", 50)+"\n\n"+d.Content
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return fmt.Errorf("knowledge shell: export %s: %w", d.ID, err)
		}
	}
	ext := format
	if ext == "json" {
		ext = "md"
	}
	sorted := slices.Clone(docs)
	slices.SortStableFunc(sorted, func(a, b Document) int { return strings.Compare(a.ID, b.ID) })
	var b strings.Builder
	if ext == "md" {
		fmt.Fprintf(&b, "# Knowledge Base Index\n\n**Total documents:** %d\n\n## Documents\n\n", len(docs))
		for _, d := range sorted {
			fmt.Fprintf(&b, "- **%s.%s** - %s\n", sanitizeFilename(d.ID), ext, d.Title)
		}
	} else {
		fmt.Fprintf(&b, "KNOWLEDGE BASE INDEX\n%s\n\nTotal documents: %d\n\nDocuments:\n%s\n", strings.Repeat("=", 50), len(docs), strings.Repeat("-", 50))
		for _, d := range sorted {
			fmt.Fprintf(&b, "\n%s.%s\n  Title: %s\n", sanitizeFilename(d.ID), ext, d.Title)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "INDEX."+ext), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("knowledge shell: export index: %w", err)
	}
	return nil
}

// sanitizeFilename is SandboxManager._sanitize_filename: path separators
// and ".." become "_", then every character but str.isalnum ones and
// "._-"; at most 255 characters.
func sanitizeFilename(id string) string {
	s := strings.NewReplacer("/", "_", `\`, "_").Replace(id)
	s = strings.ReplaceAll(s, "..", "_")
	var b []rune
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || r == '.' || r == '_' || r == '-' {
			b = append(b, r)
		} else {
			b = append(b, '_')
		}
	}
	if len(b) > 255 {
		b = b[:255]
	}
	return string(b)
}

// NewSession returns one simulation's sandbox. Its writable copy (when the
// variant allows writes) is made on its first command; Close (or, failing
// that, the garbage collector, or the Shell's Close) removes it.
func (s *Shell) NewSession() *Session {
	return &Session{shell: s, id: randomID()}
}

func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Close removes the shell's directories (sessions' copies included).
func (s *Shell) Close() error {
	return os.RemoveAll(s.root)
}

// Session is one simulation's sandbox (one SandboxManager upstream).
type Session struct {
	shell *Shell
	id    string

	once sync.Once
	dir  string // the writable copy
	err  error
}

// Dir is the knowledge base's path inside the sandbox (the working
// directory).
func (se *Session) Dir() string { return "/tmp/agentic_search_" + se.id + "/knowledge_base" }

func (se *Session) source() (string, error) {
	if !se.shell.spec.AllowWrites {
		return se.shell.kb, nil
	}
	se.once.Do(func() {
		se.dir = filepath.Join(se.shell.root, "session-"+se.id, "knowledge_base")
		se.err = copyDir(se.shell.kb, se.dir)
		if se.err == nil {
			dir := filepath.Dir(se.dir)
			runtime.AddCleanup(se, func(d string) { os.RemoveAll(d) }, dir)
		}
	})
	return se.dir, se.err
}

func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("knowledge shell: copy: %w", err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("knowledge shell: copy: %w", err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
		}
		if err != nil {
			return fmt.Errorf("knowledge shell: copy: %w", err)
		}
	}
	return nil
}

// Close removes the session's private copy, if it made one.
func (se *Session) Close() error {
	if se.dir != "" {
		return os.RemoveAll(filepath.Dir(se.dir))
	}
	return nil
}

// Run is SandboxManager.run_command: upstream's escape-pattern check, the
// command in the sandbox with the knowledge base as working directory,
// upstream's timeout message, its decoding of the output as text and its
// sanitising of ls listings and home paths. A command printing more than
// the output limit (which upstream does not have) is cut at it, with a
// note. The error is an infrastructure failure (the sandbox could not
// run); command's own failures are in code and stderr.
func (se *Session) Run(ctx context.Context, command string) (code int, stdout, stderr string, err error) {
	if p := escapePattern(command); p != "" {
		return 1, "", "Error: Command blocked - contains '" + p + "' which could escape the sandbox", nil
	}
	if strings.ContainsRune(command, 0) {
		return 1, "", "Command failed: embedded null byte", nil
	}
	src, err := se.source()
	if err != nil {
		return 0, "", "", infra(err)
	}
	opts := se.shell.opts.Sandbox
	res, err := sandbox.Run(ctx, opts, sandbox.Mount{Src: src, Dst: se.Dir(), Writable: se.shell.spec.AllowWrites}, command)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return 0, "", "", err
		}
		return 0, "", "", infra(err)
	}
	if res.TimedOut {
		t := opts.Timeout
		if t <= 0 {
			t = sandbox.DefaultTimeout
		}
		return 124, "", "Command timed out after " + strconv.FormatFloat(t.Seconds(), 'f', -1, 64) + " seconds", nil
	}
	if res.Truncated { // cut at a character, not inside one
		res.Stdout, res.Stderr = trimPartialRune(res.Stdout), trimPartialRune(res.Stderr)
	}
	out, derr := decodeText(res.Stdout)
	if derr == nil {
		var e string
		e, derr = decodeText(res.Stderr)
		stderr = e
	}
	if derr != nil {
		return 1, "", "Command failed: " + derr.Error(), nil
	}
	if res.Truncated {
		limit := opts.MaxOutput
		if limit <= 0 {
			limit = sandbox.DefaultMaxOutput
		}
		out += fmt.Sprintf("\n[output cut at %d bytes]", limit)
	}
	return res.Code, se.shell.sanitize(out), se.shell.sanitize(stderr), nil
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c&0xc0 == 0x80 {
			continue // a continuation byte: look further back
		}
		if c >= 0xc0 && bits8(c) > i { // a lead byte whose sequence is cut
			return b[:len(b)-i]
		}
		break
	}
	return b
}

// bits8 is the length of the UTF-8 sequence a lead byte starts.
func bits8(c byte) int {
	switch {
	case c >= 0xf0:
		return 4
	case c >= 0xe0:
		return 3
	}
	return 2
}

// decodeText is subprocess's text mode: strict UTF-8 decoding (with
// Python's UnicodeDecodeError text), then universal newlines.
func decodeText(b []byte) (string, error) {
	if err := utf8Check(b); err != nil {
		return "", err
	}
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n"), nil
}

// utf8Check finds the first error CPython's UTF-8 decoder reports.
func utf8Check(b []byte) error {
	cont := func(c byte) bool { return c&0xc0 == 0x80 }
	fail := func(start, end int, reason string) error {
		if end == start+1 {
			return fmt.Errorf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", b[start], start, reason)
		}
		return fmt.Errorf("'utf-8' codec can't decode bytes in position %d-%d: %s", start, end-1, reason)
	}
	n := len(b)
	for i := 0; i < n; {
		c := b[i]
		switch {
		case c < 0x80:
			i++
		case c < 0xc2:
			return fail(i, i+1, "invalid start byte")
		case c < 0xe0:
			if n-i < 2 {
				return fail(i, n, "unexpected end of data")
			}
			if !cont(b[i+1]) {
				return fail(i, i+1, "invalid continuation byte")
			}
			i += 2
		case c < 0xf0:
			bad2 := func(c2 byte) bool { return !cont(c2) || (c == 0xe0 && c2 < 0xa0) || (c == 0xed && c2 >= 0xa0) }
			if n-i < 3 {
				if n-i >= 2 && bad2(b[i+1]) {
					return fail(i, i+1, "invalid continuation byte")
				}
				return fail(i, n, "unexpected end of data")
			}
			if bad2(b[i+1]) {
				return fail(i, i+1, "invalid continuation byte")
			}
			if !cont(b[i+2]) {
				return fail(i, i+2, "invalid continuation byte")
			}
			i += 3
		case c < 0xf5:
			bad2 := func(c2 byte) bool { return !cont(c2) || (c == 0xf0 && c2 < 0x90) || (c == 0xf4 && c2 >= 0x90) }
			if n-i < 4 {
				if n-i >= 2 && bad2(b[i+1]) {
					return fail(i, i+1, "invalid continuation byte")
				}
				if n-i >= 3 && !cont(b[i+2]) {
					return fail(i, i+2, "invalid continuation byte")
				}
				return fail(i, n, "unexpected end of data")
			}
			if bad2(b[i+1]) {
				return fail(i, i+1, "invalid continuation byte")
			}
			if !cont(b[i+2]) {
				return fail(i, i+2, "invalid continuation byte")
			}
			if !cont(b[i+3]) {
				return fail(i, i+3, "invalid continuation byte")
			}
			i += 4
		default:
			return fail(i, i+1, "invalid start byte")
		}
	}
	return nil
}

// The patterns of SandboxManager's checks and sanitising, as it writes
// them (Python re semantics: pyre).
var (
	singleQuoted = pyre.MustCompile(`'[^']*'`, 0)
	doubleQuoted = pyre.MustCompile(`"[^"]*"`, 0)
	absPathStart = pyre.MustCompile(`(?:^|[\s;|&])(/[a-zA-Z])`, 0)
	absPath      = pyre.MustCompile(`(?:^|[\s;|&])(/[a-zA-Z][^\s;|&]*)`, 0)
	lsLine       = pyre.MustCompile(`^([d\-lrwxst@]+\s+\d+\s+)(\S+)\s+(\S+)\s+(\d+)\s+(\w{3}\s+\d+\s+[\d:]+)\s+(.*)$`, pyre.Multiline)
)

// escapePattern is SandboxManager._has_escape_pattern: the blocked pattern
// found outside quotes, or "".
func escapePattern(command string) string {
	s := singleQuoted.ReplaceLiteral(command, `""`)
	s = doubleQuoted.ReplaceLiteral(s, `""`)
	if strings.Contains(s, "..") {
		return ".."
	}
	if absPathStart.Search(s) != nil {
		if m := absPath.Search(s); m != nil {
			g, _ := m.Group(1)
			return "absolute path: " + g
		}
	}
	if strings.HasPrefix(pyjson.Strip(s), "/") {
		return "absolute path at start"
	}
	if strings.Contains(s, "~") {
		return "~"
	}
	if strings.Contains(s, "$HOME") || strings.Contains(s, "${HOME}") {
		return "$HOME"
	}
	return ""
}

// sanitize is SandboxManager._sanitize_output: ls -l lines show the
// sandbox's user, group and a fixed date; the host user's home directory
// shows as /home/kb_user.
func (s *Shell) sanitize(out string) string {
	if out == "" {
		return out
	}
	out = lsLine.Sub(out, func(m *pyre.Match) string {
		perms, _ := m.Group(1)
		size, _ := m.Group(4)
		name, _ := m.Group(6)
		return perms + sandbox.User + "  " + sandbox.Group + "  " + size + " Jan  1 00:00 " + name
	})
	if s.home != nil {
		out = s.home.ReplaceLiteral(out, "/home/kb_user")
	}
	return out
}
