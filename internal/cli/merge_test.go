package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
)

func rewards(run *results.Run) map[results.UnitKey]float64 {
	out := map[results.UnitKey]float64{}
	for _, r := range run.Records {
		out[r.Key()] = r.Reward()
	}
	return out
}

func TestShardsMergeToTheFullRun(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	tmp := t.TempDir()
	full := filepath.Join(tmp, "full")
	mustRun(t, append(simArgs, "--out", full, "--quiet")...)
	var shards []string
	for _, sh := range []string{"1/3", "2/3", "3/3"} {
		dir := filepath.Join(tmp, "shard"+strings.ReplaceAll(sh, "/", "of"))
		mustRun(t, append(simArgs, "--out", dir, "--shard", sh, "--quiet")...)
		shards = append(shards, dir)
	}
	merged := filepath.Join(tmp, "merged")
	r := mustRun(t, append([]string{"merge", merged}, shards...)...)
	if !strings.Contains(r.out, "12 of 12 simulations") {
		t.Errorf("merge output: %s", r.out)
	}
	want, got := rewards(loadRun(t, full)), rewards(loadRun(t, merged))
	if len(got) != len(want) {
		t.Fatalf("merged %d units; want %d", len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("unit %v: merged reward %v (present %v); full run %v", k, g, ok, w)
		}
	}
	m := loadRun(t, merged).Manifest
	if m.Shard != "" || len(m.MergedFrom) != 3 {
		t.Errorf("merged manifest shard %q, merged_from %v", m.Shard, m.MergedFrom)
	}
	if n := rawLines(t, merged); n != 12 {
		t.Errorf("merged file has %d lines; want 12", n)
	}
	// Resuming the merged run has nothing left to do.
	r = mustRun(t, "run", "--out", merged)
	if !strings.Contains(r.errOut, "0 to run") {
		t.Errorf("resume of the merged run: %s", r.errOut)
	}
}

func TestMergeRefuses(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	tmp := t.TempDir()
	a := filepath.Join(tmp, "a")
	b := filepath.Join(tmp, "b")
	gold := filepath.Join(tmp, "gold")
	mustRun(t, append(simArgs, "--out", a, "--shard", "1/2", "--quiet")...)
	mustRun(t, append(simArgs, "--out", b, "--quiet")...) // overlaps a
	goldArgs := append([]string{}, simArgs...)
	goldArgs[4] = "gold"
	mustRun(t, append(goldArgs, "--out", gold, "--shard", "2/2", "--quiet")...)

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"mismatched manifests", []string{"merge", filepath.Join(tmp, "m1"), a, gold}, `backbone: "sim" → "gold"`},
		{"overlapping units", []string{"merge", filepath.Join(tmp, "m2"), a, b}, "recorded in both"},
		{"existing output", []string{"merge", a, b, gold}, "already holds a run"},
		{"not a run", []string{"merge", filepath.Join(tmp, "m3"), a, tmp}, "not a run directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := execCLI(t, context.Background(), tc.args...)
			if r.code == ExitOK || !strings.Contains(r.errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want failure with %q", r.code, r.errOut, tc.want)
			}
		})
	}
}
