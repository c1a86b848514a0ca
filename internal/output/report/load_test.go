package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func TestLoadKinds(t *testing.T) {
	t.Parallel()
	traj := datatest.Trajectories(t)
	v1, err := Load(filepath.Join(traj, "sierra-research+tau-bench", "gpt-4o-airline.json"), Labels{Agent: "tool-calling"})
	if err != nil {
		t.Fatal(err)
	}
	if v1.Kind != V1 || len(v1.Records) != 200 || v1.Records[0].Agent != "tool-calling" || v1.Records[0].Domain != "airline" {
		t.Errorf("v1: kind %s, %d records, labels %q/%q", v1.Kind, len(v1.Records), v1.Records[0].Domain, v1.Records[0].Agent)
	}
	t2, err := Load(filepath.Join(traj, "sierra-research+tau2-bench", "2025-08-10_telecom_llm_agent_gpt-4o_user_simulator_gpt-4o.json"), Labels{Agent: "baseline"})
	if err != nil {
		t.Fatal(err)
	}
	if t2.Kind != Tau2 || len(t2.Records) != 20 || len(t2.Tasks) == 0 || t2.Plan.Trials != 1 || t2.Records[0].Agent != "baseline" || t2.Records[0].Domain != "telecom" {
		t.Errorf("tau2: kind %s, %d records, %d tasks, plan %+v, agent %q", t2.Kind, len(t2.Records), len(t2.Tasks), t2.Plan, t2.Records[0].Agent)
	}

	// A run directory, given as the directory or as its simulations.jsonl.
	dir := filepath.Join(t.TempDir(), "run")
	m := &results.Manifest{Domain: "retail", Agent: "baseline", Backbone: "sim", UserBackbone: "sim", Trials: 2, TaskIDs: []string{"0", "1"}}
	if err := results.Create(dir, m); err != nil {
		t.Fatal(err)
	}
	w, err := results.OpenWriter(filepath.Join(dir, results.SimulationsFile))
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 2 {
		w.Write(results.Record{TaskID: "0", Trial: trial, Domain: "retail", Agent: "baseline", Backbone: "sim", UserBackbone: "sim",
			TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: 1}})
	}
	w.Close()
	for _, in := range []string{dir, filepath.Join(dir, results.SimulationsFile)} {
		run, err := Load(in, Labels{})
		if err != nil {
			t.Fatal(err)
		}
		if run.Kind != RunDir || len(run.Records) != 2 || run.Plan.Trials != 2 {
			t.Errorf("%s: kind %s, %d records, plan %+v", in, run.Kind, len(run.Records), run.Plan)
		}
		sums := Summarize([]*Source{run}, nil)
		if len(sums) != 1 || sums[0].Tasks != 2 || len(sums[0].Incomplete) != 1 || sums[0].Incomplete[0].TaskID != "1" {
			t.Errorf("summary of a run with an unrun task: %+v", sums)
		}
	}

	bad := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(bad, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad, Labels{}); err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Errorf("Load(text file) = %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(empty, Labels{}); err == nil {
		t.Error("Load(empty directory) succeeded")
	}
}
