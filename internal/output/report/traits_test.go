package report

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func TestTraitColumn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ label, want string }{
		{"", "none"},
		{"none", "none"},
		{"confusion", "confusion"},
		{"impatience=high", "impatience"},
		{"impatience=low,confusion=low,skeptical=medium,incoherence=low", "skeptical"},
		{"impatience=high,confusion=high", "impatience=high,confusion=high"},
		{"incoherence=medium (ignored)", "incoherence (ignored)"},
	} {
		if got := traitColumn(c.label); got != c.want {
			t.Errorf("traitColumn(%q) = %q; want %q", c.label, got, c.want)
		}
	}
}

// traitRecords are 4 tasks × 1 trial of one group, the first `pass` of
// them successful.
func traitRecords(domain, trait string, pass int) []results.Record {
	var out []results.Record
	for i := range 4 {
		r := 0.0
		if i < pass {
			r = 1
		}
		out = append(out, results.Record{ID: trait + strconv.Itoa(i), TaskID: strconv.Itoa(i), Domain: domain, Agent: "baseline",
			Backbone: "gpt-5", UserBackbone: "steer", Trait: trait, TerminationReason: evaluator.UserStop,
			RewardInfo: &evaluator.RewardInfo{Reward: r}})
	}
	return out
}

// TestTraitsTable: groups that differ only in traits stay apart, land in
// τ-Trait's columns, and get the relative change against no traits.
func TestTraitsTable(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	recs = append(recs, traitRecords("tautrait-telecom", "", 4)...)
	recs = append(recs, traitRecords("tautrait-telecom", "impatience=low,confusion=low,skeptical=medium,incoherence=low", 2)...)
	recs = append(recs, traitRecords("tautrait-telecom", "confusion=high", 1)...)
	recs = append(recs, traitRecords("tautrait-telecom", "impatience=high", 3)...)
	recs = append(recs, traitRecords("tautrait-telecom", "incoherence=high", 4)...)
	recs = append(recs, traitRecords("tautrait-telecom", "skeptical=high (ignored)", 0)...)
	recs = append(recs, traitRecords("airline", "", 2)...) // τ²-bench: not in the table
	groups := Summarize([]*Source{{Kind: RunDir, Records: recs}}, nil)
	if len(groups) != 7 {
		t.Fatalf("%d groups; want 7 (one per traits)", len(groups))
	}
	tb, ok := Build(groups, Options{}).Table(TableTraits)
	if !ok || len(tb.Rows) != 1 {
		t.Fatalf("traits table: %v rows %v", ok, tb.Rows)
	}
	want := []string{"tautrait-telecom", "baseline", "gpt-5", "steer", "100.0",
		"50.0", "-50.0%", "25.0", "-75.0%", "75.0", "-25.0%", "100.0", "0.0%", "-37.5%",
		"0.0", "-100.0%"}
	if got := tb.Rows[0]; len(got) != len(want) || !equalStrings(got, want) {
		t.Errorf("row %q\nwant %q\n(header %q)", got, want, tb.Header)
	}
	if h := tb.Header[len(tb.Header)-2]; h != "skeptical (ignored)" {
		t.Errorf("extra column %q", h)
	}
	// A row of sim groups is marked simulated, as in every table.
	sim := traitRecords("tautrait-telecom", "", 2)
	for i := range sim {
		sim[i].Backbone, sim[i].Simulated = "sim", true
	}
	tb, ok = Build(Summarize([]*Source{{Kind: RunDir, Records: sim}}, nil), Options{}).Table(TableTraits)
	if !ok || len(tb.Rows) != 1 || tb.Rows[0][2] != "sim (simulated)" {
		t.Errorf("traits table of a sim run: %v rows %q; want the backbone \"sim (simulated)\"", ok, tb.Rows)
	}
	// Without trait groups the default output leaves the table out.
	plain := Build(Summarize([]*Source{{Kind: RunDir, Records: traitRecords("airline", "", 2)}}, nil), Options{})
	for _, x := range plain.Tables {
		if x.ID == TableTraits {
			t.Error("the default tables hold the trait table without trait groups")
		}
	}
}

func equalStrings(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestRecordedTraitGroups: τ-Trait's two telehealth recordings (no traits,
// confusion) are two groups, labelled from their names, with the recorded
// pass rates.
func TestRecordedTraitGroups(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(datatest.Trajectories(t), "collinear-ai+tau-trait")
	var srcs []*Source
	for _, f := range []string{"telehealth_none.json", "confusion_telehealth.json", "telecom_none.json"} {
		s, err := Load(filepath.Join(dir, f), Labels{})
		if err != nil {
			t.Skipf("%s: %v", f, err)
		}
		srcs = append(srcs, s)
	}
	cat, _ := LoadDomains(datatest.Root(t), srcs, func(string) {}) // v1 lists take their detected domain
	groups := Summarize(srcs, cat)
	if len(groups) != 3 {
		t.Fatalf("%d groups; want 3", len(groups))
	}
	tb, _ := Build(groups, Options{}).Table(TableTraits)
	if len(tb.Rows) != 2 {
		t.Fatalf("rows %q", tb.Rows)
	}
	for _, row := range tb.Rows {
		switch row[0] {
		case "telehealth":
			if row[4] != "15.0" || row[7] != "10.0" || row[8] != "-33.3%" {
				t.Errorf("telehealth row %q", row)
			}
		case "tautrait-telecom":
			if row[4] != "72.2" {
				t.Errorf("telecom row %q", row)
			}
		default:
			t.Errorf("row %q", row)
		}
	}
}
