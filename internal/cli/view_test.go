package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/output/view/viewtest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// shotDir is where screenshots go: $LEDGERBENCH_SCREENSHOTS when set (to look
// at them), else the test's temporary directory.
func shotDir(t *testing.T) string {
	if d := os.Getenv("LEDGERBENCH_SCREENSHOTS"); d != "" {
		return d
	}
	return t.TempDir()
}

var simCount = regexp.MustCompile(`id="sim-count" data-count="(\d+)"`)

func countOf(t *testing.T, dom, what string) int {
	t.Helper()
	m := simCount.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("%s: no #sim-count in the DOM", what)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func openPage(t *testing.T, b *viewtest.Browser, page, frag string) string {
	t.Helper()
	dom := b.DOM(t, "file://"+page+"#"+frag)
	if errs := viewtest.PageErrors(t, dom); errs != "" {
		t.Errorf("#%s: page errors:\n%s", frag, errs)
	}
	return dom
}

// stoppedByGate reports whether a record's agent reported a gate verdict
// other than ALLOW (read straight from the record's JSON).
func stoppedByGate(r *results.Record) (stopped bool, verdict map[string]any) {
	var info struct {
		Verdicts []map[string]any `json:"verdicts"`
	}
	_ = json.Unmarshal(r.AgentInfo, &info)
	for _, v := range info.Verdicts {
		if s, _ := v["verdict"].(string); !strings.EqualFold(s, "allow") {
			return true, v
		}
	}
	return false, nil
}

func TestViewBrowser(t *testing.T) {
	t.Parallel()
	b := viewtest.Chromium(t)
	dir := t.TempDir()
	base, led := filepath.Join(dir, "baseline"), filepath.Join(dir, "ledger")
	common := []string{"run", "--domain", "airline", "--backbone", "sim", "--user-backbone", "sim", "--no-judge", "--limit", "20", "--trials", "2", "--concurrency", "4"}
	mustRun(t, append(common, "--agent", "baseline", "--out", base)...)
	mustRun(t, append(common, "--agent", "ledger", "--out", led)...)
	page := filepath.Join(dir, "view.html")
	out := mustRun(t, "view", base, led, "--out", page).out
	if !strings.Contains(out, "2 groups, 80 simulations") {
		t.Errorf("view output: %s", out)
	}
	shots := shotDir(t)

	baseRun, ledRun := loadRun(t, base), loadRun(t, led)
	all := append(append([]results.Record(nil), baseRun.Records...), ledRun.Records...)
	failed, stopped := 0, 0
	var gated *results.Record
	var gatedVerdict map[string]any
	for i := range all {
		if !all[i].Success() {
			failed++
		}
		if s, v := stoppedByGate(&all[i]); s {
			stopped++
			if gated == nil {
				gated, gatedVerdict = &all[i], v
			}
		}
	}
	if gated == nil {
		t.Fatal("the ledger run has no refused call; the test needs one (change --limit)")
	}

	// Index: groups, every simulation, filters.
	dom := openPage(t, b, page, "index")
	if got := viewtest.Count(dom, `data-group="`); got != 2 {
		t.Errorf("index: %d group rows; want 2", got)
	}
	if got := countOf(t, dom, "index"); got != len(all) {
		t.Errorf("index: %d simulations; want %d", got, len(all))
	}
	if got := viewtest.Count(dom, `class="click sim-row"`); got != min(len(all), 100) {
		t.Errorf("index: %d rows on the first page; want %d", got, min(len(all), 100))
	}
	for _, tc := range []struct {
		frag string
		want int
	}{
		{"index/failed=1", failed},
		{"index/gate=1", stopped},
	} {
		if got := countOf(t, openPage(t, b, page, tc.frag), tc.frag); got != tc.want {
			t.Errorf("#%s: %d simulations; want %d", tc.frag, got, tc.want)
		}
	}
	b.Screenshot(t, "file://"+page+"#index", filepath.Join(shots, "index.png"), 1400, 1000)

	// Compare: baseline against ledger on the 20 shared tasks.
	dom = openPage(t, b, page, "compare")
	if got := viewtest.Count(dom, `class="cmp-row`); got != 20 {
		t.Errorf("compare: %d task rows; want 20", got)
	}

	// The simulation with a refused call: the verdict inline, with its
	// predicate and reason, and the ledger of that turn.
	simIdx := -1
	for i, row := range indexRows(t, page) {
		if row.group == 1 && row.task == gated.TaskID && row.trial == gated.Trial {
			simIdx = i
		}
	}
	if simIdx < 0 {
		t.Fatalf("simulation %s/%d not in the index", gated.TaskID, gated.Trial)
	}
	frag := fmt.Sprintf("sim/%d/gate", simIdx)
	dom = openPage(t, b, page, frag)
	decision := strings.ToUpper(gatedVerdict["verdict"].(string))
	if !strings.Contains(dom, `data-verdict="`+decision+`"`) {
		t.Errorf("#%s: no %s verdict", frag, decision)
	}
	for _, key := range []string{"predicate", "reason"} {
		if s, _ := gatedVerdict[key].(string); s != "" && !strings.Contains(dom, htmlText(s)) {
			t.Errorf("#%s: verdict %s %q not shown", frag, key, s)
		}
	}
	if !strings.Contains(dom, "ledger at this turn") {
		t.Errorf("#%s: no ledger of the verdict's turn", frag)
	}
	if ri := gated.RewardInfo; ri != nil && ri.DBCheck != nil && !ri.DBCheck.DBMatch && !strings.Contains(dom, `class="args db-diff"`) {
		t.Errorf("#%s: the DB check failed but no differing fields are listed", frag)
	}
	if got, want := viewtest.Count(dom, `class="msg `), len(gated.Messages); got != want {
		t.Errorf("#%s: %d messages; want %d", frag, got, want)
	}
	b.Screenshot(t, "file://"+page+"#"+frag, filepath.Join(shots, "simulation-gate.png"), 1400, 1400)
}

// selftest opens the page's #selftest, which renders every simulation page,
// the compare view and the index, and checks nothing failed.
func selftest(t *testing.T, b *viewtest.Browser, page string, sims int) string {
	t.Helper()
	dom := openPage(t, b, page, "selftest")
	want := fmt.Sprintf(`id="selftest" data-sims="%d" data-of="%d"`, min(sims, 5000), sims)
	if !strings.Contains(dom, want) {
		m := regexp.MustCompile(`id="selftest"[^>]*`).FindString(dom)
		t.Errorf("selftest: %q; want %s", m, want)
	}
	return dom
}

// TestViewSimGridBrowser views the shipped sim grid (experiments/sim.yaml).
func TestViewSimGridBrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the sim grid")
	}
	b := viewtest.Chromium(t)
	dir := t.TempDir()
	path, cells := simConfig(t, dir, true)
	mustRun(t, "experiment", "--quiet", "--no-report", path)
	runs, _ := filepath.Glob(filepath.Join(dir, "exp", "runs", "*"))
	if len(runs) != cells {
		t.Fatalf("%d run directories; want %d", len(runs), cells)
	}
	page := filepath.Join(dir, "grid.html")
	mustRun(t, append([]string{"view", "--out", page}, runs...)...)
	n := 0
	for _, r := range runs {
		n += len(loadRun(t, r).Records)
	}
	dom := selftest(t, b, page, n)
	if got := viewtest.Count(dom, `data-group="`); got != cells {
		t.Errorf("%d group rows; want %d", got, cells)
	}
}

