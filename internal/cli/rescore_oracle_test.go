package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// TestRescoreOracle compares, per simulation of every τ²-bench results file
// in ../shared/upstream/trajectories, the rewards of `rescore --criteria
// domain` and of the replayed run (`run --backbone replay:F --user-backbone
// replay:F`) with upstream's own re-evaluation, normally
// testdata/oracle/tau2_evaluate.py (what `tau2 evaluate-trajs --fresh-tasks`
// does, with upstream's evaluator from a tau2-bench checkout):
//
//	TAU2_SRC=/path/to/tau2-bench/src TAU2_DATA_DIR=/path/to/data/tau2-bench/data \
//	LEDGERBENCH_TAU2_EVAL_ORACLE="python3 testdata/oracle/tau2_evaluate.py" \
//	go test ./internal/cli -run RescoreOracle
//
// The oracle writes one JSON object per simulation (file, simulation_index,
// task_id, trial, reward, error). NL assertions are judged by neither side:
// both use the recorded NL verdict. Skipped unless the variable is set.
func TestRescoreOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_TAU2_EVAL_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_TAU2_EVAL_ORACLE not set")
	}
	files, err := filepath.Glob(filepath.Join(recordedDir(t), "*.json"))
	if err != nil || len(files) == 0 {
		t.Skipf("no τ²-bench results files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := oracleRewards(t, cmdline, path)
			sims := rescoreJSON(t, "--criteria", "domain", path)
			if len(sims) != len(want) {
				t.Fatalf("rescore: %d simulations; oracle %d", len(sims), len(want))
			}
			agree := 0
			for i, s := range sims {
				if w := want[i]; w.Error != "" || w.Reward == nil {
					t.Errorf("simulation %d (task %s): upstream could not evaluate it: %s", i, s.TaskID, w.Error)
				} else if s.Reward == nil || math.Abs(*s.Reward-*w.Reward) > 1e-6 {
					t.Errorf("rescore simulation %d (task %s trial %d): %v; upstream %v (notes %q)", i, s.TaskID, s.Trial, deref(s.Reward), *w.Reward, s.Notes)
				} else {
					agree++
				}
			}
			t.Logf("rescore --criteria domain: %d of %d simulations agree with upstream", agree, len(sims))
			replayAgainstOracle(t, path, want)
		})
	}
}

func recordedDir(t *testing.T) string {
	return filepath.Dir(recordedFile(t, "claude-sonnet-4-5_airline_default_gpt4.1_1trials.json"))
}

type oracleSim struct {
	SimulationIndex int      `json:"simulation_index"`
	TaskID          string   `json:"task_id"`
	Trial           int      `json:"trial"`
	Reward          *float64 `json:"reward"`
	Error           string   `json:"error"`
}

func oracleRewards(t *testing.T, cmdline, path string) []oracleSim {
	t.Helper()
	out := oracletest.Output(t, cmdline, nil, os.Stderr, path)
	var sims []oracleSim
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var s oracleSim
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("oracle line %q: %v", sc.Text(), err)
		}
		if s.SimulationIndex != len(sims) {
			t.Fatalf("oracle line %d has simulation_index %d", len(sims), s.SimulationIndex)
		}
		sims = append(sims, s)
	}
	return sims
}

// replayAgainstOracle replays the file's conversations through our
// orchestrator and compares each simulation's reward with upstream's.
func replayAgainstOracle(t *testing.T, path string, want []oracleSim) {
	t.Helper()
	f, err := results.ReadTau2(path)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := f.Meta()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := results.FromTau2(f)
	if err != nil {
		t.Fatal(err)
	}
	type key = results.UnitKey
	upstream := map[key]float64{}
	recordedNL := map[key]float64{}
	var ids []string
	trials := 0
	for i, r := range recs {
		if want[i].Reward != nil {
			upstream[r.Key()] = *want[i].Reward
		}
		nl := 1.0
		if r.RewardInfo != nil {
			if v, ok := r.RewardInfo.RewardBreakdown[tasks.RewardNLAssertion]; ok {
				nl = v
			}
		}
		recordedNL[r.Key()] = nl
		if !slices.Contains(ids, r.TaskID) {
			ids = append(ids, r.TaskID)
		}
		trials = max(trials, r.Trial+1)
	}
	dir := filepath.Join(t.TempDir(), "replay")
	args := []string{"run", "--domain", meta.Domain, "--backbone", "replay:" + path, "--user-backbone", "replay:" + path,
		"--no-judge", "--trials", strconv.Itoa(trials), "--task-ids", strings.Join(ids, ","), "--out", dir, "--quiet"}
	if meta.Domain == "telecom" {
		args = append(args, "--split", "full") // upstream re-grades against every task of tasks.json
	}
	mustRun(t, args...)
	agree, n := 0, 0
	for _, r := range loadRun(t, dir).Records {
		w, ok := upstream[r.Key()]
		if !ok {
			continue // a unit the file does not record for every trial
		}
		n++
		got := r.Reward()
		if r.RewardInfo != nil && slices.Contains(r.RewardInfo.NotEvaluated, tasks.RewardNLAssertion) {
			got *= recordedNL[r.Key()]
		}
		if r.TerminationReason == evaluator.InfrastructureError || math.Abs(got-w) > 1e-6 {
			t.Errorf("replay task %s trial %d: %v (%s %s); upstream %v", r.TaskID, r.Trial, got, r.TerminationReason, r.Error, w)
			continue
		}
		agree++
	}
	t.Logf("replayed run: %d of %d simulations agree with upstream", agree, n)
}
