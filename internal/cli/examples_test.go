package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// The Slurm array script and the Kubernetes Indexed Job manifest
// in examples/ run shards locally (with the variables the schedulers set),
// merge, and give the same run as one unsharded run. They run offline as
// shipped (sim backbone, no key: NL assertions unjudged); only the size of
// the run is changed here.

// exampleRun is the sim run the examples are tested with, kept small.
var exampleRun = []string{"--domain", "retail", "--agent", "ledger", "--backbone", "sim", "--user-backbone", "sim", "--trials", "2", "--limit", "6", "--no-judge"}

func unshardedRewards(t *testing.T) map[string]float64 {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "full")
	mustRun(t, append(append([]string{"run"}, exampleRun...), "--quiet", "--out", dir)...)
	return keyedRewards(t, dir)
}

func keyedRewards(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for k, v := range rewards(loadRun(t, dir)) {
		out[k.TaskID+"#"+strconv.Itoa(k.Trial)] = v
	}
	return out
}

func sameRewards(t *testing.T, got, want map[string]float64) {
	t.Helper()
	if len(got) != len(want) || len(want) == 0 {
		t.Errorf("merged run has %d units; unsharded %d", len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("unit %s: merged reward %v (present %v); unsharded %v", k, g, ok, w)
		}
	}
}

func TestSlurmArrayExample(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	bin := buildBinary(t)
	runs := filepath.Join(t.TempDir(), "runs")
	script, merge := "../../examples/slurm/ledgerbench-array.sbatch", "../../examples/slurm/ledgerbench-merge.sbatch"
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^#SBATCH --array=(\d+)-(\d+)$`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatal("the script has no #SBATCH --array=LO-HI line")
	}
	lo, _ := strconv.Atoi(m[1])
	hi, _ := strconv.Atoi(m[2])
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"LEDGERBENCH_DATA="+datatest.Root(t), "RUNS="+runs, "DOMAIN=retail", "AGENT=ledger", "BACKBONE=sim", "TRIALS=2",
		"EXTRA=--limit 6", "SLURM_ARRAY_TASK_MIN="+m[1], "SLURM_ARRAY_TASK_COUNT="+strconv.Itoa(hi-lo+1))
	sh := func(path string, extra ...string) string {
		cmd := exec.Command(bash, path)
		cmd.Env = append(env, extra...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash %s %v: %v\n%s", path, extra, err, out)
		}
		return string(out)
	}
	for id := lo; id <= hi; id++ {
		out := sh(script, "SLURM_ARRAY_TASK_ID="+strconv.Itoa(id))
		if want := "shard " + strconv.Itoa(id-lo+1) + "/" + strconv.Itoa(hi-lo+1); !strings.Contains(out, want) {
			t.Errorf("array task %d: output lacks %q:\n%s", id, want, out)
		}
	}
	// Rerunning a finished array task resumes it: nothing is run twice.
	sh(script, "SLURM_ARRAY_TASK_ID="+strconv.Itoa(lo))
	report := sh(merge)
	if !strings.Contains(report, "12 of 12 simulations") {
		t.Errorf("merge job output:\n%s", report)
	}
	sameRewards(t, keyedRewards(t, filepath.Join(runs, "merged")), unshardedRewards(t))
}

