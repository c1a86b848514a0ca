// Package sandbox runs shell commands in a bubblewrap (bwrap) sandbox: a
// fresh root holding the system's programs read-only (/usr with its /bin,
// /lib symlinks, /etc/alternatives), a private /proc, /dev and /tmp, a
// synthetic /etc/passwd and /etc/group naming the sandbox user, one host
// directory (read-only, or writable), no network, no namespace shared with
// the host (user, mount, pid, ipc, uts, net, cgroup), a cleared
// environment, and limits on time and output. Nothing else of the host is
// visible.
//
// It is the isolation under the shell tool of τ²-bench's banking_knowledge
// domain (upstream drives bwrap through sandbox-runtime); package knowledge
// adds upstream's command checks and output handling.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The sandbox's user, as upstream's sanitising names it.
const (
	User  = "kb_user"
	Group = "kb_group"
	Home  = "/home/kb_user"
	uid   = "1000"
	gid   = "1000"
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
	// (default 10 MiB, more than three times the whole knowledge base);
	// the rest is read and dropped.
	MaxOutput int
	// Files are host files shown read-only inside (sandbox path → host
	// path), e.g. the /etc/passwd and /etc/group naming the sandbox user
	// (PasswdFiles writes them).
	Files map[string]string
}

// PasswdFiles writes, in dir, an /etc/passwd and /etc/group naming the
// sandbox's user and group, and returns them as Options.Files.
func PasswdFiles(dir string) (map[string]string, error) {
	files := map[string]string{
		"/etc/passwd": User + ":x:" + uid + ":" + gid + "::" + Home + ":/bin/bash\n",
		"/etc/group":  Group + ":x:" + gid + ":\n",
	}
	out := map[string]string{}
	for dst, content := range files {
		p := filepath.Join(dir, filepath.Base(dst))
		if err := os.WriteFile(p, []byte(content), 0o444); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		out[dst] = p
	}
	return out, nil
}

// DefaultTimeout is upstream's run_command timeout.
const DefaultTimeout = 30 * time.Second

// DefaultMaxOutput is the default Options.MaxOutput.
const DefaultMaxOutput = 10 << 20

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o Options) maxOutput() int {
	if o.MaxOutput > 0 {
		return o.MaxOutput
	}
	return DefaultMaxOutput
}

func (o Options) shell() string {
	if o.Shell != "" {
		return o.Shell
	}
	return "/bin/bash"
}

// Mount is the host directory a command sees, at Dst inside the sandbox
// (an absolute path), which is also its working directory.
type Mount struct {
	Src, Dst string
	Writable bool
}

// Result is a finished command.
type Result struct {
	// Code is the exit status (128+signal when a signal ended the
	// command's shell).
	Code           int
	Stdout, Stderr []byte
	// TimedOut reports that the command was killed at the time limit.
	TimedOut bool
	// Truncated reports that stdout or stderr exceeded MaxOutput: Stdout
	// and Stderr hold the first MaxOutput bytes.
	Truncated bool
	// Elapsed is the command's wall time.
	Elapsed time.Duration
}

// ErrUnavailable is wrapped when bubblewrap cannot run here: the binary is
// missing, or the kernel refuses the namespaces it needs. The error text
// names what is missing.
var ErrUnavailable = errors.New("sandbox unavailable")

type checkResult struct {
	bwrap string
	err   error
}

var checks sync.Map // Options.Bwrap+Shell → *checkOnce

type checkOnce struct {
	once sync.Once
	res  checkResult
}

// Check reports whether a sandbox can run here: an error wrapping
// ErrUnavailable says what is missing (the bwrap binary, the shell, user
// namespaces). It runs a trial sandbox once per process and options.
func Check(ctx context.Context, opts Options) error {
	_, err := resolve(ctx, opts)
	return err
}

func resolve(ctx context.Context, opts Options) (string, error) {
	v, _ := checks.LoadOrStore(opts.Bwrap+"\x00"+opts.shell(), &checkOnce{})
	c := v.(*checkOnce)
	c.once.Do(func() { c.res = probe(ctx, opts) })
	return c.res.bwrap, c.res.err
}

