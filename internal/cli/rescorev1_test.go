package cli

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
	"github.com/ledgerbench/ledgerbench/results"
)

// TestRescoreV1Telehealth: τ-Trait's recorded GPT-5 telehealth runs (τ-bench
// v1 result lists) rescore to their recorded rewards, one result per entry in
// the list's order.
func TestRescoreV1Telehealth(t *testing.T) {
	files := datatest.TauTraitRecordings(t)
	loaded := map[string]envs.Domain{}
	opts := &rescoreOptions{Criteria: "file", DataDir: datatest.Root(t)}
	sims, agree := 0, 0
	for _, f := range files {
		res, ok, err := rescoreV1(context.Background(), f, opts, loaded, io.Discard)
		if err != nil || !ok {
			t.Fatalf("%s: ok=%v %v", f, ok, err)
		}
		if res.Domain != "telehealth" || res.Sims != 20 || len(res.Missing) > 0 || len(res.Failed) > 0 {
			t.Errorf("%s: domain %q, %d simulations, missing %v, not evaluated %v", f, res.Domain, res.Sims, res.Missing, res.Failed)
		}
		for _, d := range res.Disagree {
			t.Errorf("%s: task %s: recorded %g, ours %g: %v", res.File, d.TaskID, d.Recorded, d.Ours, d.Components)
		}
		recs, err := results.ReadV1(f, results.V1Labels{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != len(recs) {
			t.Fatalf("%s: %d results for %d entries", f, len(res.Results), len(recs))
		}
		for i, sim := range res.Results {
			if sim.SimulationIndex != i || sim.TaskID != recs[i].TaskID || sim.Trial != recs[i].Trial {
				t.Errorf("%s: result %d is entry %d (task %s trial %d); want task %s trial %d", f, i, sim.SimulationIndex, sim.TaskID, sim.Trial, recs[i].TaskID, recs[i].Trial)
			}
		}
		sims += res.Sims
		agree += res.Agree
	}
	if sims != 40 || agree != sims {
		t.Errorf("recorded rewards reproduced: %d/%d; want 40/40", agree, sims)
	}
}

// TestRescoreV1JSON: rescore --json writes one well-formed object per entry
// of a τ-Trait list, with the τ²-bench files' keys, the recorded reward
// reproduced.
func TestRescoreV1JSON(t *testing.T) {
	files := datatest.TauTraitRecordings(t)
	r := mustRun(t, append([]string{"rescore", "--json"}, files...)...)
	want := []string{"file", "simulation_index", "simulation_id", "task_id", "trial", "recorded_reward", "reward", "reward_breakdown", "db_match", "notes"}
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 40 {
		t.Fatalf("rescore --json wrote %d lines for %d files; want 40", len(lines), len(files))
	}
	next := map[string]int{} // the next simulation_index per file
	for i, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		if len(m) != len(want) {
			t.Errorf("line %d has %d keys; want %v: %s", i, len(m), want, l)
		}
		for _, k := range want {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %q: %s", i, k, l)
			}
		}
		var sim rescoreSim
		if err := json.Unmarshal([]byte(l), &sim); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if sim.SimulationIndex != next[sim.File] {
			t.Errorf("line %d: %s simulation_index %d; want %d", i, sim.File, sim.SimulationIndex, next[sim.File])
		}
		next[sim.File]++
		if sim.TaskID == "" || sim.SimulationID == "" || sim.Notes == nil {
			t.Errorf("line %d: empty task_id, simulation_id or notes: %s", i, l)
		}
		if sim.RecordedReward == nil || sim.Reward == nil || math.Abs(*sim.RecordedReward-*sim.Reward) > 1e-6 {
			t.Errorf("line %d: recorded_reward %s, reward %s; want equal", i, m["recorded_reward"], m["reward"])
			continue
		}
		// A run cut off (max_steps) scores 0 unevaluated, as in τ²-bench
		// files: no breakdown, no DB check.
		if evaluated := sim.DBMatch != nil && len(sim.RewardBreakdown) > 0; !evaluated && (sim.DBMatch != nil || sim.RewardBreakdown != nil || *sim.Reward != 0) {
			t.Errorf("line %d: db_match %s, reward_breakdown %s, reward %g; want both or neither (reward 0)", i, m["db_match"], m["reward_breakdown"], *sim.Reward)
		}
	}
	if len(next) != len(files) {
		t.Errorf("lines name %d files; want %d", len(next), len(files))
	}
}

// TestRescoreV1ModifiedData: the pinned-data check applies to τ-Trait lists
// too: a telehealth data file that is not its pin is refused, naming it, and
// --allow-modified-data lets it through with a warning.
func TestRescoreV1ModifiedData(t *testing.T) {
	files := datatest.TauTraitRecordings(t)
	const file = "tau_trait/envs/telehealth/data/appointments.json"
	dir, sum := corruptedData(t, "telehealth", file, `"duration_minutes": `)
	r := execWithData(t, dir, "rescore", files[0])
	if r.code == ExitOK || !strings.Contains(r.errOut, "appointments.json") || !strings.Contains(r.errOut, "--allow-modified-data") {
		t.Errorf("rescore on modified data: exit %d, stderr %q; want a refusal naming appointments.json", r.code, r.errOut)
	}
	r = execWithData(t, dir, "rescore", "--allow-modified-data", files[0])
	if r.code != ExitOK || !strings.Contains(r.errOut, sum) || !strings.Contains(r.out, "telehealth") {
		t.Errorf("rescore --allow-modified-data: exit %d, stdout %q, stderr %q; want a score and a warning naming sha256 %s", r.code, r.out, r.errOut, sum)
	}
}

// TestRescoreV1NotAList: a τ²-bench results file (an object) is left to the
// τ²-bench path.
func TestRescoreV1NotAList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, []byte(`{"simulations": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := rescoreV1(context.Background(), path, &rescoreOptions{Criteria: "file"}, map[string]envs.Domain{}, io.Discard); ok || err != nil {
		t.Errorf("ok=%v err=%v; want not a v1 list", ok, err)
	}
}

// TestRescoreV1OtherDomains: τ-bench v1's airline tasks are not τ²-bench's,
// so its result lists are refused, not scored against the wrong tasks.
func TestRescoreV1OtherDomains(t *testing.T) {
	path := filepath.Join(datatest.Trajectories(t), "sierra-research+tau-bench", "gpt-4o-airline.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no τ-bench v1 airline recording: %v", err)
	}
	_, ok, err := rescoreV1(context.Background(), path, &rescoreOptions{Criteria: "file", DataDir: datatest.Root(t)}, map[string]envs.Domain{}, io.Discard)
	if !ok || err == nil || !strings.Contains(err.Error(), "only telehealth") {
		t.Errorf("ok=%v err=%v; want a refusal", ok, err)
	}
}