// indexedJob is the part of a Job manifest the test reads.
type indexedJob struct {
	Kind string `yaml:"kind"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func TestKubernetesIndexedJobExample(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	b, err := os.ReadFile("../../examples/kubernetes/ledgerbench-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job indexedJob
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	if job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || job.Spec.Completions < 2 || len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("not an Indexed Job with completions: %+v", job)
	}
	c := job.Spec.Template.Spec.Containers[0]
	if len(c.Command) != 1 || c.Command[0] != "ledgerbench" {
		t.Fatalf("command %v; want ledgerbench", c.Command)
	}
	if !slices.Contains(c.Args, "--shard-count="+strconv.Itoa(job.Spec.Completions)) {
		t.Errorf("args %v: --shard-count must equal completions (%d)", c.Args, job.Spec.Completions)
	}
	runs := filepath.Join(t.TempDir(), "runs")
	var shards []string
	for idx := range job.Spec.Completions {
		// What Kubernetes does: $(VAR) in args expands from the container's
		// environment, JOB_COMPLETION_INDEX included.
		env := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(idx)}
		for _, e := range c.Env {
			env[e.Name] = e.Value
		}
		var args []string
		for _, a := range c.Args {
			a = regexp.MustCompile(`\$\((\w+)\)`).ReplaceAllStringFunc(a, func(v string) string { return env[v[2:len(v)-1]] })
			a = strings.ReplaceAll(a, "/runs/", runs+"/")
			switch {
			case strings.HasPrefix(a, "--trials="):
				a = "--trials=2"
			case strings.HasPrefix(a, "--domain="), strings.HasPrefix(a, "--agent="), strings.HasPrefix(a, "--backbone="), strings.HasPrefix(a, "--user-backbone="):
				// The test compares with exampleRun: keep it the same run.
				a = strings.SplitN(a, "=", 2)[0] + "=" + flagValue(exampleRun, strings.SplitN(a, "=", 2)[0])
			}
			args = append(args, a)
			if strings.HasPrefix(a, "--out=") {
				shards = append(shards, strings.TrimPrefix(a, "--out="))
			}
		}
		args = append(args, "--limit=6") // the manifest's own flags otherwise: it runs offline as shipped
		r := execEnv(t, env, append([]string{"--data", datatest.Root(t)}, args...)...)
		if r.code != ExitOK {
			t.Fatalf("pod %d: ledgerbench %s: exit %d\n%s", idx, strings.Join(args, " "), r.code, r.errOut)
		}
		if want := "shard " + strconv.Itoa(idx+1) + "/" + strconv.Itoa(job.Spec.Completions) + " (from JOB_COMPLETION_INDEX)"; !strings.Contains(r.errOut, want) {
			t.Errorf("pod %d: stderr lacks %q:\n%s", idx, want, r.errOut)
		}
	}
	merged := filepath.Join(runs, "job", "merged")
	mustRun(t, append([]string{"merge", merged}, shards...)...)
	sameRewards(t, keyedRewards(t, merged), unshardedRewards(t))
}

// execEnv runs the command line in process with env as its environment.
func execEnv(t *testing.T, env map[string]string, args ...string) execResult {
	t.Helper()
	var out, errOut strings.Builder
	s := &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(k string) string { return env[k] }}
	code := Execute(t.Context(), s, args)
	return execResult{code: code, out: out.String(), errOut: errOut.String()}
}

func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// TestDockerfile: the image the Kubernetes example names is the
// repository's Dockerfile: a static build (CGO_ENABLED=0) of cmd/ledgerbench
// on the Go version of go.mod, the data pulled (and checked) into the
// directory the Job's LEDGERBENCH_DATA names, that variable set in the
// image, and ledgerbench on its PATH. (No Docker engine runs in the tests:
// the file is read, not built.)
func TestDockerfile(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(string(mod))
	m, err := os.ReadFile("../../examples/kubernetes/ledgerbench-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job indexedJob
	if err := yaml.Unmarshal(m, &job); err != nil {
		t.Fatal(err)
	}
	data := ""
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if e.Name == "LEDGERBENCH_DATA" {
			data = e.Value
		}
	}
	if goVersion == nil || data == "" {
		t.Fatalf("go.mod version %v, the Job's LEDGERBENCH_DATA %q", goVersion, data)
	}
	for _, want := range []string{
		"ARG GO_VERSION=" + goVersion[1],
		"CGO_ENABLED=0 go build",
		"./cmd/ledgerbench",
		"data pull --data " + data,
		"data check --data " + data,
		"COPY --from=build " + data + " " + data,
		"ENV LEDGERBENCH_DATA=" + data,
		"/usr/local/bin/ledgerbench",
		"docker build -t ledgerbench:latest",
	} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if !strings.Contains(string(m), "image: ledgerbench:latest") {
		t.Errorf("the Job does not name the image ledgerbench:latest")
	}
}
