package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestShadowVerdicts: a recorded τ²-bench airline run gets shadow gate
// verdicts on every record (its agent had no gate), a τ-bench v1 list gets
// none (another tool-output schema), and a domain that is not ported is
// noted, not loaded.
func TestShadowVerdicts(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	trajs := datatest.Trajectories(t)
	tau2, err := Load(filepath.Join(trajs, "sierra-research+tau2-bench", "claude-sonnet-4-5_airline_default_gpt4.1_1trials.json"), Labels{})
	if err != nil {
		t.Skipf("recorded airline run: %v", err)
	}
	v1, err := Load(filepath.Join(trajs, "sierra-research+tau-bench", "gpt-4o-airline.json"), Labels{})
	if err != nil {
		t.Skipf("recorded v1 airline list: %v", err)
	}
	rec := tau2.Records[0]
	rec.Domain = "mock"
	other := &Source{Records: []results.Record{rec}}
	var notes []string
	_, doms := LoadDomains(root, []*Source{tau2, v1, other}, func(n string) { notes = append(notes, n) })
	if len(doms) != 1 || doms[0].Name() != "airline" {
		t.Fatalf("LoadDomains: %d domains; want airline alone", len(doms))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], `"mock" is not ported`) {
		t.Errorf("notes = %q", notes)
	}
	AddShadowVerdicts([]*Source{tau2, v1}, doms)
	for i := range tau2.Records {
		if _, ok := metrics.GateVerdicts(&tau2.Records[i]); !ok {
			t.Fatalf("τ²-bench record %d has no shadow verdicts", i)
		}
	}
	for i := range v1.Records {
		if _, ok := metrics.GateVerdicts(&v1.Records[i]); ok {
			t.Fatalf("v1 record %d got gate verdicts", i)
		}
	}
}
