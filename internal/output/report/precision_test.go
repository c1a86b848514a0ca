package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// thirds is a baseline and a ledger group on 3 tasks × 1 trial that pass
// 1 and 2 of them: pass^1 is 1/3 and 2/3, which one decimal rounds.
func thirds() *Report {
	var recs []results.Record
	for _, agent := range []string{"baseline", "ledger"} {
		pass := map[string]int{"baseline": 1, "ledger": 2}[agent]
		for task := range 3 {
			r := results.Record{ID: fmt.Sprint(agent, task), TaskID: fmt.Sprint(task), Domain: "airline", Agent: agent, Backbone: "gpt-4.1",
				UserBackbone: "gpt-4.1", TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{}, AgentCalls: 3}
			if task < pass {
				r.RewardInfo.Reward = 1
			}
			recs = append(recs, r)
		}
	}
	return Build(metrics.Summarize(recs, metrics.Options{}), Options{})
}

// TestMachineFullPrecision: CSV and JSON carry pass^k (and every other
// number a text cell rounds) at full precision, in the unit the column
// names.
func TestMachineFullPrecision(t *testing.T) {
	t.Parallel()
	rep := thirds()
	third, twoThirds := 100*(1.0/3), 100*(2.0/3)
	cases := []struct {
		table string
		col   string
		row   int
		want  float64
	}{
		{TableOverview, "pass^1", 0, third},
		{TableOverview, "pass^1", 1, twoThirds},
		{TableOverview, "Avg reward", 0, 1.0 / 3},
		{TableMain, "pass^1 baseline", 0, third},
		{TableMain, "pass^1 ledger", 0, twoThirds},
		{TableMain, "Δ pass^1", 0, twoThirds - third},
		{TableComparison, "Δ pass^1", 1, twoThirds - third},
	}
	var js bytes.Buffer
	if err := rep.Write(&js, JSON); err != nil {
		t.Fatal(err)
	}
	var got JSONReport
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.table+" "+tc.col, func(t *testing.T) {
			var tb *TableJSON
			for i := range got.Tables {
				if got.Tables[i].ID == tc.table {
					tb = &got.Tables[i]
				}
			}
			if tb == nil {
				t.Fatalf("no table %s", tc.table)
			}
			col := -1
			for i, h := range tb.Header {
				if h == tc.col || h == tc.col+" (%)" {
					col = i
				}
			}
			if col < 0 || tc.row >= len(tb.Rows) {
				t.Fatalf("no column %q or row %d in %v", tc.col, tc.row, tb.Header)
			}
			if v, ok := tb.Rows[tc.row][col].(float64); !ok || math.Abs(v-tc.want) > 1e-12 {
				t.Errorf("JSON %s row %d %s = %v; want %v", tc.table, tc.row, tc.col, tb.Rows[tc.row][col], tc.want)
			}

			var b bytes.Buffer
			if err := rep.Write(&b, CSV, tc.table); err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(&b).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if v, err := strconv.ParseFloat(rows[tc.row+1][col], 64); err != nil || math.Abs(v-tc.want) > 1e-12 {
				t.Errorf("CSV %s row %d %s = %q; want %v", tc.table, tc.row, tc.col, rows[tc.row+1][col], tc.want)
			}
		})
	}
	// The text table still rounds.
	over, _ := rep.Table(TableOverview)
	if over.Rows[0][8] != "33.3" {
		t.Errorf("text pass^1 %q; want 33.3", over.Rows[0][8])
	}
}
