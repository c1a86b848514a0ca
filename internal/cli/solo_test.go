package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/telecom"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// rescoreAgrees reports whether rescore's table says every simulation of
// the file agrees.
func rescoreAgrees(t *testing.T, out, file string, sims int) bool {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[0] == file {
			return f[2] == f[3] && f[3] == itoa(sims) && f[4] == "0"
		}
	}
	return false
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// callNames lists a trajectory's tool calls.
func callNames(msgs []message.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			out = append(out, c.Name+string(c.Arguments))
		}
	}
	return out
}

// TestSoloGoldRoundTrip runs every telecom base task in solo mode on the
// gold backbone through the real orchestrator (the agent performs every
// gold action, the user's included, then calls the stop tool): all earn
// the full reward. The run's τ²-bench export is detected as solo, rescores
// to the same rewards, and replays to the same trajectories and rewards.
func TestSoloGoldRoundTrip(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("114 telecom simulations and their replay; skipped with -short")
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "run")
	mustRun(t, "run", "--domain", "telecom", "--solo", "--backbone", "gold", "--no-judge", "--trials", "1", "--out", dir, "--quiet")
	run := loadRun(t, dir)
	if len(run.Records) != 114 || !run.Manifest.Solo || run.Manifest.UserBackbone != results.DummyUserImplementation {
		t.Fatalf("%d records, manifest solo %v user %q; want 114, solo, dummy_user", len(run.Records), run.Manifest.Solo, run.Manifest.UserBackbone)
	}
	full := 0
	for _, rec := range run.Records {
		if rec.TerminationReason == evaluator.AgentStop && rec.Reward() == 1 {
			full++
		} else {
			t.Errorf("task %s: %s, reward %v (%+v)", rec.TaskID, rec.TerminationReason, rec.Reward(), rec.RewardInfo)
		}
		last := rec.Messages[len(rec.Messages)-1]
		if rec.Messages[0].Role != message.Assistant || !rec.Messages[0].IsToolCall() || last.IsToolCall() || last.Role != message.Assistant {
			t.Errorf("task %s: trajectory starts with %+v and ends with %+v; want the agent's calls, then its stop message", rec.TaskID, rec.Messages[0], last)
		}
		if !bytes.Contains(rec.UserInfo, []byte(`"`+results.DummyUserImplementation+`"`)) {
			t.Errorf("task %s: user_info %s", rec.TaskID, rec.UserInfo)
		}
	}
	t.Logf("solo gold: %d/114 base tasks with full reward", full)

	out := filepath.Join(tmp, "solo.json")
	mustRun(t, "export", "--format", "tau2", dir, out)
	f, err := results.ReadTau2(out)
	if err != nil {
		t.Fatal(err)
	}
	if !results.IsSolo(f.Info) {
		t.Errorf("export info %s is not detected as solo", f.Info)
	}
	solo, err := telecom.LoadSolo(datatest.Root(t), telecom.Manual)
	if err != nil {
		t.Fatal(err)
	}
	if meta, _ := f.Meta(); meta.Policy != solo.Policy() {
		t.Error("exported policy is not the solo policy")
	}
	for _, criteria := range []string{"file", "domain"} {
		r := mustRun(t, "rescore", "--criteria", criteria, out)
		if !rescoreAgrees(t, r.out, "solo.json", 114) {
			t.Errorf("rescore --criteria %s of the solo export:\n%s", criteria, r.out)
		}
	}

	// Without solo detection the phone calls would not be replayed: the
	// same file labelled as a normal run disagrees.
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	normal := filepath.Join(tmp, "normal.json")
	if err := os.WriteFile(normal, bytes.Replace(raw, []byte(`"implementation": "llm_agent_solo"`), []byte(`"implementation": "llm_agent"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := mustRun(t, "rescore", normal); rescoreAgrees(t, r.out, "normal.json", 114) {
		t.Errorf("the solo file rescored as a normal run agrees everywhere; the solo detection is not what decides:\n%s", r.out)
	}

	replayDir := filepath.Join(tmp, "replay")
	mustRun(t, "run", "--domain", "telecom", "--solo", "--backbone", "replay:"+out, "--no-judge", "--trials", "1", "--out", replayDir, "--quiet")
	replayed := loadRun(t, replayDir)
	byKey := map[results.UnitKey]results.Record{}
	for _, rec := range run.Records {
		byKey[rec.Key()] = rec
	}
	for _, rec := range replayed.Records {
		orig := byKey[rec.Key()]
		if rec.Reward() != orig.Reward() || rec.TerminationReason != orig.TerminationReason || !slices.Equal(callNames(rec.Messages), callNames(orig.Messages)) {
			t.Errorf("task %s: replay %s reward %v, %d calls; recorded %s reward %v, %d calls", rec.TaskID,
				rec.TerminationReason, rec.Reward(), len(callNames(rec.Messages)), orig.TerminationReason, orig.Reward(), len(callNames(orig.Messages)))
		}
	}
	if len(replayed.Records) != 114 {
		t.Errorf("replay has %d records; want 114", len(replayed.Records))
	}
	if r := mustRun(t, "report", dir, replayDir); !strings.Contains(r.out, results.DummyUserImplementation) {
		t.Errorf("report of solo runs does not show the solo user column:\n%s", r.out)
	}
}

// TestSoloLedgerSimRoundTrip: LedgerAgent in solo mode on the sim backbone
// (faults injected) rescores and replays to the recorded rewards.
func TestSoloLedgerSimRoundTrip(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "run")
	mustRun(t, "run", "--domain", "telecom", "--solo", "--agent", "ledger", "--backbone", "sim:stale=0.3,violation=0.3,miss=0.2", "--no-judge",
		"--limit", "30", "--trials", "2", "--out", dir, "--quiet")
	run := loadRun(t, dir)
	passed := 0
	for _, rec := range run.Records {
		if rec.Success() {
			passed++
		}
	}
	if passed == 0 || passed == len(run.Records) {
		t.Errorf("%d of %d simulations passed; want the faults to fail some, not all", passed, len(run.Records))
	}
	out := filepath.Join(tmp, "solo.json")
	mustRun(t, "export", dir, out)
	if r := mustRun(t, "rescore", out); !rescoreAgrees(t, r.out, "solo.json", 60) {
		t.Errorf("rescore of the ledger solo export:\n%s", r.out)
	}
	replayDir := filepath.Join(tmp, "replay")
	mustRun(t, "run", "--domain", "telecom", "--solo", "--agent", "ledger", "--backbone", "replay:"+out, "--no-judge", "--limit", "30", "--trials", "2", "--out", replayDir, "--quiet")
	want := rewards(run)
	for _, rec := range loadRun(t, replayDir).Records {
		if w := want[rec.Key()]; rec.Reward() != w {
			t.Errorf("unit %v: replay reward %v; recorded %v", rec.Key(), rec.Reward(), w)
		}
	}
}

// TestSoloFirstRequest checks the requests of a solo run against upstream's
// text read from the data directory: the first holds the system message
// alone (solo instruction, solo policy, the task's ticket), the tools are
// the agent's, then the user's, then the stop tool, and tool_choice is
// "required"; the agent's phone call is answered by the phone.
func TestSoloFirstRequest(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	root := datatest.Root(t)
	src, err := os.ReadFile(baseline.AgentSource(root))
	if err != nil {
		t.Fatal(err)
	}
	stop := string(regexp.MustCompile(`STOP_FUNCTION_NAME = "([^"]+)"`).FindSubmatch(src)[1])
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		if len(r.Messages) == 1 {
			return openaitest.Calls(openaitest.Call("check_status_bar", `{}`))
		}
		return openaitest.Calls(openaitest.Call(stop, `{}`))
	})
	tmp := t.TempDir()
	bb := writeBackbones(t, tmp, srv.BaseURL(), 5*time.Second)
	dom, err := telecom.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	base, err := dom.Tasks().Select(tasks.Selection{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	task := base[0]
	dir := filepath.Join(tmp, "run")
	if r, err := runInProcess(t, t.Context(), "--domain", "telecom", "--solo", "--backbone", "fake", "--backbones", bb, "--no-judge",
		"--task-ids", task.ID, "--trials", "1", "--out", dir, "--quiet"); err != nil {
		t.Fatalf("run: %v\n%s", err, r.errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; want 2", len(reqs))
	}

	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(data.Tau2Domain(root, "telecom"), name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	policy := "<main_policy>\n" + read("main_policy_solo.md") + "\n</main_policy>\n<tech_support_policy>\n" + read("tech_support_manual.md") + "\n</tech_support_policy>"
	instr := strings.ReplaceAll(constant(t, src, "AGENT_SOLO_INSTRUCTION"), "{stop_function_name}", stop)
	want := strings.NewReplacer("{agent_instruction}", instr, "{domain_policy}", policy, "{ticket}", *task.Ticket).Replace(constant(t, src, "SYSTEM_PROMPT_SOLO"))

	first := reqs[0]
	if len(first.Messages) != 1 || first.Messages[0].Role != "system" {
		t.Fatalf("first request messages %+v; want the system message alone", first.Messages)
	}
	if got := first.Messages[0].Text(); got != want {
		t.Errorf("system message differs from upstream's solo prompt:\n got %.300q…\nwant %.300q…", got, want)
	}
	if string(first.ToolChoice) != `"required"` {
		t.Errorf("tool_choice %s; want \"required\"", first.ToolChoice)
	}
	var names []string
	for _, tl := range first.Tools {
		names = append(names, tl.Name)
	}
	var wantNames []string
	for _, tl := range slices.Concat(dom.AgentTools(), dom.UserTools()) {
		wantNames = append(wantNames, tl.Name)
	}
	wantNames = append(wantNames, stop)
	if !slices.Equal(names, wantNames) {
		t.Errorf("tools %v\nwant %v", names, wantNames)
	}
	doc := string(regexp.MustCompile(`def ` + stop + `\(\) -> str:\s*"""([^"]+)"""`).FindSubmatch(src)[1])
	last := first.Tools[len(first.Tools)-1]
	var params any
	if err := json.Unmarshal(last.Parameters, &params); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(params); last.Description != doc || string(b) != `{"properties":{},"title":"parameters","type":"object"}` {
		t.Errorf("stop tool %q %s; want %q and pydantic's empty parameters", last.Description, b, doc)
	}

	second := reqs[1]
	if len(second.Messages) != 3 || second.Messages[1].Role != "assistant" || second.Messages[2].Role != "tool" ||
		!strings.Contains(second.Messages[2].Text(), "Status Bar") || string(second.ToolChoice) != `"required"` {
		t.Errorf("second request %+v; want system, the phone call, the phone's answer", second.Messages)
	}
	rec := loadRun(t, dir).Records[0]
	if rec.TerminationReason != evaluator.AgentStop || len(rec.Messages) != 3 || rec.AgentCalls != 2 {
		t.Errorf("record: %s, %d messages, %d agent calls; want agent_stop, 3, 2", rec.TerminationReason, len(rec.Messages), rec.AgentCalls)
	}
}

// constant reads a `NAME = """…""".strip()` constant with a regular
// expression, independently of the loader's parser.
func constant(t *testing.T, src []byte, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)\n` + name + ` = """(.*?)"""\.strip\(\)`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("%s not found in llm_agent.py", name)
	}
	return strings.TrimSpace(string(m[1]))
}

func TestSoloRefused(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"domain without solo mode", []string{"--domain", "retail", "--solo", "--backbone", "gold"}, ExitUsage, "retail has no solo mode"},
		{"agent without solo mode", []string{"--domain", "telecom", "--solo", "--agent", "irma", "--backbone", "gold"}, ExitUsage, `agent "irma" has no solo mode`},
		{"user backbone", []string{"--domain", "telecom", "--solo", "--backbone", "gold", "--user-backbone", "gold"}, ExitUsage, "--solo runs without a user"},
		{"solo user without --solo", []string{"--domain", "telecom", "--backbone", "gold", "--user-backbone", "dummy_user"}, ExitUsage, "pass --solo"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--no-judge", "--trials", "1", "--out", filepath.Join(t.TempDir(), "run")}, tc.args...)
			r := execCLI(t, t.Context(), args...)
			if r.code != tc.code || !strings.Contains(r.errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.errOut, tc.code, tc.want)
			}
		})
	}
}
