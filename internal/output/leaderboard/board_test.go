package leaderboard

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/output/submit"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

var update = flag.Bool("update", false, "update golden files")

func ptr(v float64) *float64 { return &v }

// simRun is a run on the sim backbone with retail results.
func simRun() *Run {
	return &Run{Key: metrics.Key{Agent: "baseline", Backbone: "sim", UserBackbone: "sim"}, Label: "baseline · sim (SIMULATED)", Simulated: true,
		Domains: map[string]*RunDomain{"retail": {Where: "runs/retail-sim", userModel: "sim",
			Results: submit.DomainResults{Pass1: ptr(85), Pass2: ptr(75)},
			Differs: []string{"SIMULATED: an offline backbone, not a model's result", "1 trial(s) a task (the leaderboard's pass^1…pass^4 take 4)"}}}}
}

// modelRun is a standard-looking run on a model whose user simulator
// differs from the standard entries'.
func modelRun() *Run {
	return &Run{Key: metrics.Key{Agent: "baseline", Backbone: "gpt-4.1", UserBackbone: "gpt-4.1"}, Label: "baseline · gpt-4.1", Standard: true,
		Domains: map[string]*RunDomain{
			"retail":  {Where: "runs/retail", userModel: "gpt-4.1-2025-04-14", Results: submit.DomainResults{Pass1: ptr(80), Pass4: ptr(40)}},
			"airline": {Where: "runs/airline", userModel: "us-1", Results: submit.DomainResults{Pass1: ptr(20)}}}}
}

