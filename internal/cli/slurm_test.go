package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestSlurmCluster (opt-in: LEDGERBENCH_SLURM=1, as root, with Debian's
// slurm-wlm and munge installed; .ci/run turns it on when it can install
// them) starts a real one-node Slurm cluster — munged, slurmctld and slurmd
// on a configuration of its own in a temporary directory — submits
// examples/slurm's array job and its merge job (sbatch --dependency), as
// shipped but for the run's size, and checks that the merged run equals a
// single-process run unit by unit.
func TestSlurmCluster(t *testing.T) {
	if os.Getenv("LEDGERBENCH_SLURM") == "" {
		t.Skip("set LEDGERBENCH_SLURM=1 to start a one-node Slurm cluster (needs root, slurm-wlm and munge)")
	}
	if os.Geteuid() != 0 {
		t.Fatal("LEDGERBENCH_SLURM: the cluster's daemons run as root; run the test as root")
	}
	tools := map[string]string{}
	for _, name := range []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo"} {
		p, err := exec.LookPath(name)
		if err != nil {
			for _, dir := range []string{"/usr/sbin", "/usr/bin"} {
				if _, err2 := os.Stat(filepath.Join(dir, name)); err2 == nil {
					p, err = filepath.Join(dir, name), nil
				}
			}
		}
		if err != nil {
			t.Fatalf("LEDGERBENCH_SLURM: %s not found (apt-get install slurm-wlm munge)", name)
		}
		tools[name] = p
	}
	bin := buildBinary(t)
	c := startSlurm(t, tools)

	runs := filepath.Join(c.dir, "runs")
	env := append(os.Environ(), "SLURM_CONF="+c.conf, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"LEDGERBENCH_DATA="+datatest.Root(t), "RUNS="+runs, "TRIALS=2", "EXTRA=--limit 6")
	sbatch := func(args ...string) string {
		cmd := exec.Command(tools["sbatch"], append([]string{"--parsable"}, args...)...)
		cmd.Env, cmd.Dir = env, c.dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sbatch %v: %v\n%s", args, err, out)
		}
		id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
		return id
	}
	array, merge := abs(t, "../../examples/slurm/ledgerbench-array.sbatch"), abs(t, "../../examples/slurm/ledgerbench-merge.sbatch")
	jid := sbatch(array)
	mid := sbatch("--dependency=afterok:"+jid, merge)
	state := c.waitJob(t, mid, 3*time.Minute)
	logs, _ := filepath.Glob(filepath.Join(c.dir, "ledgerbench-*.log"))
	if state != "COMPLETED" {
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", filepath.Base(l), b)
		}
		t.Fatalf("merge job %s ended %s", mid, state)
	}
	if len(logs) != 5 { // four array tasks and the merge
		t.Errorf("job logs %v; want the array's four and the merge's", logs)
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "ledgerbench-merge-"+mid+".log"))
	if err != nil || !strings.Contains(string(b), "12 of 12 simulations") {
		t.Errorf("merge job output (%v):\n%s", err, b)
	}
	merged, err := results.LoadRun(filepath.Join(runs, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "single")
	mustRun(t, append(append([]string{"run"}, exampleRun...), "--quiet", "--out", dir)...)
	single := loadRun(t, dir)
	sameRuns(t, merged.Records, single.Records)
}

