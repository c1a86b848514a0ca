package leaderboard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestOracleRankings compares every ranking (each domain and overall, each
// metric) of the pinned submissions and of the toy folder with upstream's
// own Leaderboard (get_top_models, get_top_models_overall): the same
// entries loaded, in the same order, with the same ranks and scores.
//
//	LEDGERBENCH_LEADERBOARD_ORACLE="python3 testdata/oracle/leaderboard_oracle.py" \
//	    TAU2_SRC=<tau2-bench>/src go test ./internal/output/leaderboard -run Oracle
func TestOracleRankings(t *testing.T) {
	cmd := os.Getenv("LEDGERBENCH_LEADERBOARD_ORACLE")
	if cmd == "" || os.Getenv("TAU2_SRC") == "" {
		t.Skip("set LEDGERBENCH_LEADERBOARD_ORACLE and TAU2_SRC (a full tau2-bench src tree) to compare with upstream's leaderboard")
	}
	folders := map[string]string{"toy": filepath.Join("testdata", "toy"), "pinned": data.Tau2Submissions(datatest.Root(t))}
	for name, dir := range folders {
		t.Run(name, func(t *testing.T) {
			var want struct {
				Submissions []string            `json:"submissions"`
				Rankings    map[string][][3]any `json:"rankings"`
			}
			if err := json.Unmarshal(oracletest.Output(t, cmd, nil, os.Stderr, dir), &want); err != nil {
				t.Fatal(err)
			}
			b, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range b.Entries {
				if !e.Legacy {
					ids = append(ids, e.ID)
				}
			}
			if got, w := len(ids), len(want.Submissions); got != w {
				t.Fatalf("%d submissions loaded; upstream loads %d", got, w)
			}
			for i := range ids {
				if ids[i] != want.Submissions[i] {
					t.Errorf("submission %d: %s; upstream %s", i, ids[i], want.Submissions[i])
				}
			}
			cases := 0
			for _, metric := range Metrics() {
				m, _ := ParseMetric(metric)
				for _, domain := range append([]string{""}, "retail", "airline", "telecom", "banking_knowledge") {
					key := domain
					if key == "" {
						key = "overall"
					}
					key += "/" + metric
					got := b.Rank(domain, m, func(e *Entry) bool { return !e.Legacy })
					w := want.Rankings[key]
					if len(got) != len(w) {
						t.Errorf("%s: %d entries; upstream %d", key, len(got), len(w))
						continue
					}
					for i, r := range got {
						if float64(r.Rank) != w[i][0] || r.Entry.ID != w[i][1] || r.Score != w[i][2] {
							t.Errorf("%s #%d: %d %s %v; upstream %v", key, i+1, r.Rank, r.Entry.ID, r.Score, w[i])
						}
						cases++
					}
				}
			}
			t.Logf("%s: %d ranked entries over %d rankings agree with upstream", name, cases, len(want.Rankings))
		})
	}
}
