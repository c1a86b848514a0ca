package submit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// TestVerifyOracle compares the trajectory checks submit prepare and
// validate run (verifyFile) with τ²-bench's own verify_trajectories checks
// (check_format, check_tasks, check_num_trials) on the same files: every
// recorded τ²-bench results file, a ledgerbench export of the airline base
// split, and mutations of them (a simulation dropped or repeated, a task
// removed, added or edited, a file that is no results file).
//
//	TAU2_SRC=/path/to/tau2-bench/src TAU2_DATA_DIR=/path/to/tau2-bench/data \
//	LEDGERBENCH_SUBMIT_ORACLE="python3 testdata/oracle/submit_oracle.py" \
//	go test ./internal/output/submit -run VerifyOracle
//
// Verdicts must agree check by check, and so must the counts upstream
// names (tasks mismatched, tasks with wrong trial counts).
func TestVerifyOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_SUBMIT_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_SUBMIT_ORACLE not set")
	}
	root := datatest.Root(t)
	recorded, _ := filepath.Glob(filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "*.json"))
	if len(recorded) == 0 {
		t.Skip("no recorded τ²-bench results files")
	}
	base := func(domain string) ([]tasks.Task, error) {
		dom, err := domains.Load(domain, root)
		if err != nil {
			return nil, err
		}
		return dom.Tasks().Select(tasks.Selection{Split: "base"})
	}
	dir := t.TempDir()
	files := append([]string(nil), recorded...)

	// A ledgerbench export of the airline base split, 2 trials per task.
	dom, err := domains.Load("airline", root)
	if err != nil {
		t.Fatal(err)
	}
	bt, err := base("airline")
	if err != nil {
		t.Fatal(err)
	}
	var recs []results.Record
	for _, task := range bt {
		for trial := range 2 {
			recs = append(recs, results.Record{ID: fmt.Sprint(task.ID, "-", trial), TaskID: task.ID, Trial: trial, Domain: "airline",
				TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: float64(trial)}})
		}
	}
	export := filepath.Join(dir, "airline_export.json")
	m := &results.Manifest{Domain: "airline", Agent: "baseline", Backbone: "m", UserBackbone: "u", Trials: 2, CreatedAt: "2026-01-01T00:00:00Z"}
	if err := results.WriteTau2(export, m, recs, results.Tau2Env{Policy: dom.Policy(), Tasks: bt}); err != nil {
		t.Fatal(err)
	}
	files = append(files, export)

	// Mutations, each of one results file.
	mutate := func(name, from string, edit func(f map[string]any)) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		var f map[string]any
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		edit(f)
		out, _ := json.Marshal(f)
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	list := func(f map[string]any, key string) []any { return f[key].([]any) }
	mutate("export_sim_dropped", export, func(f map[string]any) { f["simulations"] = list(f, "simulations")[1:] })
	mutate("export_sim_repeated", export, func(f map[string]any) {
		sims := list(f, "simulations")
		f["simulations"] = append(sims, sims[0], sims[2], sims[4])
	})
	mutate("export_task_removed", export, func(f map[string]any) { f["tasks"] = list(f, "tasks")[1:] })
	mutate("export_task_added", export, func(f map[string]any) {
		ts := list(f, "tasks")
		extra := map[string]any{}
		for k, v := range ts[0].(map[string]any) {
			extra[k] = v
		}
		extra["id"] = "extra-task"
		f["tasks"] = append(ts, extra)
	})
	mutate("export_task_edited", export, func(f map[string]any) {
		for _, i := range []int{3, 7} {
			task := list(f, "tasks")[i].(map[string]any)
			us := task["user_scenario"].(map[string]any)
			ins := us["instructions"].(map[string]any)
			ins["reason_for_call"] = fmt.Sprint(ins["reason_for_call"], " (edited)")
		}
	})
	mutate("recorded_sim_dropped", recorded[0], func(f map[string]any) { f["simulations"] = list(f, "simulations")[2:] })
	notResults := filepath.Join(dir, "not_results.json")
	if err := os.WriteFile(notResults, []byte(`{"info": {"num_trials": "four"}, "tasks": [], "simulations": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, notResults)

	fields := strings.Fields(cmdline)
	cmd := exec.Command(fields[0], append(append(fields[1:], "--verify"), files...)...)
	cmd.Env = append(os.Environ(), "TAU2_DATA_DIR="+cmpOr(os.Getenv("TAU2_DATA_DIR"), filepath.Join(root, "tau2-bench", "data")))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v\n%s", err, stderr.String())
	}
	var got struct {
		Files []struct {
			Path                  string
			Format, Tasks, Trials [2]any
		} `json:"files"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("oracle output: %v\n%s", err, out)
	}
	if len(got.Files) != len(files) {
		t.Fatalf("oracle checked %d files; want %d", len(got.Files), len(files))
	}
	count := regexp.MustCompile(`(?i)(?:task mismatches found in|incorrect trial counts for) (\d+) tasks`)
	agree, checks := 0, 0
	for i, uf := range got.Files {
		name := filepath.Base(files[i])
		_, ours := verifyFile(files[i], name, base)
		mine := map[string]Check{}
		for _, c := range ours {
			mine[c.Name] = c
		}
		for _, pair := range []struct {
			name string
			up   [2]any
		}{{"format", uf.Format}, {"tasks", uf.Tasks}, {"trial counts", uf.Trials}} {
			if pair.up[0] == nil { // upstream stops after a failed format check
				if _, ok := mine[pair.name]; ok {
					t.Errorf("%s: %s checked after a failed format check", name, pair.name)
				}
				continue
			}
			checks++
			c, ok := mine[pair.name]
			upOK, _ := pair.up[0].(bool)
			upMsg, _ := pair.up[1].(string)
			switch {
			case !ok:
				t.Errorf("%s: no %s check; upstream %v %.300q", name, pair.name, upOK, upMsg)
			case c.OK != upOK:
				t.Errorf("%s: %s ours %v (%.300s), upstream %v (%.300s)", name, pair.name, c.OK, c.Detail, upOK, upMsg)
			default:
				um, om := count.FindStringSubmatch(upMsg), count.FindStringSubmatch(c.Detail)
				if (um == nil) != (om == nil) || um != nil && um[1] != om[1] {
					t.Errorf("%s: %s ours %.300q, upstream %.300q: counts differ", name, pair.name, c.Detail, upMsg)
					continue
				}
				agree++
			}
			t.Logf("%s: %s ok=%v (upstream: %.160q; ours: %.160q)", name, pair.name, upOK, upMsg, c.Detail)
		}
	}
	t.Logf("%d of %d checks over %d files agree with upstream's verify_trajectories", agree, checks, len(files))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
