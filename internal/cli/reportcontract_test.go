package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
)

// simRun makes a small sim run once per test.
func simRun(t *testing.T, trials string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	mustRun(t, "run", "--domain", "retail", "--backbone", "sim", "--user-backbone", "sim", "--no-judge", "--limit", "3", "--trials", trials, "--quiet", "--out", dir)
	return dir
}

// A τ-bench v1 list is labelled with the domain its recorded tasks
// point to (rescore's detection, whose notes go to stderr) and judged by
// that domain's gate in shadow mode.
func TestReportV1Gate(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	r := mustRun(t, "report", "--table", "gate", v1Airline(t))
	if !strings.Contains(r.errOut, "gpt-4o-airline.json: ") || !strings.Contains(r.errOut, "recorded on other data") {
		t.Errorf("stderr lacks the detection's notes:\n%s", r.errOut)
	}
	if !strings.Contains(r.out, "taubench-airline") || strings.Contains(r.out, "no run reports gate verdicts") {
		t.Errorf("gate table of a v1 list:\n%s", r.out)
	}
}

// --k above every run's trials is a usage error; zero and negative
// --k name the flag.
func TestReportK(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := simRun(t, "2")
	for _, tc := range []struct {
		k, want string
	}{{"5", "--k 5 is above the trials per task of every run (at most 2)"}, {"0", "--k must be at least 1"}, {"-1", "--k must be at least 1"}} {
		r := execCLI(t, t.Context(), "report", "--k", tc.k, dir)
		if r.code != ExitUsage || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("report --k %s: exit %d, %q; want %d and %q", tc.k, r.code, r.errOut, ExitUsage, tc.want)
		}
	}
	mustRun(t, "report", "--k", "2", dir)
}

// JSON honours --table and carries the text tables.
func TestReportJSONTables(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := simRun(t, "2")
	r := mustRun(t, "report", "--format", "json", "--table", "table2", "--table", "costs", dir)
	var got struct {
		Tables []struct {
			ID     string   `json:"id"`
			Header []string `json:"header"`
			Rows   [][]any  `json:"rows"`
		} `json:"tables"`
		Groups json.RawMessage `json:"groups"`
	}
	if err := json.Unmarshal([]byte(r.out), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	if len(got.Tables) != 2 || got.Tables[0].ID != "table2" || got.Tables[1].ID != "costs" || got.Groups != nil {
		t.Errorf("report --format json --table table2 --table costs:\n%s", r.out)
	}
	if len(got.Tables[1].Rows) != 1 {
		t.Fatalf("costs rows: %v", got.Tables[1].Rows)
	}
	// Numbers, and null (never 0) for the judge a --no-judge run lacks and
	// for the cached shares of the offline backbone (no prompt tokens).
	for i, v := range got.Tables[1].Rows[0][3:] {
		h := got.Tables[1].Header[i+3]
		_, num := v.(float64)
		if (strings.HasPrefix(h, "Judge") || strings.HasSuffix(h, "cached %")) != (v == nil) || v != nil && !num {
			t.Errorf("costs cell %s = %v", h, v)
		}
	}
}

// An exported sim run is still labelled simulated, and so is a
// report on the exported file.
func TestExportKeepsSimulated(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := simRun(t, "1")
	out := filepath.Join(t.TempDir(), "results.json")
	mustRun(t, "export", "--format", "tau2", dir, out)
	for _, in := range []string{dir, out} {
		r := mustRun(t, "report", "--table", "overview", in)
		if !strings.Contains(r.out, "simulation(s) on the offline sim backbone") {
			t.Errorf("report of %s does not say it is simulated:\n%s", in, r.out)
		}
	}
}

// A report says when NL assertions were not judged, in
// every table whose numbers follow from rewards and in the JSON groups, for
// the run directory and for its τ²-bench export alike.
func TestReportSaysNLUnjudged(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := simRun(t, "1") // retail tasks 0-2: task 2 has NL assertions
	exp := filepath.Join(t.TempDir(), "results.json")
	mustRun(t, "export", "--format", "tau2", dir, exp)
	for _, in := range []string{dir, exp} {
		want := "NL assertions not judged (--no-judge) in 1 of 3 scored simulations: their rewards omit NL_ASSERTION"
		for _, table := range []string{"overview", "write_subset", "errors"} {
			if r := mustRun(t, "report", "--table", table, in); !strings.Contains(r.out, want) {
				t.Errorf("report --table %s %s does not say NL was not judged:\n%s", table, in, r.out)
			}
		}
		r := mustRun(t, "report", "--format", "json", in)
		var got struct {
			Groups []struct {
				NLUnjudged int `json:"nl_unjudged"`
			} `json:"groups"`
		}
		if err := json.Unmarshal([]byte(r.out), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Groups) != 1 || got.Groups[0].NLUnjudged != 1 {
			t.Errorf("JSON groups of %s: %+v; want nl_unjudged 1", in, got.Groups)
		}
	}
}
