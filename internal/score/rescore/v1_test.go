package rescore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
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

// TestRescoreV1OtherDomains: a v1 list of an environment no domain ports is
// refused, not scored against the wrong tasks.
func TestRescoreV1OtherDomains(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.json")
	list := `[{"task_id": 0, "reward": 1.0, "info": {}, "trial": 0, "traj": [{"role": "system", "content": "# Banking agent policy"}]}]`
	if err := os.WriteFile(path, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ok, err := fileV1(context.Background(), path, testOptions(t), map[string]envs.Domain{})
	if !ok || err == nil || !strings.Contains(err.Error(), "cannot tell the domain") {
		t.Errorf("ok=%v err=%v; want a refusal", ok, err)
	}
}

// TestRescoreV1AirlineRetail: the τ-Trait airline and retail recordings and τ-bench
// v1's gpt-4o-airline list rescore to their recorded rewards, each on the
// domain its recorded tasks and gold-replay hashes point to.
func TestRescoreV1AirlineRetail(t *testing.T) {
	t.Parallel()
	datatest.Repo(t, data.TauBench, data.TauTrait)
	dir := datatest.Trajectories(t)
	cases := []struct {
		file, domain string
		sims         int
	}{
		{"collinear-ai+tau-trait/confusion_airline.json", "tautrait-airline", 60},
		{"collinear-ai+tau-trait/impatience_retail.json", "tautrait-retail", 120},
		{"sierra-research+tau-bench/gpt-4o-airline.json", "taubench-airline", 200},
	}
	opts := testOptions(t)
	loaded := map[string]envs.Domain{}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("no %s", path)
			}
			res, ok, err := fileV1(context.Background(), path, opts, loaded)
			if err != nil || !ok {
				t.Fatalf("ok=%v %v", ok, err)
			}
			if res.Domain != c.domain || res.Sims != c.sims || res.Agree != c.sims {
				t.Errorf("domain %s, %d simulations, %d agree; want %s, %d all agreeing (disagree %v, missing %v, failed %v)",
					res.Domain, res.Sims, res.Agree, c.domain, c.sims, res.Disagree, res.Missing, res.Failed)
			}
			t.Logf("%s: %s %d/%d agree; notes %q", c.file, res.Domain, res.Agree, res.Sims, res.Notes)
		})
	}
}

// TestRescoreV1Departures: a list whose rewards were scaled (a modified
// branch) is scored with upstream's rule and noted; a list whose tasks match
// no version is an error naming the entry.
func TestRescoreV1Departures(t *testing.T) {
	t.Parallel()
	datatest.Repo(t, data.TauBench, data.TauTrait)
	dir := datatest.Trajectories(t)
	src := filepath.Join(dir, "collinear-ai+tau-trait", "confusion_airline.json")
	list, err := results.ReadV1List(src)
	if err != nil {
		t.Skip(err)
	}
	opts := testOptions(t)
	write := func(t *testing.T, mutate func([]map[string]any)) string {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var l []map[string]any
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatal(err)
		}
		mutate(l)
		out, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "modified_airline.json")
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("scaled rewards", func(t *testing.T) {
		p := write(t, func(l []map[string]any) {
			for _, e := range l {
				if e["reward"] == 1.0 {
					e["reward"] = 0.5
					e["info"].(map[string]any)["reward_info"].(map[string]any)["reward"] = 0.5
				}
			}
		})
		res, _, err := fileV1(context.Background(), p, opts, map[string]envs.Domain{})
		if err != nil {
			t.Fatal(err)
		}
		ones := 0
		for _, e := range list {
			if e.Reward == 1 {
				ones++
			}
		}
		if len(res.Disagree) != ones || !strings.Contains(strings.Join(res.Notes, "\n"), "modified reward code") {
			t.Errorf("%d disagree (want %d), notes %q", len(res.Disagree), ones, res.Notes)
		}
	})
	t.Run("another version", func(t *testing.T) {
		p := write(t, func(l []map[string]any) {
			task := l[3]["info"].(map[string]any)["task"].(map[string]any)
			task["outputs"] = []any{"999"}
		})
		_, _, err := fileV1(context.Background(), p, opts, map[string]envs.Domain{})
		if err == nil || !strings.Contains(err.Error(), "entry 3 (task 3)") || !strings.Contains(err.Error(), "modified_airline.json") {
			t.Errorf("error %v; want one naming the file and entry 3", err)
		}
	})
}
