package sandbox

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// available skips the test, saying why, when bubblewrap cannot run here.
func available(t *testing.T) {
	t.Helper()
	if err := Check(context.Background(), Options{}); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
}

func mountDir(t *testing.T, writable bool) Mount {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "doc.md"), []byte("# Title\n\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Mount{Src: dir, Dst: "/tmp/agentic_search_test/knowledge_base", Writable: writable}
}

func TestRun(t *testing.T) {
	available(t)
	t.Setenv("LEDGERBENCH_SANDBOX_SECRET", "visible-outside-only")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	ro := mountDir(t, false)
	rw := mountDir(t, true)
	ctx := context.Background()
	files, err := PasswdFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		m       Mount
		command string
		code    int
		stdout  string // substring; "" to skip
		stderr  string // substring
		absent  string // must not be in stdout+stderr
	}{
		{name: "working directory", m: ro, command: "pwd", stdout: "/tmp/agentic_search_test/knowledge_base\n"},
		{name: "files", m: ro, command: "ls", stdout: "doc.md\n"},
		{name: "read", m: ro, command: "cat doc.md", stdout: "# Title\n\nbody\n"},
		{name: "read-only", m: ro, command: "echo x > new.md", code: 1, stderr: "Read-only file system"},
		{name: "no overwrite", m: ro, command: "echo x >> doc.md", code: 1, stderr: "Read-only file system"},
		{name: "writable copy", m: rw, command: "echo note > notes.md && cat notes.md", stdout: "note\n"},
		{name: "root read-only", m: rw, command: "touch /x", code: 1, stderr: "Read-only file system"},
		{name: "private tmp", m: ro, command: "echo t > /tmp/t && cat /tmp/t", stdout: "t\n"},
		{name: "no host files", m: ro, command: "ls / | tr '\\n' ' '", stdout: "bin dev etc home lib", absent: "work"},
		{name: "no host home", m: ro, command: "ls /root", code: 2, stderr: "No such file or directory"},
		{name: "environment cleared", m: ro, command: "env", stdout: "HOME=" + Home, absent: "LEDGERBENCH_SANDBOX_SECRET"},
		{name: "sandbox user", m: ro, command: "id -un; id -gn; ls -l doc.md", stdout: "kb_user\nkb_group\n"},
		{name: "no network", m: ro, command: "exec 3<>/dev/tcp/127.0.0.1/" + itoa(port), code: 1, stderr: "Connection refused"},
		{name: "own pid namespace", m: ro, command: "echo $$", stdout: "2\n"},
		{name: "exit status", m: ro, command: "exit 7", code: 7},
		{name: "signal", m: ro, command: "kill -9 $$", code: 137},
		{name: "awk via alternatives", m: ro, command: "echo a b | awk '{print $2}'", stdout: "b\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(ctx, Options{Files: files}, tc.m, tc.command)
			if err != nil {
				t.Fatal(err)
			}
			out, errOut := string(res.Stdout), string(res.Stderr)
			if res.Code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) ||
				tc.absent != "" && strings.Contains(out+errOut, tc.absent) {
				t.Errorf("%q: code %d, stdout %q, stderr %q; want code %d, stdout with %q, stderr with %q, without %q",
					tc.command, res.Code, out, errOut, tc.code, tc.stdout, tc.stderr, tc.absent)
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestLimits(t *testing.T) {
	t.Parallel()
	available(t)
	ctx := context.Background()
	m := mountDir(t, false)
	t.Run("time", func(t *testing.T) {
		res, err := Run(ctx, Options{Timeout: 300 * time.Millisecond}, m, "sleep 20; echo never")
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut || strings.Contains(string(res.Stdout), "never") || res.Elapsed > 5*time.Second {
			t.Errorf("timed out %v after %v, stdout %q", res.TimedOut, res.Elapsed, res.Stdout)
		}
	})
	t.Run("background processes die with the command", func(t *testing.T) {
		res, err := Run(ctx, Options{Timeout: 300 * time.Millisecond}, m, "(sleep 30 &) ; sleep 20")
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut || res.Elapsed > 5*time.Second {
			t.Errorf("timed out %v after %v", res.TimedOut, res.Elapsed)
		}
	})
	t.Run("output", func(t *testing.T) {
		res, err := Run(ctx, Options{MaxOutput: 1 << 20}, m, "head -c 3000000 /dev/zero; echo done >&2")
		if err != nil {
			t.Fatal(err)
		}
		if !res.Truncated || len(res.Stdout) != 1<<20 || res.Code != 0 || string(res.Stderr) != "done\n" {
			t.Errorf("truncated %v, %d bytes, code %d, stderr %q", res.Truncated, len(res.Stdout), res.Code, res.Stderr)
		}
	})
	t.Run("context", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := Run(cctx, Options{}, m, "true"); !errors.Is(err, context.Canceled) {
			t.Errorf("canceled context: %v", err)
		}
	})
}

func TestMissingBinary(t *testing.T) {
	t.Parallel()
	err := Check(context.Background(), Options{Bwrap: "/nonexistent/bwrap"})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "bubblewrap") {
		t.Errorf("missing binary: %v", err)
	}
}
