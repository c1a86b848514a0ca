package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
	"github.com/ledgerbench/ledgerbench/results"
)

// TestExportRescoreRoundTrip exports a run as τ²-bench results JSON, imports
// it back, and re-scores it: every simulation must agree with itself.
func TestExportRescoreRoundTrip(t *testing.T) {
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
	path := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "toolorchestra_retail_gpt-5_1trial.json")
	r := mustRun(t, "rescore", "--criteria", "record", path)
	if !strings.Contains(r.out, "retail  114   114    0") {
		t.Errorf("rescore --criteria record:\n%s", r.out)
	}
}
