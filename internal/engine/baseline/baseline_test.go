package baseline_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestLoadPrompt reads the agent's text from the pulled sources: the
// system prompt is SYSTEM_PROMPT with AGENT_INSTRUCTION and the policy
// filled in, the greeting is DEFAULT_FIRST_AGENT_MESSAGE's content.
func TestLoadPrompt(t *testing.T) {
	t.Parallel()
	p := loadPrompt(t)
	tmpl := p.Texts()["agent_system_template"]
	const fi, fp = "{agent_instruction}", "{domain_policy}"
	i, j := strings.Index(tmpl, fi), strings.Index(tmpl, fp)
	if i < 0 || j < i || strings.Count(tmpl, "{") != 2 {
		t.Fatalf("SYSTEM_PROMPT %q; want the fields agent_instruction, domain_policy in that order", tmpl)
	}
	want := tmpl[:i] + p.Instruction + tmpl[i+len(fi):j] + "POLICY" + tmpl[j+len(fp):]
	if got := p.System("POLICY"); got != want || !strings.HasPrefix(got, "<instructions>\n") || !strings.HasSuffix(got, "\nPOLICY\n</policy>") {
		t.Errorf("System = %q; want %q", got, want)
	}
	if p.Instruction == "" || p.Instruction != strings.TrimSpace(p.Instruction) || p.Greeting == "" {
		t.Errorf("instruction %q (upstream strips it), greeting %q", p.Instruction, p.Greeting)
	}
	a := baseline.New(nil, baseline.Options{SystemPrompt: p.System("POLICY")})
	if a.SystemMessage() != want {
		t.Errorf("agent's system message is not the prompt")
	}
}

// A missing file or symbol is an error naming both.
func TestLoadPromptErrors(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	write := func(t *testing.T, dir, rel, text string) {
		path := filepath.Join(dir, "tau2-bench", "src", "tau2", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	orch, err := os.ReadFile(filepath.Join(root, "tau2-bench", "src", "tau2", "orchestrator", "orchestrator.py"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, agent, orch string
		want              []string
	}{
		{"no agent file", "", string(orch), []string{agentFile}},
		{"no instruction", "SYSTEM_PROMPT = '{agent_instruction}{domain_policy}'\n", string(orch), []string{agentFile, "AGENT_INSTRUCTION"}},
		{"no template", "AGENT_INSTRUCTION = 'x'\n", string(orch), []string{agentFile, "SYSTEM_PROMPT"}},
		{"template without policy", "AGENT_INSTRUCTION = 'x'\nSYSTEM_PROMPT = '{agent_instruction}{other}'\n", string(orch), []string{"SYSTEM_PROMPT", "other"}},
		{"no greeting", "AGENT_INSTRUCTION = 'x'\nSYSTEM_PROMPT = '{agent_instruction}{domain_policy}'\n", "X = 1\n", []string{baseline.OrchestratorSource, "DEFAULT_FIRST_AGENT_MESSAGE"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.agent != "" {
				write(t, dir, agentFile, tc.agent)
			}
			write(t, dir, baseline.OrchestratorSource, tc.orch)
			_, err := baseline.LoadPrompt(dir)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), filepath.FromSlash(w)) {
					t.Errorf("LoadPrompt error %v; want it to name %s", err, w)
				}
			}
		})
	}
}

const agentFile = "agent/llm_agent.py"

