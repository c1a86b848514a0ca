package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `make run` and the binary agree on the data directory: without
// DATA the Makefile passes no --data (the binary's default applies), with
// DATA it passes that directory to every command.
func TestMakefileDataDirectory(t *testing.T) {
	t.Parallel()
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	dryRun := func(env []string, vars ...string) string {
		cmd := exec.Command(mk, append([]string{"-n", "-C", "../..", "run"}, vars...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n run: %v\n%s", err, out)
		}
		return string(out)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEDGERBENCH_DATA=") && !strings.HasPrefix(kv, "DATA=") {
			env = append(env, kv)
		}
	}
	out := dryRun(env)
	var cmds int
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "bin/ledgerbench ") {
			cmds++
			if strings.Contains(line, "--data") {
				t.Errorf("make run passes --data without DATA: %s", line)
			}
		}
	}
	if cmds < 4 {
		t.Errorf("make -n run printed %d ledgerbench commands:\n%s", cmds, out)
	}
	dir := filepath.Join(t.TempDir(), "d")
	for _, line := range strings.Split(dryRun(env, "DATA="+dir), "\n") {
		if strings.HasPrefix(line, "bin/ledgerbench ") && !strings.Contains(line, "--data "+dir) {
			t.Errorf("make run DATA=%s: %s", dir, line)
		}
	}
	// The binary's default without --data or $LEDGERBENCH_DATA.
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skip(err)
	}
	got, err := (&globalOptions{}).dataDir(&Streams{Getenv: func(string) string { return "" }})
	if err != nil || got != filepath.Join(cache, "ledgerbench") {
		t.Errorf("default data dir = %q, %v; want %s", got, err, filepath.Join(cache, "ledgerbench"))
	}
}
