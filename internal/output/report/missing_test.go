package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// shortFixture is the fixture with the kimi-k2.5 ledger runs cut to two
// trials per task: with K = 4 their pass^3 and pass^4 are missing.
func shortFixture(k int) *Report {
	var recs []results.Record
	for _, r := range fixture() {
		if r.Backbone == "kimi-k2.5" && r.Agent == "ledger" && r.Trial >= 2 {
			continue
		}
		recs = append(recs, r)
	}
	return Build(metrics.Summarize(recs, metrics.Options{Catalog: fixtureCatalog{}}), Options{K: k})
}

func TestMissingIsNeverZero(t *testing.T) {
	t.Parallel()
	rep := shortFixture(4)
	main, _ := rep.Table(TableMain)
	var kimi [][]string
	for _, row := range main.Rows {
		if row[0] == "kimi-k2.5" {
			kimi = append(kimi, row)
		}
	}
	if len(kimi) != 3 {
		t.Fatalf("kimi-k2.5 rows: %v", kimi)
	}
	for _, row := range kimi {
		// pass^4 ledger and Δ pass^4 have no data; pass^4 baseline has.
		if row[6] != Missing || row[7] != Missing {
			t.Errorf("row %v: pass^4 ledger %q and Δ %q; want %q", row, row[6], row[7], Missing)
		}
		if row[5] == Missing || row[3] == Missing {
			t.Errorf("row %v: a value with data is marked missing", row)
		}
	}
	if !strings.Contains(strings.Join(main.Notes, "\n"), "2 trial(s) per task: no pass^4") {
		t.Errorf("notes do not name the short group: %v", main.Notes)
	}
	over, _ := rep.Table(TableOverview)
	for _, row := range over.Rows {
		if row[2] == "kimi-k2.5" && row[1] == "ledger" && (row[10] != Missing || row[11] != Missing) {
			t.Errorf("overview %v: pass^3, pass^4 = %q, %q; want %q", row, row[10], row[11], Missing)
		}
	}

	// CSV: the missing cells are empty (null), every other pass^k cell a number.
	var b bytes.Buffer
	if err := rep.Write(&b, CSV, TableMain); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		for i, c := range row[2:] {
			if c == "" {
				if row[0] != "kimi-k2.5" || i+2 < 6 {
					t.Errorf("CSV row %v: empty cell %d", row, i+2)
				}
				continue
			}
			if _, err := strconv.ParseFloat(c, 64); err != nil {
				t.Errorf("CSV row %v: cell %q is not a number", row, c)
			}
		}
	}

	// JSON: null, never 0, for the same cells and in the group's pass_hat_k.
	b.Reset()
	if err := rep.Write(&b, JSON); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tables []struct {
			ID   string
			Rows [][]any
		}
		Groups []struct {
			Agent    string              `json:"agent"`
			Backbone string              `json:"backbone"`
			PassHatK map[string]*float64 `json:"pass_hat_k"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, tb := range got.Tables {
		if tb.ID != TableMain {
			continue
		}
		for _, row := range tb.Rows {
			if row[0] == "kimi-k2.5" && (row[6] != nil || row[7] != nil) {
				t.Errorf("JSON table2 row %v: want null pass^4 ledger and Δ", row)
			}
		}
	}
	for _, g := range got.Groups {
		if g.Backbone == "kimi-k2.5" && g.Agent == "ledger" {
			if g.PassHatK["1"] == nil || g.PassHatK["2"] == nil {
				t.Errorf("pass_hat_k %v: pass^1, pass^2 have data", g.PassHatK)
			}
		}
	}
}

func TestJSONHonoursTable(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := fixtureReport().Write(&b, JSON, TableMain, TableComparison); err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["groups"]; ok {
		t.Error("JSON with --table carries the groups")
	}
	var tables []TableJSON
	if err := json.Unmarshal(got["tables"], &tables); err != nil {
		t.Fatal(err)
	}
	if len(tables) != 2 || tables[0].ID != TableMain || tables[1].ID != TableComparison {
		t.Fatalf("tables %v; want table2 and comparison", tables)
	}
	// The same table as the text report: same rows, Δ columns and the token
	// overhead of the comparison, as numbers (at full precision: each rounds
	// to the text's number).
	text, _ := fixtureReport().Table(TableComparison)
	if len(tables[1].Rows) != len(text.Rows) {
		t.Fatalf("comparison has %d rows; text %d", len(tables[1].Rows), len(text.Rows))
	}
	for i, row := range tables[1].Rows {
		for j, v := range row {
			want := value(text.Rows[i][j])
			if w, ok := want.(float64); ok {
				if f, ok := v.(float64); !ok || math.Abs(f-w) > 0.05+1e-9 {
					t.Errorf("comparison row %d cell %d = %v; text %q", i, j, v, text.Rows[i][j])
				}
				continue
			}
			if v != want {
				t.Errorf("comparison row %d cell %d = %v; text %q", i, j, v, text.Rows[i][j])
			}
		}
	}
	if h := tables[1].Header; !strings.Contains(strings.Join(h, "|"), "Tokens (%)") {
		t.Errorf("comparison header %v lacks the token overhead in %%", h)
	}
}

func TestMachineCells(t *testing.T) {
	t.Parallel()
	tb := Table{Header: []string{"A", "B", "C", "D"}, Rows: [][]string{
		{"x", "12.5 (3)", "2/3", "+5.0%"},
		{"y", Missing, "1/4", "-2.5%"},
	}}
	m := machine(tb)
	wantH := []string{"A", "B", "B n", "C", "C of", "D (%)"}
	if strings.Join(m.Header, ",") != strings.Join(wantH, ",") {
		t.Errorf("header %v; want %v", m.Header, wantH)
	}
	want := [][]any{{"x", 12.5, 3.0, 2.0, 3.0, 5.0}, {"y", nil, nil, 1.0, 4.0, -2.5}}
	for i := range want {
		for j := range want[i] {
			if m.Rows[i][j] != want[i][j] {
				t.Errorf("row %d cell %d = %v; want %v", i, j, m.Rows[i][j], want[i][j])
			}
		}
	}
}

// TestOverheadWithoutBaselineUsage: an agent's token overhead over a
// baseline that used no tokens (an offline backbone) is missing, not +0.0%.
func TestOverheadWithoutBaselineUsage(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	for _, agent := range []string{"baseline", "ledger"} {
		recs = append(recs, results.Record{ID: agent, TaskID: "1", Domain: "airline", Agent: agent, Backbone: "sim", UserBackbone: "sim",
			TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: 1}, Simulated: true})
	}
	rep := Build(metrics.Summarize(recs, metrics.Options{}), Options{})
	cmp, _ := rep.Table(TableComparison)
	for _, row := range cmp.Rows {
		if row[1] != "ledger" {
			continue
		}
		for _, c := range row[len(row)-3:] {
			if c != Missing {
				t.Errorf("overhead cells %v; want %q for a baseline without usage", row[len(row)-3:], Missing)
			}
		}
	}
}

// TestCostsKnownOnly: a mean or total with a simulation whose value is
// unknown behind it is missing (the All row's too), never a sum divided by
// simulations that did not record it.
func TestCostsKnownOnly(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	for i := range 4 { // a run directory: usage and costs recorded
		recs = append(recs, results.Record{ID: fmt.Sprint("a", i), TaskID: fmt.Sprint(i), Domain: "airline", Agent: "baseline", Backbone: "gpt-4.1",
			UserBackbone: "gpt-4.1", TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: 1},
			AgentUsage: message.Usage{PromptTokens: 1000}, AgentCalls: 5, AgentCost: 0.25, UserCalls: 2, UserUsage: message.Usage{PromptTokens: 100}})
	}
	for i := range 12 { // a τ-bench v1 list: no usage, no agent cost
		recs = append(recs, results.Record{ID: fmt.Sprint("v", i), TaskID: fmt.Sprint(i), Domain: "airline", Agent: "baseline", Backbone: "gpt-4o",
			TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: 1},
			Unknown: []string{results.UnknownAgentCost, results.UnknownAgentUsage, results.UnknownUserUsage, results.UnknownJudgeCost, results.UnknownJudgeUsage}})
	}
	rep := Build(metrics.Summarize(recs, metrics.Options{}), Options{})
	costs, _ := rep.Table(TableCosts)
	col := func(name string) int {
		for i, h := range costs.Header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	rows := map[string][]string{}
	for _, row := range costs.Rows {
		bb, _, _ := strings.Cut(row[1], " ")
		rows[row[0]+"/"+bb] = row
	}
	cases := []struct {
		row, col, want string
	}{
		{"airline/gpt-4.1", "Agent prompt tok/sim", "1000.0"},
		{"airline/gpt-4.1", "Agent $", "1.0000"},
		{"airline/gpt-4o", "Agent prompt tok/sim", Missing},
		{"airline/gpt-4o", "Agent $", Missing},
		{"airline/gpt-4o", "Total $", Missing},
		{"All/", "Sims", "16"},
		{"All/", "Agent prompt tok/sim", Missing}, // not 4000 / 16
		{"All/", "Agent calls/sim", Missing},
		{"All/", "User tok/sim", Missing},
		{"All/", "Agent $", Missing},
		{"All/", "$/sim", Missing},
	}
	for _, tc := range cases {
		row, ok := rows[tc.row]
		if !ok {
			t.Fatalf("no row %s in %v", tc.row, costs.Rows)
		}
		if got := row[col(tc.col)]; got != tc.want {
			t.Errorf("%s %s = %q; want %q", tc.row, tc.col, got, tc.want)
		}
	}
	if notes := strings.Join(costs.Notes, "\n"); !strings.Contains(notes, "agent cost in 12 of 12") || !strings.Contains(notes, "All: a mean or total is — where any group's value is unknown") {
		t.Errorf("notes %q do not say what is unknown", notes)
	}
}
