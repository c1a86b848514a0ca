package irma_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/cli"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/irma"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func writeBackbones(t *testing.T, baseURL string) string {
	t.Helper()
	yaml := fmt.Sprintf(`backbones:
  fake:
    base_url: %s
    model: fake-model
    api_key_env: FAKE_KEY
    temperature: 0.0
`, baseURL)
	path := filepath.Join(t.TempDir(), "backbones.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func getenv(k string) string {
	if k == "FAKE_KEY" {
		return "sk-test"
	}
	return ""
}

// Fixed token counts of the fake API's replies.
var (
	apiConstraints = openaitest.Usage{PromptTokens: 120, CompletionTokens: 12}
	apiTools       = openaitest.Usage{PromptTokens: 80, CompletionTokens: 8}
	apiAgent       = openaitest.Usage{PromptTokens: 1000, CompletionTokens: 40}
	apiUser        = openaitest.Usage{PromptTokens: 500, CompletionTokens: 10}
)

// reqKind tells a fake-API request's role: a helper kind, "agent" or "user".
func reqKind(r *openaitest.Request) string {
	sys := r.Messages[0].Text()
	if rest, ok := strings.CutPrefix(sys, irma.HelperMarker+": "); ok {
		kind, _, _ := strings.Cut(rest, "\n")
		return kind
	}
	if strings.HasPrefix(sys, "<instructions>") {
		return "agent"
	}
	return "user"
}

func count(msgs []openaitest.Message, role string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role {
			n++
		}
	}
	return n
}

func decodeReport(t *testing.T, rec results.Record) irma.Report {
	t.Helper()
	var r irma.Report
	if err := json.Unmarshal(rec.AgentInfo, &r); err != nil {
		t.Fatalf("agent info %s: %v", rec.AgentInfo, err)
	}
	return r
}

