package knowledge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge/sandbox"
	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

// sandboxOr skips the test, saying why, when bubblewrap cannot run here.
func sandboxOr(t *testing.T) {
	t.Helper()
	if err := sandbox.Check(context.Background(), sandbox.Options{}); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
}

func shellCall(t *testing.T, ctx context.Context, se *Session, args string) (string, bool) {
	t.Helper()
	tl, err := ShellTool[*Session](testSource(t), func(s *Session) *Session { return s })
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.NewSet("KnowledgeToolsWithShell", tl).Call(ctx, se, ShellName, json.RawMessage(args))
	if err != nil {
		return err.Error(), true
	}
	return tool.Content(res), false
}

func TestShell(t *testing.T) {
	t.Parallel()
	sandboxOr(t)
	base := NewBase([]Document{
		{ID: "doc_fees_(general)_001", Title: "Fees", Content: "## Overdraft\n\nThe overdraft fee is $35.\n"},
		{ID: "doc_cards_002", Title: "Cards", Content: "Cards café ‑ rewards\n"},
	})
	ctx := context.Background()
	for _, writes := range []bool{false, true} {
		sh, err := NewShell(ctx, base, ShellSpec{AllowWrites: writes}, ShellOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer sh.Close()
		se := sh.NewSession()
		for _, tc := range []struct {
			args, want string
			isErr      bool
		}{
			{args: `{"command": "ls"}`, want: "INDEX.md\ndoc_cards_002.md\ndoc_fees__general__001.md\n"},
			{args: `{"command": "pwd"}`, want: se.Dir() + "\n"},
			{args: `{"command": "cat doc_cards_002.md"}`, want: "# Cards\n\nCards café ‑ rewards\n"},
			{args: `{"command": "grep -l overdraft *.md"}`, want: "doc_fees__general__001.md\n"},
			{args: `{"command": "grep -r zzzq ."}`, want: "No matches found."},
			{args: `{"command": "true"}`, want: "(no output)"},
			{args: `{"command": "exit 3"}`, want: "Command failed with exit code 3"},
			{args: `{"command": "ls nope"}`, want: "Error (exit code 2): ls: cannot access 'nope': No such file or directory\n"},
			{args: `{"command": "cat ../x"}`, want: "Error (exit code 1): Error: Command blocked - contains '..' which could escape the sandbox"},
			{args: `{"command": "cat /etc/passwd"}`, want: "Error (exit code 1): Error: Command blocked - contains 'absolute path: /etc/passwd' which could escape the sandbox"},
			{args: `{"command": "echo '/etc'"}`, want: "/etc\n"},
			{args: `{"command": "ls ~"}`, want: "Error (exit code 1): Error: Command blocked - contains '~' which could escape the sandbox"},
			{args: `{"command": "printf 'a\\xffb'"}`, want: "Error (exit code 1): Command failed: 'utf-8' codec can't decode byte 0xff in position 1: invalid start byte"},
			{args: `{"command": "printf 'a\\r\\nb\\rc'"}`, want: "a\nb\nc"},
			{args: `{"command": "ls -l INDEX.md"}`, want: "-rw-r--r-- 1 kb_user  kb_group  "},
			{args: `{"command": "a\u0000b"}`, want: "Error (exit code 1): Command failed: embedded null byte"},
			{args: `{"command": 5}`, want: "expected string or bytes-like object, got 'int'", isErr: true},
			{args: `{}`, want: "ShellMixin.shell() missing 1 required positional argument: 'command'", isErr: true},
		} {
			got, isErr := shellCall(t, ctx, se, tc.args)
			if isErr != tc.isErr || !strings.HasPrefix(got, tc.want) {
				t.Errorf("writes=%v shell(%s) = %q (error %v); want %q (error %v)", writes, tc.args, got, isErr, tc.want, tc.isErr)
			}
		}
		got, _ := shellCall(t, ctx, se, `{"command": "echo note > notes.md && cat notes.md"}`)
		if writes && got != "note\n" || !writes && !strings.Contains(got, "Read-only file system") {
			t.Errorf("writes=%v: writing a note: %q", writes, got)
		}
		// A second simulation sees the pristine knowledge base.
		got, _ = shellCall(t, ctx, sh.NewSession(), `{"command": "ls"}`)
		if strings.Contains(got, "notes.md") {
			t.Errorf("writes=%v: another session sees the note: %q", writes, got)
		}
		se.Close()
	}
}

func TestShellTimeout(t *testing.T) {
	t.Parallel()
	sandboxOr(t)
	ctx := context.Background()
	base := NewBase([]Document{{ID: "d", Title: "T", Content: "c"}})
	sh, err := NewShell(ctx, base, DefaultShell(), ShellOptions{TempDir: t.TempDir(), Sandbox: sandbox.Options{Timeout: time.Second, MaxOutput: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	se := sh.NewSession()
	if got, _ := shellCall(t, ctx, se, `{"command": "sleep 10"}`); got != "Error (exit code 124): Command timed out after 1 seconds" {
		t.Errorf("timeout: %q", got)
	}
	got, _ := shellCall(t, ctx, se, `{"command": "printf 'é%.0s' $(seq 1 2000)"}`)
	if !strings.HasSuffix(got, "\n[output cut at 1000 bytes]") || len(got) > 1100 || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("output limit: %q", got)
	}
}

func TestUTF8Errors(t *testing.T) {
	t.Parallel()
	// CPython 3.11's bytes.decode('utf-8') messages for these inputs.
	for _, tc := range []struct{ in, want string }{
		{"\xe2\x82", "'utf-8' codec can't decode bytes in position 0-1: unexpected end of data"},
		{"ab\xff", "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte"},
		{"\xed\xa0\x80", "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte"},
		{"\xf0\x9f\x98", "'utf-8' codec can't decode bytes in position 0-2: unexpected end of data"},
		{"\xf0\x9fA", "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte"},
		{"\xc3", "'utf-8' codec can't decode byte 0xc3 in position 0: unexpected end of data"},
		{"\xe0\x80\x80", "'utf-8' codec can't decode byte 0xe0 in position 0: invalid continuation byte"},
		{"\xc3(", "'utf-8' codec can't decode byte 0xc3 in position 0: invalid continuation byte"},
		{"\xf4\x90\x80\x80", "'utf-8' codec can't decode byte 0xf4 in position 0: invalid continuation byte"},
		{"\xe2(\xa1", "'utf-8' codec can't decode byte 0xe2 in position 0: invalid continuation byte"},
		{"ok é ‑ 🙂", ""},
	} {
		err := utf8Check([]byte(tc.in))
		if got := errText(err); got != tc.want {
			t.Errorf("utf8Check(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestShellOracle runs upstream's SandboxManager and ShellMixin (see
// testdata/oracle/shell_oracle.py) over the knowledge base with the same
// commands, executing each in the same bubblewrap sandbox as ours, and
// compares the exported files and every tool output:
//
//	TAU2_SRC=/path/to/tau2-bench/src \
//	LEDGERBENCH_SHELL_ORACLE="python3 testdata/oracle/shell_oracle.py" \
//	go test ./internal/bench/knowledge -run ShellOracle
func TestShellOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_SHELL_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_SHELL_ORACLE not set")
	}
	sandboxOr(t)
	base, _ := realBase(t)
	ctx := context.Background()
	type command struct {
		Command any `json:"command"`
		Timeout int `json:"timeout,omitempty"`
	}
	common := []command{
		{Command: "ls | head -20"}, {Command: "ls | wc -l"}, {Command: "ls -l | head -8"}, {Command: "ls -l INDEX.md"},
		{Command: "cat INDEX.md | head -40"}, {Command: "head -c 600 doc_checking_accounts_blue_account_005.md"},
		{Command: "grep -ril 'overdraft fee' . | sort | head"}, {Command: "grep -rc 'fee' . | sort | head -5"},
		{Command: "grep -r zzqqxx ."}, {Command: "grep"}, {Command: "wc -l *.md | tail -1"}, {Command: "pwd"},
		{Command: "cat ../x"}, {Command: "cat /etc/passwd"}, {Command: "ls ~"}, {Command: "echo $HOME"},
		{Command: "echo \"/etc\" '..'"}, {Command: "/bin/ls"}, {Command: "  /bin/ls"}, {Command: "cd .. && ls"},
		{Command: "printf 'a\\xffb'"}, {Command: "printf 'a\\r\\nb\\rc'"}, {Command: "printf '\\xe2\\x82' >&2; exit 1"},
		{Command: "exit 3"}, {Command: "false"}, {Command: "true"}, {Command: "ls nope"}, {Command: "echo grep; exit 1"},
		{Command: "sleep 5", Timeout: 1}, {Command: "echo x > new.md"}, {Command: "echo x > new.md && cat new.md"},
		{Command: "ls new.md"}, {Command: "rm -f doc_checking_accounts_blue_account_005.md; ls | wc -l"},
		{Command: "a\x00b"}, {Command: 5}, {Command: nil}, {Command: "find . -name '*platinum*' | sort | head -3"},
		{Command: "awk 'NR<3' INDEX.md"}, {Command: "sed -n '1,3p' INDEX.md"}, {Command: "grep -o 'Gold [A-Za-z]*' -r . | sort | uniq -c | sort -rn | head -3"},
	}
	for _, writes := range []bool{false, true} {
		id := "0a1b2c3d"
		tmp := t.TempDir()
		var docs []map[string]string
		for _, d := range base.Docs() {
			docs = append(docs, map[string]string{"id": d.ID, "title": d.Title, "content": d.Content})
		}
		sh, err := NewShell(ctx, base, ShellSpec{AllowWrites: writes, FileFormat: "md"}, ShellOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer sh.Close()
		se := sh.NewSession()
		se.id = id
		upKB := filepath.Join(tmp, "agentic_search_"+id, "knowledge_base")
		argv, err := sandbox.Argv(ctx, sh.opts.Sandbox, sandbox.Mount{Src: upKB, Dst: se.Dir(), Writable: writes})
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			Files map[string]string `json:"files"`
			Calls [][2]any          `json:"calls"`
		}
		oracletest.JSON(t, cmdline, map[string]any{"documents": docs, "base_temp_dir": tmp, "sandbox_id": id,
			"allow_writes": writes, "file_format": "md", "argv": argv, "commands": common}, &want)

		// The exported files.
		ents, _ := os.ReadDir(sh.kb)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		var upNames []string
		for n := range want.Files {
			upNames = append(upNames, n)
		}
		slices.Sort(upNames)
		if !slices.Equal(names, upNames) {
			t.Fatalf("writes=%v: exported %d files; upstream %d", writes, len(names), len(upNames))
		}
		same := 0
		for _, n := range names {
			b, _ := os.ReadFile(filepath.Join(sh.kb, n))
			if string(b) == want.Files[n] {
				same++
			} else {
				t.Errorf("writes=%v: %s differs from upstream's export", writes, n)
			}
		}
		// The tool outputs.
		equal := 0
		for i, c := range common {
			if c.Timeout != 0 {
				se.shell.opts.Sandbox.Timeout = time.Duration(c.Timeout) * time.Second
			}
			args, _ := json.Marshal(c)
			if c.Timeout != 0 {
				args, _ = json.Marshal(map[string]any{"command": c.Command})
			}
			got, isErr := shellCall(t, ctx, se, string(args))
			se.shell.opts.Sandbox.Timeout = 0
			w := want.Calls[i]
			if got == w[0].(string) && isErr == w[1].(bool) {
				equal++
				continue
			}
			t.Errorf("writes=%v shell(%s):\n got (error=%v): %.400q\nwant (error=%v): %.400q", writes, args, isErr, got, w[1], w[0])
		}
		t.Logf("writes=%v: %d/%d exported files and %d/%d tool outputs equal to upstream's", writes, same, len(names), equal, len(common))
	}
}
