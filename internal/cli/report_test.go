package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func v1Airline(t *testing.T) string {
	datatest.Repo(t, data.TauBench) // reports detect the list's domain in it
	return filepath.Join(datatest.Trajectories(t), "sierra-research+tau-bench", "gpt-4o-airline.json")
}

// TestReportV1PassK reports τ-bench's historical gpt-4o airline run: pass^k
// equals the published numbers.
func TestReportV1PassK(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	r := mustRun(t, "report", "--format", "json", v1Airline(t))
	var rep struct {
		Groups []struct {
			Domain   string             `json:"domain"`
			Agent    string             `json:"agent"`
			Backbone string             `json:"backbone"`
			Tasks    int                `json:"tasks"`
			Scored   int                `json:"scored"`
			PassHatK map[string]float64 `json:"pass_hat_k"`
		}
	}
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	groups := rep.Groups
	if len(groups) != 1 {
		t.Fatalf("groups = %d; want 1", len(groups))
	}
	g := groups[0]
	if g.Domain != "taubench-airline" || g.Agent != "baseline" || g.Backbone != "gpt-4o" || g.Tasks != 50 || g.Scored != 200 {
		t.Errorf("group = %+v", g)
	}
	want := map[string]string{"1": "0.420", "2": "0.273", "3": "0.220", "4": "0.200"}
	for k, w := range want {
		if got := fmt.Sprintf("%.3f", g.PassHatK[k]); got != w {
			t.Errorf("pass^%s = %s; want %s", k, got, w)
		}
	}
}

func TestReportFormatsAndFigures(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	figs := filepath.Join(t.TempDir(), "figs")
	for _, f := range []string{"text", "markdown", "csv"} {
		r := mustRun(t, "report", "--format", f, "--agent", "baseline", "--figures", figs, v1Airline(t))
		p1, p4 := "42.0", "20.0"
		if f == "csv" {
			p1, p4 = ",42,", ",20,"
		}
		if !strings.Contains(r.out, p1) || !strings.Contains(r.out, p4) {
			t.Errorf("%s report lacks pass^1 42.0 and pass^4 20.0:\n%s", f, r.out)
		}
	}
	entries, err := os.ReadDir(figs)
	if err != nil || len(entries) == 0 {
		t.Errorf("no figures written: %v", err)
	}
	r := mustRun(t, "report", "--format", "csv", "--table", "overview", v1Airline(t))
	if lines := strings.Split(strings.TrimSpace(r.out), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "Domain,Agent") {
		t.Errorf("one table as CSV = %q", r.out)
	}
}

func TestReportUsage(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	for _, args := range [][]string{
		{"report"},
		{"report", "--format", "html", "x"},
		{"report", "--table", "nope", "x"},
	} {
		if r := execCLI(t, t.Context(), args...); r.code != ExitUsage {
			t.Errorf("ledgerbench %s: exit %d; want %d (%s)", strings.Join(args, " "), r.code, ExitUsage, r.errOut)
		}
	}
	if r := execCLI(t, t.Context(), "report", filepath.Join(t.TempDir(), "missing")); r.code != ExitError {
		t.Errorf("missing input: exit %d; want %d", r.code, ExitError)
	}
}

// TestReportRunDirectory reports a run made by `ledgerbench run`.
func TestReportRunDirectory(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	mustRun(t, "run", "--domain", "retail", "--backbone", "sim", "--no-judge", "--limit", "3", "--trials", "2", "--quiet", "--out", dir)
	r := mustRun(t, "report", "--format", "json", dir)
	var rep struct {
		Groups []struct {
			Domain   string             `json:"domain"`
			Agent    string             `json:"agent"`
			Tasks    int                `json:"tasks"`
			K        int                `json:"k"`
			PassHatK map[string]float64 `json:"pass_hat_k"`
			Write    struct {
				Known int `json:"known"`
			} `json:"write_subset"`
		}
	}
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	groups := rep.Groups
	if len(groups) != 1 || groups[0].Tasks != 3 || groups[0].K != 2 || len(groups[0].PassHatK) != 2 || groups[0].Write.Known != 3 {
		t.Errorf("groups = %+v", groups)
	}
}

// A baseline run has no gate of its own: the report judges its writes in
// shadow mode so its policy adherence can be compared with LedgerAgent's.
func TestReportShadowAdherenceForBaseline(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	mustRun(t, "run", "--domain", "retail", "--backbone", "sim:stale=0,miss=0,violation=1", "--user-backbone", "sim", "--no-judge", "--limit", "4", "--trials", "1", "--quiet", "--out", dir)
	r := mustRun(t, "report", "--table", "gate", "--format", "csv", dir)
	rows, err := csv.NewReader(strings.NewReader(r.out)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("gate table (%v):\n%s", err, r.out)
	}
	header, row := rows[0], rows[1]
	col := func(name string) string {
		for i, h := range header {
			if strings.EqualFold(h, name) {
				return row[i]
			}
		}
		t.Fatalf("no column %q in %v", name, header)
		return ""
	}
	if col("Agent") != "baseline" || col("Shadow REVISE") == "0" && col("Shadow BLOCK") == "0" {
		t.Errorf("baseline with injected violations has no shadow refusals:\n%s", r.out)
	}
}