// The agent built by agents.Build on the fake OpenAI API, with the τ² user
// on the same API, through the orchestrator: the agent asks a follow-up
// question, pays, and closes. Helpers run on the two user turns only, with
// the policy / tool schemas and the user's messages; their outputs reach the
// agent's prompt; every token is counted.
func TestFakeAPIRun(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	task := offlinetest.Task("pay")
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		users := count(r.Messages, "user")
		last := r.LastMessage()
		var rep openaitest.Reply
		switch reqKind(r) {
		case irma.KindConstraints:
			rep = openaitest.Text(fmt.Sprintf("- Authenticate the user first. [after %d user messages]", strings.Count(r.Messages[1].Text(), "\n[")))
			rep.Usage = &apiConstraints
		case irma.KindTools:
			rep = openaitest.Text(fmt.Sprintf("- pay_order: the user wants to pay. [after %d user messages]", strings.Count(r.Messages[1].Text(), "\n[")))
			rep.Usage = &apiTools
		case "agent":
			switch {
			case last.Role == "tool":
				rep = openaitest.Text("Done: #O1 is paid.")
			case users == 1:
				rep = openaitest.Text("Which payment method should I use for #O1?")
			default:
				rep = openaitest.Calls(openaitest.Call("pay_order", `{"order_id": "#O1", "payment_method_id": "card_1"}`))
			}
			rep.Usage = &apiAgent
		default:
			said := []string{"Please pay my order #O1. I am u1.", "Use card_1.", "Thanks! ###STOP###"}
			rep = openaitest.Text(said[min(count(r.Messages, "assistant"), 2)])
			rep.Usage = &apiUser
		}
		return rep
	})
	makers, _, err := agents.Build(t.Context(), agents.Options{Domain: dom, DataRoot: datatest.Root(t), Agent: "irma", Backbone: "fake",
		BackbonesFile: writeBackbones(t, srv.BaseURL()), Getenv: getenv, JudgeBackbone: agents.NoJudge})
	if err != nil {
		t.Fatal(err)
	}
	spec := runner.Spec{Domain: dom, Task: task, Seed: 42}
	a, err := makers.Agent(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.(*irma.Agent); !ok {
		t.Fatalf("agent %T", a)
	}
	u, _ := makers.User(spec)
	rec, err := orchestrator.Run(t.Context(), dom, task, a, u, orchestrator.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.TerminationReason != "user_stop" {
		t.Fatalf("termination %s: %s", rec.TerminationReason, rec.Error)
	}

	var kinds []string
	for _, r := range srv.Requests() {
		k := reqKind(&r)
		switch k {
		case irma.KindConstraints, irma.KindTools:
			if len(r.Tools) != 0 || r.ToolChoice != nil || r.Seed == nil || *r.Seed != 42 || r.Temperature == nil || *r.Temperature != 0 {
				t.Errorf("%s helper request: %d tools, tool_choice %s, seed %v", k, len(r.Tools), r.ToolChoice, r.Seed)
			}
			sys, in := r.Messages[0].Text(), r.Messages[1].Text()
			if len(r.Messages) != 2 || !strings.HasPrefix(in, "<user_messages>\n[1] Please pay my order #O1. I am u1.\n") {
				t.Errorf("%s helper input lacks the user's request:\n%s", k, in)
			}
			if k == irma.KindConstraints && !strings.Contains(sys, offlinetest.Policy) {
				t.Errorf("constraints input lacks the policy:\n%s", sys)
			}
			if k == irma.KindTools && (!strings.Contains(sys, `{"name":"pay_order"`) || strings.Contains(sys, offlinetest.Policy)) {
				t.Errorf("tools input:\n%s", sys)
			}
		case "agent":
			sys := r.Messages[0].Text()
			n := count(r.Messages, "user")
			for _, want := range []string{
				fmt.Sprintf("- Authenticate the user first. [after %d user messages]", n),
				fmt.Sprintf("- pay_order: the user wants to pay. [after %d user messages]", n),
				"Before you act, make sure you know enough",
			} {
				if !strings.Contains(sys, want) {
					t.Errorf("agent request with %d user messages lacks %q", n, want)
				}
			}
		}
		kinds = append(kinds, k)
	}
	helpers := 0
	for _, k := range kinds {
		if k == irma.KindConstraints || k == irma.KindTools {
			helpers++
		}
	}
	if helpers != 4 {
		t.Errorf("%d helper calls (%v); want 4: two rounds, none on the tool-result turn", helpers, kinds)
	}

	r := decodeReport(t, rec)
	u1 := func(u openaitest.Usage) message.Usage {
		return message.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	}
	helperUsage := u1(apiConstraints).Add(u1(apiTools))
	helperUsage = helperUsage.Add(helperUsage)
	mainUsage := message.Usage{PromptTokens: 3 * apiAgent.PromptTokens, CompletionTokens: 3 * apiAgent.CompletionTokens}
	if r.HelperCalls != 4 || r.HelperUsage != helperUsage || r.Base.ModelCalls != 3 || r.Base.Usage != mainUsage ||
		r.TotalCalls != 7 || r.TotalUsage != mainUsage.Add(helperUsage) {
		t.Errorf("report: helpers %d %+v, main %d %+v, total %d %+v", r.HelperCalls, r.HelperUsage, r.Base.ModelCalls, r.Base.Usage, r.TotalCalls, r.TotalUsage)
	}
	if rec.AgentUsage != r.TotalUsage {
		t.Errorf("record agent_usage %+v != report total_usage %+v", rec.AgentUsage, r.TotalUsage)
	}
	if rec.UserUsage.PromptTokens != 3*apiUser.PromptTokens {
		t.Errorf("user usage %+v", rec.UserUsage)
	}
}

// runCLI runs the command line in process.
func runCLI(t *testing.T, env func(string) string, args ...string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &cli.Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: env}
	if code := cli.Execute(context.Background(), s, append([]string{"--data", datatest.Root(t)}, args...)); code != cli.ExitOK {
		t.Fatalf("ledgerbench %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

func loadRecords(t *testing.T, dir string) []results.Record {
	t.Helper()
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run.Records
}

// `ledgerbench run --agent irma` on retail against the fake API.
func TestCLIRunFakeAPI(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	dom, err := domains.Load("retail", root)
	if err != nil {
		t.Fatal(err)
	}
	policyStart := strings.SplitN(dom.Policy(), "\n", 2)[0]
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		var rep openaitest.Reply
		switch k := reqKind(r); k {
		case irma.KindConstraints, irma.KindTools:
			sys := r.Messages[0].Text()
			if k == irma.KindConstraints && !strings.Contains(sys, policyStart) || k == irma.KindTools && !strings.Contains(sys, `{"name":"exchange_delivered_order_items"`) ||
				!strings.HasPrefix(r.Messages[1].Text(), "<user_messages>\n[1] I want to return something I ordered.\n") {
				t.Errorf("%s helper request:\n%.300s", k, sys)
			}
			rep = openaitest.Text("- " + k + " output")
			rep.Usage = &apiTools
		case "agent":
			if len(r.Tools) != len(dom.AgentTools()) || !strings.Contains(r.Messages[0].Text(), "- tools output") {
				t.Errorf("agent request: %d tools; system lacks the helper output", len(r.Tools))
			}
			rep = openaitest.Text("Could you tell me your user id or email, please?")
			rep.Usage = &apiAgent
		default:
			if count(r.Messages, "assistant") == 0 {
				rep = openaitest.Text("I want to return something I ordered.")
			} else {
				rep = openaitest.Text("###STOP###")
			}
			rep.Usage = &apiUser
		}
		return rep
	})
	dir := filepath.Join(t.TempDir(), "run")
	runCLI(t, getenv, "run", "--domain", "retail", "--agent", "irma", "--backbone", "fake", "--backbones", writeBackbones(t, srv.BaseURL()),
		"--no-judge", "--limit", "2", "--trials", "1", "--quiet", "--out", dir)
	recs := loadRecords(t, dir)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	for _, rec := range recs {
		r := decodeReport(t, rec)
		if rec.Agent != "irma" || r.Implementation != "irma" || r.HelperCalls != 2 || r.Base.ModelCalls != 1 || rec.AgentUsage != r.TotalUsage ||
			r.TotalUsage.PromptTokens != apiAgent.PromptTokens+2*apiTools.PromptTokens {
			t.Errorf("record %s: agent %q, report %+v, agent_usage %+v", rec.TaskID, rec.Agent, r, rec.AgentUsage)
		}
	}
}

// `ledgerbench run --agent irma` with the offline backbones.
func TestCLIRunOffline(t *testing.T) {
	t.Parallel()
	for _, bb := range []string{"gold", "sim"} {
		t.Run(bb, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			runCLI(t, func(string) string { return "" }, "run", "--domain", "retail", "--agent", "irma", "--backbone", bb,
				"--no-judge", "--limit", "4", "--trials", "1", "--quiet", "--out", dir)
			recs := loadRecords(t, dir)
			if len(recs) != 4 {
				t.Fatalf("%d records", len(recs))
			}
			for _, rec := range recs {
				r := decodeReport(t, rec)
				if rec.Agent != "irma" || r.HelperCalls == 0 || r.HelperCalls != 2*r.HelperRounds {
					t.Errorf("record %s: %+v", rec.TaskID, r)
				}
				if bb == "gold" && !rec.Success() {
					t.Errorf("gold task %s failed under irma: %s %v", rec.TaskID, rec.TerminationReason, rec.Reward())
				}
			}
		})
	}
}

