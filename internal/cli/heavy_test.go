package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/openaitest"
)

// TestHeavyConcurrentMemory runs 1,000 retail simulations at once (the
// binary, against the fake API answering every request after 200ms) and
// reports the process's peak RSS; the target is under 2 GB. A small run
// gives the baseline (loaded domain, runtime), so the difference divided by
// the concurrency is the memory of one running simulation. Opt-in:
// LEDGERBENCH_HEAVY=1 go test -run TestHeavy -v ./internal/cli
func TestHeavyConcurrentMemory(t *testing.T) {
	if os.Getenv("LEDGERBENCH_HEAVY") == "" {
		t.Skip("set LEDGERBENCH_HEAVY=1 to run 1,000 concurrent simulations")
	}
	bin := buildBinary(t)
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Slow(200*time.Millisecond, fakeRetail(r))
	})
	tmp := t.TempDir()
	bb := writeBackbones(t, tmp, srv.BaseURL(), time.Minute)
	run := func(name string, args ...string) (peakKB int64, elapsed time.Duration) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--data", datatest.Root(t), "run", "--domain", "retail", "--backbone", "fake",
			"--backbones", bb, "--quiet", "--out", filepath.Join(tmp, name)}, args...)...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		return ru.Maxrss, time.Since(start) // KB on Linux
	}
	baseKB, baseT := run("base", "--limit", "10", "--trials", "1", "--concurrency", "10")
	const conc = 1000
	heavyKB, heavyT := run("heavy", "--trials", "9", "--concurrency", strconv.Itoa(conc)) // 114×9 = 1026 simulations
	st := srv.Stats()
	perSim := float64(heavyKB-baseKB) / conc
	t.Logf("baseline (10 simulations, concurrency 10): peak RSS %.1f MB in %s", float64(baseKB)/1024, baseT.Round(time.Millisecond))
	t.Logf("1026 simulations, concurrency %d, 200ms per reply: peak RSS %.1f MB in %s (%d requests)", conc, float64(heavyKB)/1024, heavyT.Round(time.Millisecond), st.Requests)
	t.Logf("memory per concurrent simulation: %.0f KB", perSim)
	if heavyKB > 2<<20 {
		t.Errorf("peak RSS %.0f MB; target < 2048 MB", float64(heavyKB)/1024)
	}
}
