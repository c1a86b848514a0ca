package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/output/view/viewtest"
)

// scrollProbe copies a page and appends a script that records, once the
// page has settled, how far it is scrolled (data-test-scroll on <body>).
func scrollProbe(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probe := `<script>setTimeout(function () { document.body.setAttribute("data-test-scroll", String(Math.round(window.scrollY))); }, 1500);</script>`
	out := strings.TrimSuffix(page, ".html") + ".probe.html"
	if err := os.WriteFile(out, []byte(strings.Replace(string(b), "</body>", probe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

var testScroll = regexp.MustCompile(`data-test-scroll="(\d+)"`)

type agentInfo struct {
	Verdicts []map[string]any `json:"verdicts"`
	Turns    []struct {
		Reply int `json:"reply"`
	} `json:"turns"`
}

// replyMessage returns the trajectory index of the agent's reply r (after
// the greeting τ²-bench's trajectory starts with).
func replyMessage(t *testing.T, r *results.Record, reply int) int {
	t.Helper()
	n := -2 // the greeting is assistant message 0
	for i, m := range r.Messages {
		if m.Role == message.Assistant {
			n++
			if n == reply {
				return i
			}
		}
	}
	t.Fatalf("task %s: no reply %d", r.TaskID, reply)
	return -1
}

// TestViewPageBrowser checks what a reader meets first: the compare page
// opens at its controls, a simulation's heading names its number and its
// task, sim groups are marked SIMULATED, and LedgerAgent's stopped calls with
// the gate's feedback are shown where the model saw them (they are not in
// the trajectory).
func TestViewPageBrowser(t *testing.T) {
	t.Parallel()
	b := viewtest.Chromium(t)
	dir := t.TempDir()
	base, led := filepath.Join(dir, "baseline"), filepath.Join(dir, "ledger")
	common := []string{"run", "--domain", "airline", "--backbone", "sim:violation=0.5,stale=0.4", "--user-backbone", "sim", "--no-judge", "--limit", "30", "--trials", "1", "--quiet"}
	mustRun(t, append(common, "--agent", "baseline", "--out", base)...)
	mustRun(t, append(common, "--agent", "ledger", "--out", led)...)

	// One record gets a stopped call in the last generation of a reply
	// that also made a call, as a model proposing two writes at once would
	// (the sim backbone proposes one call a message).
	run := loadRun(t, led)
	var regen, inReply *results.Record
	var regenTurn, inReplyIdx int
	var regenVerdict string
	for i := range run.Records {
		r := &run.Records[i]
		var info agentInfo
		if err := json.Unmarshal(r.AgentInfo, &info); err != nil {
			t.Fatal(err)
		}
		for _, v := range info.Verdicts {
			turn := int(v["turn"].(float64))
			if v["verdict"] != "ALLOW" && regen == nil && turn+1 < len(info.Turns) && info.Turns[turn+1].Reply == info.Turns[turn].Reply {
				regen, regenTurn, regenVerdict = r, turn, v["verdict"].(string)
			}
		}
		if inReply == nil && r != regen && len(info.Verdicts) == 0 && len(info.Turns) > 2 {
			// Reply 0's only generation: turn 0.
			inReply, inReplyIdx = r, i
		}
	}
	if regen == nil || inReply == nil {
		t.Fatal("the ledger run has no regenerated reply or no record without verdicts; the test needs both (change --limit)")
	}
	var info map[string]any
	_ = json.Unmarshal(inReply.AgentInfo, &info)
	info["verdicts"] = []any{map[string]any{"turn": 0, "tool": "cancel_reservation", "call_id": "gated_1", "arguments": map[string]any{"reservation_id": "ZZZ999"},
		"verdict": "BLOCK", "predicate": "p.cancel", "clause": "Cancel flight", "reason": "not allowed here", "feedback": "POLICY GATE: BLOCK — not allowed here (test)"}}
	run.Records[inReplyIdx].AgentInfo, _ = json.Marshal(info)
	var lines []string
	for _, r := range run.Records {
		l, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(l))
	}
	if err := os.WriteFile(filepath.Join(led, results.SimulationsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	page := filepath.Join(dir, "view.html")
	mustRun(t, "view", base, led, "--out", page, "--db-diffs", "0")
	rows := indexRows(t, page)
	simOf := func(r *results.Record) int {
		for i, row := range rows {
			if row.group == 1 && row.task == r.TaskID && row.trial == r.Trial {
				return i
			}
		}
		t.Fatalf("task %s not in the index", r.TaskID)
		return -1
	}

	// The compare page (and the index) open unscrolled, controls in view.
	probe := scrollProbe(t, page)
	for _, frag := range []string{"compare", "index"} {
		dom := openPage(t, b, probe, frag)
		m := testScroll.FindStringSubmatch(dom)
		if m == nil || m[1] != "0" {
			t.Errorf("#%s: scrolled by %v; want 0", frag, m)
		}
	}
	if dom := openPage(t, b, page, "compare"); !strings.Contains(dom, `id="c-a"`) || strings.Contains(dom, `id="compare"`) {
		t.Error("#compare: no controls, or an element whose id is the route")
	}
	b.Screenshot(t, "file://"+page+"#compare", filepath.Join(shotDir(t), "compare.png"), 1400, 900)

	// Sim groups are marked in the index.
	dom := openPage(t, b, page, "index")
	if got := viewtest.Count(dom, `class="badge sim"`); got != 2 {
		t.Errorf("index: %d groups marked SIMULATED; want 2", got)
	}

	// The heading says which simulation and which task.
	n := simOf(regen)
	dom = openPage(t, b, page, fmt.Sprintf("sim/%d", n))
	if want := fmt.Sprintf(`id="sim-title">Simulation %d · task %s · trial %d · ledger (SIMULATED)<`, n, regen.TaskID, regen.Trial); !strings.Contains(dom, want) {
		t.Errorf("sim/%d: heading %q not found", n, want)
	}

	// A removed proposal stands before the reply the agent generated again,
	// after the message before it, with the feedback the model got.
	var rinfo agentInfo
	_ = json.Unmarshal(regen.AgentInfo, &rinfo)
	msgAt := replyMessage(t, regen, rinfo.Turns[regenTurn].Reply)
	reply := strings.Index(dom, fmt.Sprintf(`class="msg assistant" data-turn="%d"`, regen.Messages[msgAt].TurnIdx))
	prev := strings.Index(dom, fmt.Sprintf(`data-turn="%d"`, regen.Messages[msgAt-1].TurnIdx))
	prop := strings.Index(dom, fmt.Sprintf(`class="proposal" data-turn="%d"`, regenTurn))
	if prop < 0 || !(prev < prop && prop < reply) {
		t.Errorf("sim/%d: proposal of turn %d at %d; want between message %d (at %d) and the reply (at %d)", n, regenTurn, prop, msgAt-1, prev, reply)
	}
	if fb := strings.Index(dom[max(prop, 0):], "POLICY GATE: "+regenVerdict); prop < 0 || fb < 0 || prop+fb > reply {
		t.Errorf("sim/%d: the gate's feedback is not inside the proposal", n)
	}
	b.Screenshot(t, fmt.Sprintf("file://%s#sim/%d/gate", page, n), filepath.Join(shotDir(t), "simulation-proposal.png"), 1400, 1400)

	// A stopped call of a reply's last generation is drawn inside that
	// reply, after its own calls and before the next message.
	n = simOf(inReply)
	dom = openPage(t, b, page, fmt.Sprintf("sim/%d", n))
	msgAt = replyMessage(t, inReply, 0)
	start := strings.Index(dom, fmt.Sprintf(`class="msg assistant" data-turn="%d"`, inReply.Messages[msgAt].TurnIdx))
	next := strings.Index(dom, fmt.Sprintf(`data-turn="%d"`, inReply.Messages[msgAt+1].TurnIdx))
	stopped := strings.Index(dom, `class="call stopped"`)
	if start < 0 || !(start < stopped && stopped < next) {
		t.Errorf("sim/%d: stopped call at %d; want inside reply 0 (%d…%d)", n, stopped, start, next)
	}
	if !strings.Contains(dom, "POLICY GATE: BLOCK — not allowed here (test)") || !strings.Contains(dom, "ZZZ999") {
		t.Errorf("sim/%d: the stopped call's arguments or feedback are not shown", n)
	}
}

// TestViewOpenFailure: --open says so when the opener fails, and is quiet
// when it works. The opener is a script on PATH.
func TestViewOpenFailure(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	mustRun(t, "run", "--domain", "airline", "--backbone", "sim", "--user-backbone", "sim", "--no-judge", "--limit", "2", "--trials", "1", "--out", run, "--quiet")
	bin := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, tc := range []struct {
		name, script, want string
	}{
		{"fails", "#!/bin/sh\necho 'xdg-open: no method available for opening' >&2\nexit 3\n", "could not open a browser (xdg-open: exit status 3: xdg-open: no method available for opening); open file://"},
		{"works", "#!/bin/sh\nexit 0\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(tc.script), 0o755); err != nil {
				t.Fatal(err)
			}
			r := mustRun(t, "view", run, "--out", filepath.Join(t.TempDir(), "v.html"), "--open")
			if tc.want == "" && r.errOut != "" || tc.want != "" && !strings.Contains(r.errOut, tc.want) {
				t.Errorf("stderr %q; want %q", r.errOut, tc.want)
			}
		})
	}
}

// TestViewChunkFolderName: the chunk folder is named as the help says.
func TestViewChunkFolderName(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	mustRun(t, "run", "--domain", "airline", "--backbone", "sim", "--user-backbone", "sim", "--no-judge", "--limit", "2", "--trials", "1", "--out", run, "--quiet")
	help := mustRun(t, "view", "--help").out
	if !strings.Contains(help, "--out airline.html: airline.chunks/") {
		t.Fatalf("view --help does not name the chunk folder by example:\n%s", help)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ out, chunks string }{
		{"airline.html", "airline.chunks"},
		{"page", "page.chunks"},
		{"x.chunks", "x.chunks.chunks"},
	} {
		out := filepath.Join(dir, tc.out)
		mustRun(t, "view", run, "--out", out, "--split", "always")
		if fi, err := os.Stat(filepath.Join(dir, tc.chunks)); err != nil || !fi.IsDir() {
			t.Errorf("--out %s: no folder %s (%v)", tc.out, tc.chunks, err)
		}
		if fi, err := os.Stat(out); err != nil || fi.IsDir() {
			t.Errorf("--out %s: the page is missing (%v)", tc.out, err)
		}
	}
}
