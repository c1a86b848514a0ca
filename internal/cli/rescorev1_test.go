package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/score/rescore"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestRescoreV1JSON: rescore --json writes one well-formed object per entry
// of a τ-Trait list, with the τ²-bench files' keys, the recorded reward
// reproduced.
func TestRescoreV1JSON(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
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
		var sim rescore.Sim
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
	racetest.PlainOnly(t)
	t.Parallel()
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