// TestToyGolden renders the toy board's tables (ties, defaults of a
// submission without submission_type or modality, a broken and a missing
// submission, voice and legacy entries, runs placed) in every format.
func TestToyGolden(t *testing.T) {
	t.Parallel()
	b, err := Load(filepath.Join("testdata", "toy"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Warnings) != 2 || !strings.Contains(b.Warnings[0], "broken_f") || !strings.Contains(b.Warnings[1], "missing_g") {
		t.Errorf("warnings %q; want the broken and the missing submission", b.Warnings)
	}
	cases := []struct {
		name string
		opts Options
	}{
		{"retail", Options{Domain: "retail", Metric: PassK(1), Runs: []*Run{simRun(), modelRun()}}},
		{"retail-all-legacy", Options{Domain: "retail", Metric: PassK(1), Type: TypeAll, Legacy: true}},
		{"overall", Options{Metric: PassK(1), Runs: []*Run{modelRun()}}},
		{"overall-limit", Options{Metric: PassK(1), Limit: 1, Runs: []*Run{modelRun()}}},
		{"retail-pass4", Options{Domain: "retail", Metric: PassK(4), Runs: []*Run{simRun(), modelRun()}}},
		{"retail-cost", Options{Domain: "retail", Metric: Cost, Type: TypeAll}},
		{"banking", Options{Domain: "banking_knowledge", Metric: PassK(1), Type: TypeStandard, Runs: []*Run{modelRun()}}},
	}
	var all bytes.Buffer
	for _, tc := range cases {
		tables, err := b.Tables(tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, f := range []report.Format{report.Text, report.CSV, report.JSON} {
			all.WriteString("== " + tc.name + " " + string(f) + "\n")
			if err := report.WriteTables(&all, f, tables...); err != nil {
				t.Fatal(err)
			}
		}
	}
	goldentest.Check(t, *update, "toy.golden", all.String())
}

// TestSimulatedRunNeverAModelsResult: a sim run is placed in the custom
// table only, labelled SIMULATED, without a rank.
func TestSimulatedRunNeverAModelsResult(t *testing.T) {
	t.Parallel()
	b, err := Load(filepath.Join("testdata", "toy"))
	if err != nil {
		t.Fatal(err)
	}
	tables, err := b.Tables(Options{Domain: "retail", Metric: PassK(1), Runs: []*Run{simRun()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		for _, row := range tb.Rows {
			sim := strings.Contains(row[1], "sim")
			if sim && (tb.ID != "leaderboard-custom" || row[0] != report.Missing || !strings.Contains(row[1], "(SIMULATED)")) {
				t.Errorf("%s: sim run row %q; want it unranked, SIMULATED, in the custom table", tb.ID, row)
			}
		}
	}
	custom := tables[1]
	if got := custom.Rows[1][1]; !strings.Contains(got, "SIMULATED") {
		t.Errorf("custom table rows %q: want the sim run (85) second, after Gamma (90)", custom.Rows)
	}
	if !slices.ContainsFunc(custom.Notes, func(n string) bool {
		return strings.Contains(n, "SIMULATED: an offline backbone, not a model's result")
	}) {
		t.Errorf("notes %q: want the run's footnote saying it is simulated", custom.Notes)
	}
}

func TestParseMetric(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Metric
		ok   bool
	}{
		{"pass_1", PassK(1), true}, {"pass^4", PassK(4), true}, {"cost", Cost, true},
		{"pass_5", Metric{}, false}, {"pass_01", Metric{}, false}, {"pass1", Metric{}, false}, {"", Metric{}, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseMetric(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("ParseMetric(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}

// rawSubmission is the part of a published submission.json the real-data
// test reads on its own.
type rawSubmission struct {
	Type    string                                `json:"submission_type"`
	Results map[string]map[string]json.RawMessage `json:"results"`
}

// TestRealSubmissions ranks the pinned submissions for every domain and
// metric and checks the tables against the files read independently: every
// non-legacy entry with a value is there once, in the right table, values
// as published, highest first with ties in manifest order, ranks 1, 2, ….
func TestRealSubmissions(t *testing.T) {
	t.Parallel()
	dir := data.Tau2Submissions(datatest.Root(t))
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		t.Skipf("leaderboard submissions not in the test data: %v", err)
	}
	b, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Warnings) > 0 {
		t.Errorf("warnings loading the published submissions: %q", b.Warnings)
	}
	var man manifest
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(dir, ManifestFile))), &man); err != nil {
		t.Fatal(err)
	}
	ids := append(slices.Clone(man.Submissions), man.VoiceSubmissions...)
	raw := map[string]rawSubmission{}
	for _, id := range ids {
		var r rawSubmission
		if err := json.Unmarshal(must(os.ReadFile(filepath.Join(dir, id, submit.SubmissionFile))), &r); err != nil {
			t.Fatal(err)
		}
		if r.Type == "" {
			r.Type = "standard"
		}
		raw[id] = r
	}
	for _, domain := range submit.Domains() {
		for _, name := range Metrics() {
			t.Run(domain+"/"+name, func(t *testing.T) {
				t.Parallel()
				m, _ := ParseMetric(name)
				for _, typ := range []string{TypeStandard, TypeCustom, TypeAll} {
					tables, err := b.Tables(Options{Domain: domain, Metric: m, Type: typ})
					if err != nil {
						t.Fatal(err)
					}
					tb := tables[0]
					var want []float64
					for _, id := range ids {
						v := raw[id].Results[domain][name]
						if raw[id].Results[domain] == nil || v == nil || string(v) == "null" || (typ != TypeAll && raw[id].Type != typ) {
							continue
						}
						var f float64
						if err := json.Unmarshal(v, &f); err != nil {
							t.Fatal(err)
						}
						want = append(want, f)
					}
					if len(tb.Rows) != len(want) {
						t.Fatalf("%s: %d rows; want %d entries with a %s", typ, len(tb.Rows), len(want), name)
					}
					slices.SortStableFunc(want, func(x, y float64) int {
						switch {
						case x > y:
							return -1
						case x < y:
							return 1
						}
						return 0
					})
					for i, row := range tb.Rows {
						if got := tb.Values[i][4]; got != want[i] {
							t.Errorf("%s row %d (%s): %v; want %v", typ, i+1, row[1], got, want[i])
						}
						if row[0] != strconv.Itoa(i+1) {
							t.Errorf("%s row %d: rank %s", typ, i+1, row[0])
						}
					}
				}
			})
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
