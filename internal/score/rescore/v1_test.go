package rescore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// testOptions load the shared data's domains (without the pinned-data
// check, which is the CLI's).
func testOptions(t *testing.T) *Options {
	root := datatest.Root(t)
	return &Options{Criteria: "file", Load: func(name string, solo bool) (envs.Domain, error) {
		if solo {
			return domains.LoadSolo(name, root)
		}
		return domains.Load(name, root)
	}}
}

// TestRescoreV1Telehealth: τ-Trait's recorded GPT-5 telehealth runs (τ-bench
// v1 result lists) rescore to their recorded rewards, one result per entry in
// the list's order.
func TestRescoreV1Telehealth(t *testing.T) {
	t.Parallel()
	files := datatest.TauTraitRecordings(t)
	loaded := map[string]envs.Domain{}
	opts := testOptions(t)
	sims, agree := 0, 0
	for _, f := range files {
		res, ok, err := fileV1(context.Background(), f, opts, loaded)
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

// TestRescoreV1NotAList: a τ²-bench results file (an object) is left to the
// τ²-bench path.
func TestRescoreV1NotAList(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, []byte(`{"simulations": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := fileV1(context.Background(), path, &Options{Criteria: "file"}, map[string]envs.Domain{}); ok || err != nil {
		t.Errorf("ok=%v err=%v; want not a v1 list", ok, err)
	}
}

// TestRescoreV1OtherDomains: τ-bench v1's airline tasks are not τ²-bench's,
// so its result lists are refused, not scored against the wrong tasks.
func TestRescoreV1OtherDomains(t *testing.T) {
	t.Parallel()
	path := filepath.Join(datatest.Trajectories(t), "sierra-research+tau-bench", "gpt-4o-airline.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no τ-bench v1 airline recording: %v", err)
	}
	_, ok, err := fileV1(context.Background(), path, testOptions(t), map[string]envs.Domain{})
	if !ok || err == nil || !strings.Contains(err.Error(), "only telehealth") {
		t.Errorf("ok=%v err=%v; want a refusal", ok, err)
	}
}