// sameRuns compares two runs unit by unit: termination, reward, steps and
// the trajectory's messages (the sim backbone is seeded).
func sameRuns(t *testing.T, got, want []results.Record) {
	t.Helper()
	key := func(r *results.Record) string { return r.TaskID + "#" + strconv.Itoa(r.Trial) }
	byKey := map[string]*results.Record{}
	for i := range got {
		byKey[key(&got[i])] = &got[i]
	}
	if len(got) != len(want) || len(want) == 0 {
		t.Errorf("merged run has %d units; single-process run %d", len(got), len(want))
	}
	for i := range want {
		w := &want[i]
		g := byKey[key(w)]
		if g == nil {
			t.Errorf("unit %s missing from the merged run", key(w))
			continue
		}
		if g.TerminationReason != w.TerminationReason || g.Reward() != w.Reward() || g.Steps != w.Steps || len(g.Messages) != len(w.Messages) {
			t.Errorf("unit %s: merged %s reward %v steps %d (%d messages); single %s %v %d (%d)", key(w),
				g.TerminationReason, g.Reward(), g.Steps, len(g.Messages), w.TerminationReason, w.Reward(), w.Steps, len(w.Messages))
			continue
		}
		for j := range w.Messages {
			if gm, wm := g.Messages[j], w.Messages[j]; gm.Role != wm.Role || gm.Content != wm.Content || len(gm.ToolCalls) != len(wm.ToolCalls) {
				t.Errorf("unit %s message %d differs: %q vs %q", key(w), j, gm.Content, wm.Content)
				break
			}
		}
	}
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// slurmCluster is a running one-node cluster.
type slurmCluster struct {
	dir, conf string
	tools     map[string]string
}

// startSlurm writes a munge key and a slurm.conf into a temporary directory
// and starts munged, slurmctld and slurmd in the foreground as children of
// the test (stopped when it ends), then waits until the node is idle.
func startSlurm(t *testing.T, tools map[string]string) *slurmCluster {
	t.Helper()
	dir := t.TempDir()
	c := &slurmCluster{dir: dir, conf: filepath.Join(dir, "slurm.conf"), tools: tools}
	for _, d := range []string{"key", "sock", "state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "key"), 0o700); err != nil {
		t.Fatal(err)
	}
	// munged checks that the directories above its files are not writable
	// by others: t.TempDir's parents are /tmp (sticky) and a 0700 folder.
	key := make([]byte, 1024)
	f, err := os.Open("/dev/urandom")
	if err == nil {
		_, err = f.Read(key)
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "key", "munge.key"), key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock", "munge.socket")
	c.daemon(t, tools["munged"], "-F", "-f", "--key-file="+filepath.Join(dir, "key", "munge.key"), "--socket="+sock,
		"--pid-file="+filepath.Join(dir, "sock", "munged.pid"), "--log-file="+filepath.Join(dir, "log", "munged.log"),
		"--seed-file="+filepath.Join(dir, "key", "munged.seed"))
	waitFile(t, sock, 10*time.Second)

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	conf := fmt.Sprintf(`ClusterName=ledgerbench
SlurmctldHost=%[1]s
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
AuthType=auth/munge
AuthInfo=socket=%[5]s
CredType=cred/munge
StateSaveLocation=%[2]s/state
SlurmdSpoolDir=%[2]s/spool
SlurmctldPidFile=%[2]s/slurmctld.pid
SlurmdPidFile=%[2]s/slurmd.pid
SlurmctldLogFile=%[2]s/log/slurmctld.log
SlurmdLogFile=%[2]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
MinJobAge=600
NodeName=%[1]s CPUs=2 RealMemory=2048 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, dir, freePort(t), freePort(t), sock)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c.daemon(t, tools["slurmctld"], "-D", "-f", c.conf)
	c.daemon(t, tools["slurmd"], "-D", "-f", c.conf)
	deadline := time.Now().Add(60 * time.Second)
	for {
		cmd := exec.Command(tools["sinfo"], "-h", "-o", "%T")
		cmd.Env = append(os.Environ(), "SLURM_CONF="+c.conf)
		out, _ := cmd.Output()
		if strings.TrimSpace(string(out)) == "idle" {
			return c
		}
		if time.Now().After(deadline) {
			c.logs(t)
			t.Fatalf("the node is not idle after 60s (sinfo: %q)", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// daemon starts a cluster daemon in the foreground; it is stopped (SIGTERM,
// then SIGKILL) when the test ends.
func (c *slurmCluster) daemon(t *testing.T, path string, args ...string) {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.conf)
	out, err := os.Create(filepath.Join(c.dir, "log", filepath.Base(path)+".out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); out.Close(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
}

var jobState = regexp.MustCompile(`JobState=(\S+)`)

// waitJob waits until job id has ended and returns its state.
func (c *slurmCluster) waitJob(t *testing.T, id string, limit time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	for {
		cmd := exec.CommandContext(ctx, c.tools["scontrol"], "show", "job", id)
		cmd.Env = append(os.Environ(), "SLURM_CONF="+c.conf)
		out, _ := cmd.Output()
		if strings.Contains(string(out), "Reason=DependencyNeverSatisfied") {
			return "PENDING (DependencyNeverSatisfied: an array task failed)"
		}
		if m := jobState.FindSubmatch(out); m != nil {
			switch s := string(m[1]); s {
			case "PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED":
			default:
				return s
			}
		}
		select {
		case <-ctx.Done():
			c.logs(t)
			t.Fatalf("job %s has not ended after %s:\n%s", id, limit, out)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// logs prints the daemons' logs (on failure).
func (c *slurmCluster) logs(t *testing.T) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(c.dir, "log", "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		t.Logf("%s:\n%s", filepath.Base(f), b)
	}
}

func waitFile(t *testing.T, path string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		} else if !errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			t.Fatalf("%s not there after %s: %v", path, limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
