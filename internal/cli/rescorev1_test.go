package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
)

// TestRescoreV1Telehealth: τ-Trait's recorded GPT-5 telehealth runs (τ-bench
// v1 result lists) rescore to their recorded rewards.
func TestRescoreV1Telehealth(t *testing.T) {
	dir := filepath.Join(datatest.Trajectories(t), "collinear-ai+tau-trait")
	files, _ := filepath.Glob(filepath.Join(dir, "*telehealth*.json"))
	if len(files) == 0 {
		t.Skipf("no τ-Trait telehealth recordings in %s", dir)
	}
	loaded := map[string]envs.Domain{}
	sims, agree := 0, 0
	for _, f := range files {
		res, ok, err := rescoreV1(context.Background(), f, datatest.Root(t), loaded)
		if err != nil || !ok {
			t.Fatalf("%s: ok=%v %v", f, ok, err)
		}
		if res.Domain != "telehealth" || res.Sims != 20 || len(res.Missing) > 0 {
			t.Errorf("%s: domain %q, %d simulations, missing %v", f, res.Domain, res.Sims, res.Missing)
		}
		for _, d := range res.Disagree {
			t.Errorf("%s: task %s: recorded %g, ours %g: %v", res.File, d.TaskID, d.Recorded, d.Ours, d.Components)
		}
		sims += res.Sims
		agree += res.Agree
	}
	t.Logf("recorded rewards reproduced: %d/%d", agree, sims)
}

// TestRescoreV1NotAList: a τ²-bench results file (an object) is left to the
// τ²-bench path.
func TestRescoreV1NotAList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, []byte(`{"simulations": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := rescoreV1(context.Background(), path, "", map[string]envs.Domain{}); ok || err != nil {
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
	_, ok, err := rescoreV1(context.Background(), path, datatest.Root(t), map[string]envs.Domain{})
	if !ok || err == nil || !strings.Contains(err.Error(), "only telehealth") {
		t.Errorf("ok=%v err=%v; want a refusal", ok, err)
	}
}
