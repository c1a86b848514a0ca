package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestExportRescoreRoundTrip exports a run as τ²-bench results JSON, imports
// it back, and re-scores it: every simulation must agree with itself.
func TestExportRescoreRoundTrip(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "run")
	mustRun(t, "run", "--domain", "retail", "--backbone", "sim", "--no-judge", "--limit", "10", "--trials", "2", "--out", dir, "--quiet")
	out := filepath.Join(tmp, "results.json")
	r := mustRun(t, "export", "--format", "tau2", dir, out)
	if !strings.Contains(r.out, "wrote 20 simulations of 10 tasks") {
		t.Errorf("export output: %s", r.out)
	}
	f, err := results.ReadTau2(out)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := results.FromTau2(f)
	if err != nil {
		t.Fatal(err)
	}
	orig := loadRun(t, dir)
	want := rewards(orig)
	if len(recs) != 20 {
		t.Fatalf("imported %d records; want 20", len(recs))
	}
	for _, rec := range recs {
		if w, ok := want[rec.Key()]; !ok || w != rec.Reward() {
			t.Errorf("unit %v: imported reward %v; run %v", rec.Key(), rec.Reward(), w)
		}
	}
	for _, criteria := range []string{"file", "domain", "record"} {
		r = mustRun(t, "rescore", "--criteria", criteria, out)
		if !strings.Contains(r.out, "results.json  retail  20    20     0") {
			t.Errorf("rescore --criteria %s of our own export:\n%s", criteria, r.out)
		}
	}
}

func TestExportUnknownFormat(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	r := execCLI(t, t.Context(), "export", "--format", "csv", "a", "b")
	if r.code != ExitUsage {
		t.Errorf("exit %d; want %d", r.code, ExitUsage)
	}
}

// TestRescoreRecordedRetail re-scores τ²-bench's recorded retail run. With
// the criteria rebuilt from the recorded reward infos every simulation must
// agree; with the file's tasks, the simulations whose labels do not match
// their evaluation are scored against the task they were evaluated on.
func TestRescoreRecordedRetail(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	path := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "toolorchestra_retail_gpt-5_1trial.json")
	r := mustRun(t, "rescore", "--criteria", "record", path)
	if !strings.Contains(r.out, "retail  114   114    0") {
		t.Errorf("rescore --criteria record:\n%s", r.out)
	}
}

// TestExportRescoreEveryDomain: `export --format tau2` of a sim run of every
// task, then `rescore`, agrees on every simulation for each domain (retail's
// tasks 95–113, whose action ids name the next task, included).
func TestExportRescoreEveryDomain(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("full sim runs of three domains; skipped with -short")
	}
	for _, tc := range []struct {
		domain string
		sims   int
	}{{"airline", 50}, {"retail", 114}, {"telecom", 114}} {
		t.Run(tc.domain, func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "run")
			mustRun(t, "run", "--domain", tc.domain, "--backbone", "sim", "--no-judge", "--trials", "1", "--out", dir, "--quiet")
			out := filepath.Join(tmp, "results.json")
			mustRun(t, "export", "--format", "tau2", dir, out)
			want := rewards(loadRun(t, dir))
			for _, criteria := range []string{"file", "domain"} {
				sims := rescoreJSON(t, "--criteria", criteria, out)
				if len(sims) != tc.sims {
					t.Fatalf("--criteria %s: %d simulations; want %d", criteria, len(sims), tc.sims)
				}
				for _, s := range sims {
					w, ok := want[results.UnitKey{TaskID: s.TaskID, Trial: s.Trial}]
					if !ok || s.Reward == nil || !sameReward(s.Reward, s.RecordedReward) || math.Abs(*s.Reward-w) > 1e-9 {
						t.Errorf("--criteria %s: task %s trial %d: rescored %v, exported %v, run %v (notes %q)", criteria, s.TaskID, s.Trial, deref(s.Reward), deref(s.RecordedReward), w, s.Notes)
					}
				}
			}
		})
	}
}