func probe(ctx context.Context, opts Options) checkResult {
	if runtime.GOOS != "linux" {
		return checkResult{err: fmt.Errorf("%w: the bubblewrap sandbox runs on Linux only, not %s", ErrUnavailable, runtime.GOOS)}
	}
	name := opts.Bwrap
	if name == "" {
		name = "bwrap"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return checkResult{err: fmt.Errorf("%w: bubblewrap (%s) not found: install Debian's bubblewrap package (apt-get install bubblewrap): %v", ErrUnavailable, name, err)}
	}
	if _, err := os.Stat(opts.shell()); err != nil {
		return checkResult{err: fmt.Errorf("%w: the sandbox shell %s: %v", ErrUnavailable, opts.shell(), err)}
	}
	dir, err := os.MkdirTemp("", "ledgerbench-sandbox-check-")
	if err != nil {
		return checkResult{err: fmt.Errorf("sandbox check: %w", err)}
	}
	defer os.RemoveAll(dir)
	res, err := run(ctx, path, Options{Shell: opts.Shell, Timeout: 20 * time.Second, MaxOutput: 1 << 16},
		Mount{Src: dir, Dst: "/tmp/check"}, "echo ok")
	if err == nil && (res.Code != 0 || strings.TrimSpace(string(res.Stdout)) != "ok") {
		err = errors.New(strings.TrimSpace(string(res.Stderr)))
		if res.TimedOut {
			err = errors.New("the trial command timed out")
		}
	}
	if err != nil {
		return checkResult{err: fmt.Errorf("%w: %s cannot create its namespaces here (user namespaces disabled, or a seccomp filter refusing them?): %v", ErrUnavailable, path, err)}
	}
	return checkResult{bwrap: path}
}

// Run runs command in a sandbox whose working directory is m.Dst. The error
// is the sandbox's own failure (ErrUnavailable, a context that ended); the
// command's failures, its time limit and its output limit are in Result.
func Run(ctx context.Context, opts Options, m Mount, command string) (Result, error) {
	bwrap, err := resolve(ctx, opts)
	if err != nil {
		return Result{}, err
	}
	return run(ctx, bwrap, opts, m, command)
}

// Argv is the command line that runs a command in a sandbox over m: bwrap
// and its arguments, up to the command itself (the last argument).
func Argv(ctx context.Context, opts Options, m Mount) ([]string, error) {
	bwrap, err := resolve(ctx, opts)
	if err != nil {
		return nil, err
	}
	return append([]string{bwrap}, args(opts, m)...), nil
}

// args are bwrap's arguments for a sandbox over m.
func args(opts Options, m Mount) []string {
	a := []string{
		"--unshare-all", "--unshare-user", "--uid", uid, "--gid", gid,
		"--die-with-parent", "--new-session", "--hostname", "sandbox",
		"--clearenv",
		"--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
		"--setenv", "HOME", Home,
		"--setenv", "USER", User,
		"--setenv", "LOGNAME", User,
		"--setenv", "LANG", "C.UTF-8",
		"--setenv", "SHELL", opts.shell(),
		"--ro-bind", "/usr", "/usr",
	}
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", target, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	if _, err := os.Stat("/etc/alternatives"); err == nil {
		a = append(a, "--ro-bind", "/etc/alternatives", "/etc/alternatives")
	}
	dsts := make([]string, 0, len(opts.Files))
	for dst := range opts.Files {
		dsts = append(dsts, dst)
	}
	slices.Sort(dsts)
	for _, dst := range dsts {
		a = append(a, "--ro-bind", opts.Files[dst], dst)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", Home)
	bind := "--ro-bind"
	if m.Writable {
		bind = "--bind"
	}
	a = append(a, bind, m.Src, m.Dst, "--remount-ro", "/", "--chdir", m.Dst,
		"--", opts.shell(), "-c")
	return a
}

func run(ctx context.Context, bwrap string, opts Options, m Mount, command string) (Result, error) {
	if !filepath.IsAbs(m.Dst) {
		return Result{}, fmt.Errorf("sandbox: mount point %q is not absolute", m.Dst)
	}
	tctx, cancel := context.WithTimeout(ctx, opts.timeout())
	defer cancel()
	cmd := exec.CommandContext(tctx, bwrap, append(args(opts, m), command)...)
	cmd.Env = []string{}
	cmd.Dir = "/"
	out := &capped{max: opts.maxOutput()}
	errOut := &capped{max: opts.maxOutput()}
	cmd.Stdout, cmd.Stderr = out, errOut
	ownGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := Result{Stdout: out.buf.Bytes(), Stderr: errOut.buf.Bytes(), Truncated: out.over || errOut.over, Elapsed: time.Since(start)}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if tctx.Err() != nil {
		res.TimedOut = true
		return res, nil
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			res.Code = 128 + int(st.Signal())
		}
	default:
		return res, fmt.Errorf("sandbox: run %s: %w", bwrap, err)
	}
	return res, nil
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
			c.over = true
		} else {
			c.buf.Write(p)
		}
	} else if len(p) > 0 {
		c.over = true
	}
	return len(p), nil
}
