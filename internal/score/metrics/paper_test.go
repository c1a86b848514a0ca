package metrics_test

import (
	"math"
	"slices"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// TestWriteSubsetShares checks the environment-changing subset of each
// registered domain against the paper's shares (52% airline, 91% retail, 82%
// telecom of τ²-bench's base split; 95% telehealth).
func TestWriteSubsetShares(t *testing.T) {
	t.Parallel()
	paper := map[string]float64{"airline": 52, "retail": 91, "telecom": 82, "telehealth": 95}
	split := map[string]string{"airline": "base", "retail": "base", "telecom": "base"}
	for _, name := range []string{"airline", "retail", "telecom", "telehealth"} {
		t.Run(name, func(t *testing.T) {
			if !slices.Contains(domains.Names(), name) {
				t.Skipf("domain %s is not registered yet", name)
			}
			dom, err := domains.Load(name, datatest.Root(t))
			if err != nil {
				t.Fatal(err)
			}
			sel, err := dom.Tasks().Select(tasks.Selection{Split: split[name]})
			if err != nil {
				t.Fatal(err)
			}
			cat := metrics.NewDomainCatalog(dom)
			x := metrics.NewGoldIndex(cat, nil)
			writes := 0
			for _, task := range sel {
				w, known := x.Gold(name, task.ID).HasWrite()
				if !known {
					t.Fatalf("task %s: membership unknown", task.ID)
				}
				if w {
					writes++
				}
			}
			share := 100 * float64(writes) / float64(len(sel))
			t.Logf("%s: %d of %d tasks have a gold write (%.1f%%)", name, writes, len(sel), share)
			if math.Round(share) != paper[name] {
				t.Errorf("%s write share = %.1f%%; the paper reports %.0f%%", name, share, paper[name])
			}
		})
	}
}