func loadPrompt(t *testing.T) *baseline.Prompt {
	t.Helper()
	p, err := baseline.LoadPrompt(datatest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ptr[T any](v T) *T { return &v }

// newClient returns a client of the fake server with instant retries.
func newClient(t *testing.T, srv *openaitest.Server) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Backbone{Name: "fake", BaseURL: srv.BaseURL(), Model: "fake-model", Temperature: ptr(0.0), MaxRetries: ptr(2)},
		llm.Options{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAgentRequests(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	srv := openaitest.NewServer(t,
		openaitest.Calls(openaitest.Call("get_user_details", `{"user_id": "u1"}`), openaitest.Call("get_order_details", `{"order_id": "#O1"}`)),
		openaitest.Text("Your order #O1 is pending."),
	)
	a := baseline.New(newClient(t, srv), baseline.Options{SystemPrompt: loadPrompt(t).System(dom.Policy()), Tools: dom.AgentTools(), Seed: ptr(300)})
	ctx := t.Context()
	user := message.Message{Role: message.User, Content: "Where is my order #O1? I am u1."}
	m1, err := a.Next(ctx, []message.Message{{Role: message.Assistant, Content: orchestrator.DefaultGreeting}, user})
	if err != nil {
		t.Fatal(err)
	}
	if len(m1.ToolCalls) != 2 || m1.ToolCalls[1].Name != "get_order_details" || m1.Role != message.Assistant {
		t.Fatalf("parallel tool calls not kept: %+v", m1)
	}
	if m1.Usage == nil || m1.Usage.PromptTokens == 0 {
		t.Errorf("usage not set on the reply: %+v", m1.Usage)
	}
	results := []message.Message{
		{Role: message.Tool, ToolCallID: m1.ToolCalls[0].ID, Content: `{"user_id": "u1"}`, Requestor: message.ByAssistant},
		{Role: message.Tool, ToolCallID: m1.ToolCalls[1].ID, Content: `{"order_id": "#O1"}`, Requestor: message.ByAssistant},
	}
	m2, err := a.Next(ctx, results)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Content != "Your order #O1 is pending." {
		t.Errorf("second reply %q", m2.Content)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	r0 := reqs[0]
	if r0.Messages[0].Role != "system" || r0.Messages[0].Text() != loadPrompt(t).System(dom.Policy()) {
		t.Errorf("first message is not the system prompt: %+v", r0.Messages[0])
	}
	if len(r0.Tools) != len(dom.AgentTools()) || r0.Tools[2].Name != "pay_order" || string(r0.ToolChoice) != `"auto"` {
		t.Errorf("tools %+v, tool_choice %s", r0.Tools, r0.ToolChoice)
	}
	if r0.Seed == nil || *r0.Seed != 300 || r0.Temperature == nil || *r0.Temperature != 0 {
		t.Errorf("seed %v temperature %v", r0.Seed, r0.Temperature)
	}
	roles := func(r openaitest.Request) string {
		var s []string
		for _, m := range r.Messages {
			s = append(s, m.Role)
		}
		return strings.Join(s, ",")
	}
	if got := roles(reqs[1]); got != "system,assistant,user,assistant,tool,tool" {
		t.Errorf("second request roles %s", got)
	}
	if tc := reqs[1].Messages[3].ToolCalls; len(tc) != 2 || tc[0].Arguments != `{"user_id": "u1"}` {
		t.Errorf("assistant tool calls sent back as %+v", tc)
	}
	if reqs[1].Messages[5].ToolCallID != m1.ToolCalls[1].ID {
		t.Errorf("tool results out of order")
	}
	rep := a.Report().(baseline.Report)
	if rep.ModelCalls != 2 || rep.Usage.PromptTokens == 0 || rep.Implementation != "baseline" {
		t.Errorf("report %+v", rep)
	}
	if got := len(a.Messages()); got != 7 {
		t.Errorf("state has %d messages; want 7", got)
	}
}

// Through the orchestrator: a malformed tool-argument reply becomes a tool
// error the agent sees; a 429 is retried; an empty reply is an agent error.
func TestAgentThroughOrchestrator(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	task := offlinetest.Task("pay")
	srv := openaitest.NewServer(t,
		openaitest.Status(429, "0"),
		openaitest.Calls(openaitest.Call("get_user_details", `{"user_id": "u1"`)), // malformed
		openaitest.Text("Sorry, let me try again. Please hold on."),
	)
	a := baseline.New(newClient(t, srv), baseline.Options{SystemPrompt: "SYS\n" + dom.Policy(), Tools: dom.AgentTools(), Seed: ptr(1)})
	u := usersim.New(offline.NewUser(task), usersim.Options{System: "g" + "\n" + task.UserScenario.String()})
	rec, err := orchestrator.Run(t.Context(), dom, task, a, u, orchestrator.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// greeting, user, assistant(call), tool(error), assistant(text), user(stop)
	if rec.TerminationReason != "user_stop" {
		t.Fatalf("termination %s (%s)", rec.TerminationReason, rec.Error)
	}
	tm := rec.Messages[3]
	if tm.Role != message.Tool || !tm.Error || !strings.HasPrefix(tm.Content, "Error: ") {
		t.Errorf("malformed arguments gave %+v", tm)
	}
	rep := a.Report().(baseline.Report)
	if rep.ModelCalls != 2 || rep.MalformedArgs != 1 {
		t.Errorf("report %+v", rep)
	}
	if st := srv.Stats(); st.Requests != 3 {
		t.Errorf("%d requests; want 3 (one retried 429)", st.Requests)
	}
	// The empty reply, in a fresh conversation.
	srv2 := openaitest.NewServer(t, openaitest.Empty())
	a2 := baseline.New(newClient(t, srv2), baseline.Options{SystemPrompt: "SYS\n" + dom.Policy(), Tools: dom.AgentTools()})
	u2 := usersim.New(offline.NewUser(task), usersim.Options{System: "g" + "\n" + task.UserScenario.String()})
	rec2, err := orchestrator.Run(t.Context(), dom, task, a2, u2, orchestrator.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if rec2.TerminationReason != "agent_error" || a2.Report().(baseline.Report).EmptyReplies != 1 {
		t.Errorf("empty reply: termination %s", rec2.TerminationReason)
	}
}

func TestInfrastructureError(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	task := offlinetest.Task("pay")
	cases := []struct {
		name    string
		replies []openaitest.Reply
	}{
		{"unauthorized", []openaitest.Reply{openaitest.Status(401, "")}},
		{"server errors exhaust retries", []openaitest.Reply{openaitest.Status(500, ""), openaitest.Status(500, ""), openaitest.Status(503, "")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, tc.replies...)
			a := baseline.New(newClient(t, srv), baseline.Options{SystemPrompt: "SYS\n" + dom.Policy(), Tools: dom.AgentTools()})
			_, err := a.Next(t.Context(), []message.Message{{Role: message.User, Content: "hi"}})
			if !errors.Is(err, fault.ErrInfrastructure) || !errors.Is(err, fault.ErrInfrastructure) {
				t.Fatalf("error %v does not wrap both infrastructure errors", err)
			}
			if a.ModelCalls() != 0 {
				t.Errorf("failed call counted")
			}
			srv2 := openaitest.NewServer(t, tc.replies...)
			a2 := baseline.New(newClient(t, srv2), baseline.Options{SystemPrompt: "SYS\n" + dom.Policy(), Tools: dom.AgentTools()})
			u := usersim.New(offline.NewUser(task), usersim.Options{System: "g" + "\n" + task.UserScenario.String()})
			rec, err := orchestrator.Run(t.Context(), dom, task, a2, u, orchestrator.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if rec.TerminationReason != "infrastructure_error" || rec.Error == "" {
				t.Errorf("termination %s error %q", rec.TerminationReason, rec.Error)
			}
		})
	}
}

// The hooks let a caller add to the request without touching the state,
// and account every call (LedgerAgent adds a ledger block; IRMA adds helper
// calls).
func TestHooks(t *testing.T) {
	t.Parallel()
	gen := &echo{}
	a := baseline.New(gen, baseline.Options{SystemPrompt: "SYS"})
	a.Observe([]message.Message{{Role: message.User, Content: "hi"}})
	req := a.Request()
	req.Messages = append(req.Messages, message.Message{Role: message.System, Content: "LEDGER"})
	m, err := a.Generate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Messages()) != 2 || gen.last != 3 {
		t.Fatalf("appending to the request changed the state (%d messages) or was not sent (%d)", len(a.Messages()), gen.last)
	}
	a.Commit(m)
	r2 := baseline.AppendToSystem(a.Request(), "\n<ledger>x</ledger>")
	if r2.Messages[0].Content != "SYS\n<ledger>x</ledger>" || a.SystemMessage() != "SYS" || len(r2.Messages) != 3 {
		t.Errorf("AppendToSystem: %q / %q", r2.Messages[0].Content, a.SystemMessage())
	}
	if _, err := a.Generate(t.Context(), llm.Request{Messages: []message.Message{{Role: message.User, Content: "helper"}}}); err != nil {
		t.Fatal(err)
	}
	if a.ModelCalls() != 2 || len(a.Messages()) != 3 {
		t.Errorf("calls %d messages %d", a.ModelCalls(), len(a.Messages()))
	}
	var rep baseline.Report
	b, _ := json.Marshal(a.Report())
	_ = json.Unmarshal(b, &rep)
	if rep.ModelCalls != 2 {
		t.Errorf("report %s", b)
	}
}

// echo is a zero-latency generator answering with a fixed text.
type echo struct{ last int }

func (e *echo) Generate(_ context.Context, req llm.Request) (llm.Response, error) {
	e.last = len(req.Messages)
	return llm.Response{Message: message.Message{Role: message.Assistant, Content: "ok"}, Usage: message.Usage{PromptTokens: 1, CompletionTokens: 1}}, nil
}

// BenchmarkAgentTurn measures the harness's own work per agent turn (state
// update, request assembly, accounting) over a zero-latency generator, in
// conversations of 40 turns.
func BenchmarkAgentTurn(b *testing.B) {
	dom := offlinetest.New()
	gen := &echo{}
	in := []message.Message{{Role: message.Tool, Content: `{"order_id": "#O1", "status": "pending"}`, ToolCallID: "c1", Requestor: message.ByAssistant}}
	ctx := context.Background()
	var a *baseline.Agent
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%40 == 0 {
			a = baseline.New(gen, baseline.Options{SystemPrompt: "SYS\n" + dom.Policy(), Tools: dom.AgentTools(), Seed: ptr(1)})
		}
		if _, err := a.Next(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}