// TestViewRecordedBrowser views every recorded upstream file in one page.
func TestViewRecordedBrowser(t *testing.T) {
	t.Parallel()
	b := viewtest.Chromium(t)
	files, _ := filepath.Glob(filepath.Join(datatest.Root(t), "trajectories", "*", "*.json"))
	if len(files) == 0 {
		t.Skip("no recorded trajectories under the data directory")
	}
	page := filepath.Join(t.TempDir(), "view.html")
	mustRun(t, append([]string{"view", "--out", page}, files...)...)
	rows := indexRows(t, page)
	if len(rows) == 0 {
		t.Fatal("no simulations")
	}
	dom := selftest(t, b, page, len(rows))
	if got := countOf(t, dom, "index"); got != len(rows) {
		t.Errorf("index: %d simulations; the page embeds %d", got, len(rows))
	}
	for i, r := range rows {
		if r.task == "0" || i == len(rows)-1 {
			b.Screenshot(t, fmt.Sprintf("file://%s#sim/%d", page, i), filepath.Join(shotDir(t), "recorded-simulation.png"), 1400, 1400)
			break
		}
	}
}

type indexRow struct {
	group int
	task  string
	trial int
}

// indexRows reads the index block the page embeds.
func indexRows(t *testing.T, page string) []indexRow {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<script type="application/json" id="index">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no index block")
	}
	var idx struct {
		Sims [][]any `json:"sims"`
	}
	if err := json.Unmarshal(m[1], &idx); err != nil {
		t.Fatal(err)
	}
	rows := make([]indexRow, len(idx.Sims))
	for i, r := range idx.Sims {
		rows[i] = indexRow{group: int(r[0].(float64)), task: r[1].(string), trial: int(r[2].(float64))}
	}
	return rows
}