// On the offline backbones IRMA plays exactly the baseline's trajectory
// (helper calls get a fixed reply and do not move the script), on every
// registered domain, and runs its helpers once per user message the agent
// answered.
func TestOfflineSameTrajectories(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	limit := 6
	if testing.Short() {
		limit = 2
	}
	for _, name := range domains.Names() {
		dom, err := domains.LoadOffline(name, root)
		if err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
		ts, err := dom.Tasks().Select(tasks.Selection{})
		if err != nil {
			t.Fatal(err)
		}
		ts = ts[:min(limit, len(ts))]
		for _, bb := range []string{"gold", "sim:stale=0.3,violation=0.3,miss=0.2"} {
			t.Run(name+"/"+bb, func(t *testing.T) {
				base := play(t, dom, root, "baseline", bb, ts)
				ir := play(t, dom, root, "irma", bb, ts)
				for i := range ts {
					if got, want := transcript(ir[i]), transcript(base[i]); got != want {
						t.Errorf("task %s: irma's trajectory differs from the baseline's:\n--- irma\n%s\n--- baseline\n%s", ts[i].ID, got, want)
					}
					if ir[i].Reward() != base[i].Reward() {
						t.Errorf("task %s: reward %v; baseline %v", ts[i].ID, ir[i].Reward(), base[i].Reward())
					}
					if bb == "gold" && !ir[i].Success() {
						t.Errorf("task %s: gold fails under irma", ts[i].ID)
					}
					r := decodeReport(t, ir[i])
					if want := answeredUserMessages(ir[i].Messages); r.HelperRounds != want || r.HelperCalls != 2*want {
						t.Errorf("task %s: %d helper rounds, %d calls; want %d rounds", ts[i].ID, r.HelperRounds, r.HelperCalls, want)
					}
					var baseInfo struct {
						Backbone json.RawMessage `json:"backbone"`
					}
					var irmaInfo struct {
						Base struct {
							Backbone json.RawMessage `json:"backbone"`
						} `json:"base"`
					}
					_ = json.Unmarshal(base[i].AgentInfo, &baseInfo)
					_ = json.Unmarshal(ir[i].AgentInfo, &irmaInfo)
					if string(irmaInfo.Base.Backbone) != string(baseInfo.Backbone) || len(baseInfo.Backbone) == 0 {
						t.Errorf("task %s: backbone report %s; baseline %s", ts[i].ID, irmaInfo.Base.Backbone, baseInfo.Backbone)
					}
				}
			})
		}
	}
}

