package runplan

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestPlanExecute plans and runs a small offline run through the package
// API, as `experiment` does, then plans it again: the continued run has
// nothing pending and takes its settings from the manifest.
func TestPlanExecute(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	load := func(name string, solo bool, _ domains.Options) (envs.Domain, map[string]string, error) {
		d, err := domains.Load(name, root)
		return d, nil, err
	}
	out := filepath.Join(t.TempDir(), "run")
	opts := Options{DataDir: root, Domain: "retail", Agent: "baseline", Backbone: "sim", UserBackbone: "sim", NoJudge: true,
		BackbonesFile: filepath.Join(t.TempDir(), "none.yaml"), BackbonesOptional: true, Limit: 2, Trials: 2,
		Concurrency: 2, Seed: 300, MaxSteps: 200, MaxErrors: 10, Out: out, LoadDomain: load, HarnessVersion: "test"}
	p, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Units) != 4 || len(p.Pending) != 4 || p.Existing != nil || p.Manifest.Backbone != "sim" {
		t.Fatalf("plan: %d units, %d pending, existing %v, backbone %q", len(p.Units), len(p.Pending), p.Existing != nil, p.Manifest.Backbone)
	}
	prog := runner.NewProgress(len(p.Pending))
	res, err := p.Execute(context.Background(), prog)
	if err != nil {
		t.Fatal(err)
	}
	if snap := prog.Snapshot(); snap.Done != 4 || len(res.Records) != 4 || len(res.Run.Records) != 4 {
		t.Errorf("progress done %d, unit records %d, run records %d; want 4 each", snap.Done, len(res.Records), len(res.Run.Records))
	}
	cont := Options{Out: out, Concurrency: 1, Grace: 0, LoadDomain: load, DataDir: root,
		BackbonesOptional: true, Inherit: func(string) bool { return true }}
	// While the first plan holds the directory, no other can continue it.
	if _, err := New(context.Background(), cont); !errors.Is(err, results.ErrLocked) {
		t.Errorf("plan of a run directory held by another plan: %v; want results.ErrLocked", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := New(context.Background(), cont)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.Existing == nil || len(again.Pending) != 0 || again.Options.Domain != "retail" || again.Options.Trials != 2 {
		t.Errorf("continued plan: existing %v, %d pending, domain %q, trials %d", again.Existing != nil, len(again.Pending), again.Options.Domain, again.Options.Trials)
	}
}
