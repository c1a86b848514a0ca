package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestShadowVerdicts: a recorded τ²-bench airline run gets shadow gate
// verdicts on every record (its agent had no gate), so does a τ-bench v1
// list, relabelled with the v1 domain its recorded tasks point to (with
// rescore's notes), and a domain that is not ported is noted, not loaded.
func TestShadowVerdicts(t *testing.T) {
	t.Parallel()
	root := datatest.Repo(t, data.TauBench)
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
	var names []string
	for _, d := range doms {
		names = append(names, d.Name())
	}
	if strings.Join(names, ",") != "airline,taubench-airline" || v1.Records[0].Domain != "taubench-airline" {
		t.Fatalf("LoadDomains: domains %v, v1 records of %s; want airline and taubench-airline", names, v1.Records[0].Domain)
	}
	joined := strings.Join(notes, "\n")
	if !strings.Contains(joined, `"mock" is not ported`) || !strings.Contains(joined, "gpt-4o-airline.json: ") {
		t.Errorf("notes = %q", notes)
	}
	AddShadowVerdicts([]*Source{tau2, v1}, doms)
	for i := range tau2.Records {
		if _, ok := metrics.GateVerdicts(&tau2.Records[i]); !ok {
			t.Fatalf("τ²-bench record %d has no shadow verdicts", i)
		}
	}
	for i := range v1.Records {
		if _, ok := metrics.GateVerdicts(&v1.Records[i]); !ok && len(v1.Records[i].Messages) > 0 {
			t.Fatalf("v1 record %d has no shadow verdicts", i)
		}
	}
}