// With the replay backbone (a recorded τ²-bench run), IRMA plays the same
// trajectory as the baseline: helper calls get the fixed offline reply and
// do not consume recorded turns.
func TestReplaySameTrajectories(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	dom, err := domains.Load("telecom", root)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "gpt-4.1_telecom_default_gpt-4.1_1trials.json")
	rec, err := offline.LoadRecording(file)
	if err != nil {
		t.Fatal(err)
	}
	all, err := dom.Tasks().Select(tasks.Selection{Split: "all"})
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, task := range all {
		known[task.ID] = true
	}
	var ids []string
	for _, id := range rec.TaskIDs() {
		if known[id] && len(ids) < 3 {
			ids = append(ids, id)
		}
	}
	ts, err := dom.Tasks().Select(tasks.Selection{Split: "all", TaskIDs: ids})
	if err != nil || len(ts) == 0 {
		t.Fatalf("tasks %v: %v", ids, err)
	}
	bb := "replay:" + file
	base := playTrial(t, dom, root, "baseline", bb, ts, 0)
	ir := playTrial(t, dom, root, "irma", bb, ts, 0)
	for i := range ts {
		if len(base[i].Messages) < 6 {
			t.Errorf("task %s: the replay ended early: %s %q", ts[i].ID, base[i].TerminationReason, base[i].Error)
		}
		if got, want := transcript(ir[i]), transcript(base[i]); got != want {
			t.Errorf("task %s: irma's replay differs from the baseline's:\n--- irma\n%s\n--- baseline\n%s", ts[i].ID, got, want)
		}
		if r := decodeReport(t, ir[i]); r.HelperCalls == 0 || r.HelperCalls != 2*answeredUserMessages(ir[i].Messages) {
			t.Errorf("task %s: %d helper calls", ts[i].ID, r.HelperCalls)
		}
	}
}

func play(t *testing.T, dom envs.Domain, root, agent, backbone string, ts []tasks.Task) []results.Record {
	t.Helper()
	return playTrial(t, dom, root, agent, backbone, ts, 0)
}

func playTrial(t *testing.T, dom envs.Domain, root, agent, backbone string, ts []tasks.Task, trial int) []results.Record {
	t.Helper()
	makers, _, err := agents.Build(t.Context(), agents.Options{Domain: dom, DataRoot: root, Agent: agent, Backbone: backbone})
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	out := make([]results.Record, len(ts))
	for i := range ts {
		spec := runner.Spec{Domain: dom, Task: &ts[i], Trial: trial, Seed: 11}
		a, err := makers.Agent(spec)
		if err != nil {
			t.Fatal(err)
		}
		u, err := makers.User(spec)
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = orchestrator.Run(t.Context(), dom, &ts[i], a, u, orchestrator.Config{Now: now}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// transcript is a trajectory without usage and times.
func transcript(rec results.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "termination %s\n", rec.TerminationReason)
	for _, m := range rec.Messages {
		calls, _ := json.Marshal(m.ToolCalls)
		fmt.Fprintf(&b, "%s %q %s %s %v\n", m.Role, m.Content, calls, m.ToolCallID, m.Error)
	}
	return b.String()
}

// answeredUserMessages counts the user's text messages that reached the
// agent (a stop message ends the conversation instead).
func answeredUserMessages(msgs []message.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == message.User && m.HasText() && !m.IsToolCall() && !orchestrator.IsUserStop(m) {
			n++
		}
	}
	return n
}
