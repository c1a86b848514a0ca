package rusage

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// TestSelfCountsWork: the process's CPU time grows by about the work done
// (a busy loop of 50 ms on one thread), and its peak covers memory it
// touched.
func TestSelfCountsWork(t *testing.T) {
	before, ok := Self()
	if !ok {
		t.Skipf("%s counts no process usage", runtime.GOOS)
	}
	buf := make([]byte, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
	}
	after, _ := Self()
	if d := after.CPU - before.CPU; d < 40*time.Millisecond || d > 5*time.Second {
		t.Errorf("CPU time grew by %v over a 50 ms busy loop", d)
	}
	if after.Peak < int64(len(buf)) {
		t.Errorf("peak %d bytes after touching %d", after.Peak, len(buf))
	}
	runtime.KeepAlive(buf)
}

// TestOfChild: a finished child's usage is read (its peak is at least a
// few hundred kilobytes: any process's is).
func TestOfChild(t *testing.T) {
	if _, ok := Self(); !ok {
		t.Skipf("%s counts no process usage", runtime.GOOS)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^$")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	u, ok := Of(cmd.ProcessState)
	if !ok {
		t.Fatal("no usage for a finished child")
	}
	if u.Peak < 256<<10 {
		t.Errorf("child's peak %d bytes", u.Peak)
	}
}
