package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
)

// splitTau2 writes a recorded τ²-bench results file in upstream's directory
// format (Results.save(format="dir")): results.json with timestamp, info,
// tasks and a simulation_index, and simulations/<id>.json.
func splitTau2(t *testing.T, path, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var whole map[string]any
	if err := json.Unmarshal(b, &whole); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "simulations"), 0o755); err != nil {
		t.Fatal(err)
	}
	var index []map[string]any
	for _, s := range whole["simulations"].([]any) {
		sim := s.(map[string]any)
		id := sim["id"].(string)
		var reward any
		if ri, ok := sim["reward_info"].(map[string]any); ok {
			reward = ri["reward"]
		}
		index = append(index, map[string]any{"id": id, "task_id": sim["task_id"], "trial": sim["trial"], "reward": reward,
			"termination_reason": sim["termination_reason"], "agent_cost": sim["agent_cost"], "duration": sim["duration"]})
		sb, _ := json.MarshalIndent(sim, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, "simulations", id+".json"), sb, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	meta := map[string]any{"timestamp": whole["timestamp"], "info": whole["info"], "tasks": whole["tasks"], "simulation_index": index}
	mb, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "results.json"), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	return whole
}

// TestTau2DirectoryFormat: upstream's directory results format is read by
// rescore, report, view and export as the single file it was split from;
// rescore -o writes it back in its format; a directory whose files do not
// match its simulation_index is refused as upstream refuses it.
func TestTau2DirectoryFormat(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	path := recordedFile(t, "2025-08-10_telecom_llm_agent_gpt-4o_user_simulator_gpt-4o.json")
	dir := filepath.Join(t.TempDir(), "run_dir")
	whole := splitTau2(t, path, dir)

	// rescore: the directory and results.json inside it score as the file
	want := rescoreJSON(t, path)
	for _, in := range []string{dir, filepath.Join(dir, "results.json")} {
		got := rescoreJSON(t, in)
		if len(got) != len(want) {
			t.Fatalf("%s: %d simulations; the file has %d", in, len(got), len(want))
		}
		byID := map[string]float64{}
		for _, s := range want {
			byID[s.SimulationID] = *s.Reward
		}
		for _, s := range got {
			if r, ok := byID[s.SimulationID]; !ok || r != *s.Reward {
				t.Errorf("%s: simulation %s reward %v; the file's rescores to %v", in, s.SimulationID, *s.Reward, r)
			}
		}
	}

	// report and view read it; report's tables are the file's
	rf := mustRun(t, "report", "--format", "json", path)
	rd := mustRun(t, "report", "--format", "json", dir)
	if strings.ReplaceAll(rd.out, dir, "X") != strings.ReplaceAll(rf.out, path, "X") {
		t.Errorf("report of the directory differs from the file's:\n%s\n---\n%s", rd.out, rf.out)
	}
	mustRun(t, "view", dir, "--out", filepath.Join(t.TempDir(), "v.html"))

	// export joins it into the single file (plus the index upstream keeps)
	out := filepath.Join(t.TempDir(), "joined.json")
	mustRun(t, "export", "--format", "tau2", dir, out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var joined map[string]any
	if err := json.Unmarshal(b, &joined); err != nil {
		t.Fatal(err)
	}
	if _, ok := joined["simulation_index"]; !ok {
		t.Errorf("joined file lacks simulation_index")
	}
	delete(joined, "simulation_index")
	// simulations/ is read in file-name order, as upstream's sorted glob
	if len(joined["simulations"].([]any)) != len(whole["simulations"].([]any)) {
		t.Fatalf("joined %d simulations; want %d", len(joined["simulations"].([]any)), len(whole["simulations"].([]any)))
	}
	bySim := func(m map[string]any) map[string]any {
		o := map[string]any{}
		for _, s := range m["simulations"].([]any) {
			o[s.(map[string]any)["id"].(string)] = s
		}
		return o
	}
	if !reflect.DeepEqual(bySim(joined), bySim(whole)) || !reflect.DeepEqual(joined["info"], whole["info"]) || !reflect.DeepEqual(joined["tasks"], whole["tasks"]) {
		t.Errorf("joined file differs from the original")
	}

	// rescore -o keeps the format: updated_<dir>/results.json + simulations/
	od := filepath.Join(t.TempDir(), "o")
	mustRun(t, "rescore", "--fresh-tasks", "-o", od, dir)
	upd := filepath.Join(od, "updated_run_dir")
	if _, err := os.Stat(filepath.Join(upd, "simulations")); err != nil {
		t.Fatalf("rescore -o: %v", err)
	}
	again := rescoreJSON(t, "--fresh-tasks", upd)
	if len(again) != len(want) {
		t.Fatalf("updated directory: %d simulations; want %d", len(again), len(want))
	}
	for _, s := range again {
		if s.RecordedReward == nil || *s.RecordedReward != *s.Reward {
			t.Errorf("updated simulation %s records %v, rescores to %v", s.SimulationID, s.RecordedReward, *s.Reward)
		}
	}

	// integrity: a simulation file missing from the index's set
	sims, _ := filepath.Glob(filepath.Join(dir, "simulations", "*.json"))
	if err := os.Remove(sims[0]); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"rescore", dir}, {"report", dir}} {
		r := execCLI(t, t.Context(), args...)
		if r.code != ExitError || !strings.Contains(r.errOut, "missing simulation files") {
			t.Errorf("%v with a file missing: exit %d, %q", args, r.code, r.errOut)
		}
	}
}