// htmlText escapes s as the DOM dump writes text.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// TestViewChunksBrowser opens a page whose simulations span more than one
// compressed chunk, inline, in chunk files beside the page, and as plain
// JSON, and checks the page says what is wrong when the chunk files are
// missing.
func TestViewChunksBrowser(t *testing.T) {
	t.Parallel()
	b := viewtest.Chromium(t)
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	mustRun(t, "run", "--domain", "retail", "--backbone", "sim", "--user-backbone", "sim", "--no-judge", "--limit", "10", "--trials", "7", "--agent", "ledger", "--out", run)
	const n = 70 // more than one chunk of 64
	for _, tc := range []struct {
		name, split string
		plain       bool
		wantOut     string
	}{
		{"inline", "never", false, "70 simulations"},
		{"split", "always", false, "2 chunks"},
		{"plain", "auto", true, "70 simulations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each views the run into its own page
			page := filepath.Join(dir, tc.name+".html")
			args := []string{"view", run, "--out", page, "--split", tc.split}
			if tc.plain {
				args = append(args, "--plain")
			}
			if out := mustRun(t, args...).out; !strings.Contains(out, tc.wantOut) {
				t.Errorf("view output %q; want %q", out, tc.wantOut)
			}
			chunks := strings.TrimSuffix(page, ".html") + ".chunks"
			if _, err := os.Stat(chunks); (err == nil) != (tc.split == "always") {
				t.Errorf("%s exists: %v; want %v", chunks, err == nil, tc.split == "always")
			}
			selftest(t, b, page, n)
			// The last simulation, in the second chunk.
			dom := openPage(t, b, page, fmt.Sprintf("sim/%d", n-1))
			if !strings.Contains(dom, `data-view="sim"`) || viewtest.Count(dom, `class="msg `) == 0 {
				t.Errorf("sim/%d: no conversation rendered", n-1)
			}
			if tc.split != "always" {
				return
			}
			b.Screenshot(t, "file://"+page+"#sim/0", filepath.Join(shotDir(t), "simulation-split.png"), 1400, 1000)
			if err := os.RemoveAll(chunks); err != nil {
				t.Fatal(err)
			}
			dom = b.DOM(t, "file://"+page+"#sim/0")
			if errs := viewtest.PageErrors(t, dom); !strings.Contains(errs, "keep the split.chunks folder beside this page") {
				t.Errorf("chunk files missing: page errors %q; want the folder named", errs)
			}
			if !strings.Contains(dom, `id="load-error"`) {
				t.Error("chunk files missing: the page does not say so where the simulation would be")
			}
		})
	}
}

func TestViewSplitFlags(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	mustRun(t, "run", "--domain", "airline", "--backbone", "sim", "--user-backbone", "sim", "--no-judge", "--limit", "2", "--trials", "1", "--out", run)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--split", "sometimes"}, "want auto, always or never"},
		{[]string{"--plain", "--split", "always"}, "cannot be combined"},
	} {
		r := execCLI(t, t.Context(), append([]string{"view", run, "--out", filepath.Join(t.TempDir(), "v.html")}, tc.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("view %v: exit %d, %q; want usage error %q", tc.args, r.code, r.errOut, tc.want)
		}
	}
}

// TestViewNLUnjudged: the reward panel of a simulation whose NL assertions
// were not judged says so (it does not show a verdict), a vacuous
// NL_ASSERTION 1 (a task without assertions) is named vacuous, and the
// index notes the group.
func TestViewNLUnjudged(t *testing.T) {
	t.Parallel()
	b := viewtest.Chromium(t)
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	mustRun(t, "run", "--domain", "retail", "--backbone", "sim", "--user-backbone", "sim", "--no-judge", "--limit", "3", "--trials", "1", "--quiet", "--out", run)
	page := filepath.Join(dir, "view.html")
	mustRun(t, "view", run, "--out", page)
	// The rendered reward panel (the page's script holds the texts too).
	panel := func(frag string) string {
		dom := openPage(t, b, page, frag)
		i := strings.Index(dom, `id="reward"`)
		if i < 0 {
			t.Fatalf("#%s: no reward panel", frag)
		}
		end := strings.Index(dom[i:], "<h3>")
		if end < 0 {
			end = len(dom) - i
		}
		return dom[i : i+end]
	}
	// Retail tasks 0 and 1 have no NL assertions, task 2 has (index order:
	// task, then trial).
	if p := panel("sim/2"); !strings.Contains(p, "NL assertions not judged (--no-judge): this reward omits NL_ASSERTION") {
		t.Errorf("the unjudged simulation's reward panel does not say so: %q", p)
	}
	if p := panel("sim/0"); !strings.Contains(p, "NL_ASSERTION 1 (no NL assertions to judge)") || strings.Contains(p, "not judged") {
		t.Errorf("the vacuous NL_ASSERTION of task 0 is not named vacuous: %q", p)
	}
	dom := openPage(t, b, page, "index")
	if i := strings.Index(dom, `class="muted group-note"`); i < 0 || !strings.Contains(dom[i:], "NL assertions not judged (--no-judge) in 1 of 3 scored simulations") {
		t.Errorf("the index does not note the unjudged group")
	}
}