// Two τ-Trait recordings of one domain (no model names in
// them) stay two groups, labelled by the trait their names give, and every
// table counts the same 20 simulations each; the same file given twice is
// said to be dropped, and counted once everywhere, costs included.
func TestReportTraitRecordings(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := filepath.Join(datatest.Trajectories(t), "collinear-ai+tau-trait")
	none, conf := filepath.Join(dir, "telehealth_none.json"), filepath.Join(dir, "confusion_telehealth.json")
	if _, err := os.Stat(conf); err != nil {
		t.Skipf("τ-Trait recordings not available: %v", err)
	}
	type group struct {
		Domain     string `json:"domain"`
		Agent      string `json:"agent"`
		Trait      string `json:"trait"`
		Records    int    `json:"records"`
		Scored     int    `json:"scored"`
		Duplicates int    `json:"duplicates"`
		Cost       struct {
			Simulations int `json:"simulations"`
		} `json:"cost"`
	}
	groups := func(r execResult) []group {
		var rep struct {
			Groups []group `json:"groups"`
		}
		if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, r.out)
		}
		return rep.Groups
	}
	r := mustRun(t, "report", "--format", "json", none, conf)
	gs := groups(r)
	if len(gs) != 2 || strings.Contains(r.errOut, "dropped") {
		t.Fatalf("groups %+v (stderr %s); want two", gs, r.errOut)
	}
	traits := map[string]bool{}
	for _, g := range gs {
		traits[g.Trait] = true
		if g.Domain != "telehealth" || g.Agent != "baseline" || g.Records != 20 || g.Scored != 20 || g.Duplicates != 0 || g.Cost.Simulations != 20 {
			t.Errorf("group %+v; want telehealth/baseline, 20 records, 20 scored, 20 in the costs, no duplicates", g)
		}
	}
	if !traits[""] || !traits["confusion"] {
		t.Errorf("traits %v; want none and confusion", traits)
	}
	text := mustRun(t, "report", "--table", "overview", "--table", "costs", none, conf).out
	if !strings.Contains(text, "| Trait ") || !strings.Contains(text, "confusion") || !strings.Contains(text, "trait none") {
		t.Errorf("tables do not name the traits:\n%s", text)
	}

	page := filepath.Join(t.TempDir(), "v.html")
	if v := mustRun(t, "view", none, conf, "--out", page); !strings.Contains(v.out, "2 groups, 40 simulations") || strings.Contains(v.errOut, "dropped") {
		t.Errorf("view of the two recordings: %s%s", v.out, v.errOut)
	}

	// The same file twice: one group, its 20 simulations counted once in
	// every table, and a warning.
	r = mustRun(t, "report", "--format", "json", none, none)
	gs = groups(r)
	if len(gs) != 1 || gs[0].Scored != 20 || gs[0].Duplicates != 20 || gs[0].Cost.Simulations != 20 {
		t.Errorf("the same file twice: %+v; want one group of 20 (20 duplicates), 20 in the costs", gs)
	}
	if !strings.Contains(r.errOut, "warning: 20 record(s) of telehealth/baseline/— in "+none+" repeat (task, trial) units of the same input: dropped") {
		t.Errorf("the dropped records are silent:\n%s", r.errOut)
	}
}

// A run's records carry its user's traits (canonical
// name=level pairs), so runs that differ only in traits are separate
// groups, and an old record without the label takes its manifest's.
func TestRunTraitLabel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain, traits := filepath.Join(dir, "plain"), filepath.Join(dir, "traits")
	common := []string{"run", "--domain", "telehealth", "--backbone", "sim", "--trials", "1", "--limit", "2", "--quiet"}
	mustRun(t, append(common, "--out", plain)...)
	mustRun(t, append(common, "--traits", "confusion=low,impatience=high", "--out", traits)...)
	for _, r := range loadRun(t, traits).Records {
		if r.Trait != "impatience=high,confusion=low" {
			t.Errorf("record trait %q; want impatience=high,confusion=low", r.Trait)
		}
	}
	r := mustRun(t, "report", "--table", "overview", "--format", "csv", plain, traits)
	if !strings.Contains(r.out, ",Trait,") || !strings.Contains(r.out, "impatience=high,confusion=low") && !strings.Contains(r.out, `"impatience=high,confusion=low"`) {
		t.Errorf("overview does not separate the traits:\n%s", r.out)
	}
	rows, err := csv.NewReader(strings.NewReader(r.out)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Errorf("overview rows %v (%v); want a header and two groups", rows, err)
	}
}
