package irma_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/irma"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
)

var update = flag.Bool("update", false, "update golden files")

func ptr[T any](v T) *T { return &v }

// helperKind tells a helper request's kind ("" for an agent turn).
func helperKind(req llm.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	rest, ok := strings.CutPrefix(req.Messages[0].Content, irma.HelperMarker+": ")
	if !ok {
		return ""
	}
	kind, _, _ := strings.Cut(rest, "\n")
	return kind
}

// fakeGen is an in-process backbone: helper requests get a text naming the
// helper round, agent turns the next scripted message. Usage and cost are
// fixed per kind so accounting can be checked exactly.
type fakeGen struct {
	mu     sync.Mutex
	script []message.Message
	reqs   []llm.Request
	rounds map[string]int
	fail   map[string]error // helper kind or "agent" → error
}

var (
	mainUsage        = message.Usage{PromptTokens: 1000, CompletionTokens: 50}
	constraintsUsage = message.Usage{PromptTokens: 300, CompletionTokens: 30}
	toolsUsage       = message.Usage{PromptTokens: 200, CompletionTokens: 20}
)

const (
	mainCost        = 0.01
	constraintsCost = 0.003
	toolsCost       = 0.002
)

func (g *fakeGen) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reqs = append(g.reqs, req)
	kind := helperKind(req)
	who := kind
	if who == "" {
		who = "agent"
	}
	if err := g.fail[who]; err != nil {
		return llm.Response{}, err
	}
	switch kind {
	case irma.KindConstraints:
		g.rounds[kind]++
		return llm.Response{Message: message.Message{Role: message.Assistant,
			Content: fmt.Sprintf("- Authenticate the user by user id first. (round %d)\n- Charge only a payment method of the user.", g.rounds[kind])},
			Usage: constraintsUsage, Cost: constraintsCost}, nil
	case irma.KindTools:
		g.rounds[kind]++
		return llm.Response{Message: message.Message{Role: message.Assistant,
			Content: fmt.Sprintf("- get_order_details: see the order's status (round %d)\n- pay_order: pay it with the chosen method", g.rounds[kind])},
			Usage: toolsUsage, Cost: toolsCost}, nil
	}
	if len(g.script) == 0 {
		return llm.Response{}, errors.New("fake: script exhausted")
	}
	m := g.script[0]
	g.script = g.script[1:]
	m.Role = message.Assistant
	return llm.Response{Message: m, Usage: mainUsage, Cost: mainCost}, nil
}

func newFake(script ...message.Message) *fakeGen {
	return &fakeGen{script: script, rounds: map[string]int{}, fail: map[string]error{}}
}

func (g *fakeGen) requests() []llm.Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]llm.Request(nil), g.reqs...)
}

func call(id, name, args string) message.Message {
	return message.Message{ToolCalls: []message.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args)}}}
}

func toolResult(id, content string) message.Message {
	return message.Message{Role: message.Tool, ToolCallID: id, Requestor: message.ByAssistant, Content: content}
}

func userMsg(s string) message.Message { return message.Message{Role: message.User, Content: s} }

// renderRequest writes a request as text for golden files.
func renderRequest(req llm.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "=== %s", m.Role)
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, " (%s)", m.ToolCallID)
		}
		b.WriteString("\n")
		if m.Content != "" {
			b.WriteString(m.Content)
			b.WriteString("\n")
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "[call %s %s %s]\n", c.ID, c.Name, c.Arguments)
		}
	}
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	fmt.Fprintf(&b, "=== tools: [%s] seed %v temperature %v\n", strings.Join(tools, " "), deref(req.Seed), deref(req.Temperature))
	return b.String()
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// shopConversation plays a four-turn conversation on the test shop: a
// follow-up question (FACT), a read, a write, a closing text. It returns the
// agent, the backbone and the agent's replies.
func shopConversation(t *testing.T, opts irma.Options) (*irma.Agent, *fakeGen, []message.Message) {
	t.Helper()
	dom := offlinetest.New()
	gen := newFake(
		message.Message{Content: "Sure. Which order is it, which payment method should I use, and what is your user id?"},
		call("c1", "get_order_details", `{"order_id": "#O1"}`),
		call("c2", "pay_order", `{"order_id": "#O1", "payment_method_id": "card_1"}`),
		message.Message{Content: "Order #O1 is paid with card_1."},
	)
	opts.Policy, opts.Tools, opts.Seed, opts.Temperature = dom.Policy(), dom.AgentTools(), ptr(7), ptr(0.0)
	a := irma.New(gen, opts)
	turns := [][]message.Message{
		{userMsg("Hi, I want to pay for my order.")},
		{userMsg("Order #O1 with card_1 please.\nI am u1.")},
		{toolResult("c1", `{"order_id": "#O1", "status": "pending"}`)},
		{toolResult("c2", `{"order_id": "#O1", "status": "paid"}`)},
	}
	var out []message.Message
	for i, in := range turns {
		m, err := a.Next(t.Context(), in)
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		out = append(out, m)
	}
	return a, gen, out
}

// ownPrompt is a baseline prompt of our own words in upstream's layout, so
// the IRMA renderings can be kept in golden files without upstream's text.
func ownPrompt() *baseline.Prompt {
	p, err := baseline.NewPrompt("<instructions>\n{agent_instruction}\n</instructions>\n<policy>\n{domain_policy}\n</policy>",
		"You are a test shop's agent. Follow the policy.", "Hello.")
	if err != nil {
		panic(err)
	}
	return p
}

func TestSystemPromptGolden(t *testing.T) {
	t.Parallel()
	goldentest.Check(t, *update, "system_prompt.golden", irma.SystemPrompt(ownPrompt(), offlinetest.Policy))
	p := ownPrompt()
	if got, want := irma.SystemPrompt(p, "p"), p.SystemWith(p.Instruction+"\n\n"+irma.FACTInstruction, "p"); got != want {
		t.Errorf("the IRMA prompt is not the baseline's with the FACT paragraph after the instruction:\n%s", got)
	}
}

// The helpers run on user-message turns only; their inputs are the policy
// or the tool schemas plus every user message; their outputs reach the
// agent's system message (reused on tool-result turns); the state holds no
// block.
func TestSchedulingAndContext(t *testing.T) {
	t.Parallel()
	a, gen, replies := shopConversation(t, irma.Options{Prompt: ownPrompt()})
	reqs := gen.requests()
	var kinds []string
	for _, r := range reqs {
		k := helperKind(r)
		if k == "" {
			k = "agent"
		}
		kinds = append(kinds, k)
	}
	// Constraints and tools run concurrently: compare each round as a set.
	for _, round := range [][2]int{{0, 2}, {3, 5}} {
		got := kinds[round[0]:round[1]]
		if !(got[0] == irma.KindConstraints && got[1] == irma.KindTools) && !(got[0] == irma.KindTools && got[1] == irma.KindConstraints) {
			t.Errorf("requests %d..%d are %v; want both helpers", round[0], round[1]-1, got)
		}
	}
	if strings.Join([]string{kinds[2], kinds[5], kinds[6], kinds[7]}, ",") != "agent,agent,agent,agent" || len(kinds) != 8 {
		t.Fatalf("request kinds %v; want 2 helpers + agent, 2 helpers + agent, agent, agent", kinds)
	}
	byKind := func(kind string, n int) llm.Request {
		for _, r := range reqs {
			if helperKind(r) == kind {
				if n == 0 {
					return r
				}
				n--
			}
		}
		t.Fatalf("no %s request %d", kind, n)
		return llm.Request{}
	}
	c2, t2 := byKind(irma.KindConstraints, 1), byKind(irma.KindTools, 1)
	goldentest.Check(t, *update, "helper_constraints.golden", renderRequest(c2))
	goldentest.Check(t, *update, "helper_tools.golden", renderRequest(t2))
	for _, r := range []llm.Request{c2, t2} {
		if len(r.Tools) != 0 || r.ToolChoice != "" || deref(r.Seed) != 7 || deref(r.Temperature) != 0.0 {
			t.Errorf("helper request: %d tools, choice %q, seed %v, temperature %v", len(r.Tools), r.ToolChoice, deref(r.Seed), deref(r.Temperature))
		}
		if !strings.Contains(r.Messages[1].Content, "[1] Hi, I want to pay for my order.\n[2] Order #O1 with card_1 please.\nI am u1.\n") {
			t.Errorf("helper input lacks the user messages:\n%s", r.Messages[1].Content)
		}
	}
	if !strings.HasSuffix(c2.Messages[0].Content, "\n\n<policy>\n"+offlinetest.Policy+"\n</policy>") {
		t.Errorf("constraints input lacks the policy")
	}
	for _, ti := range offlinetest.New().AgentTools() {
		if !strings.Contains(t2.Messages[0].Content, `{"name":"`+ti.Name+`","description":`) {
			t.Errorf("tools input lacks %s's schema", ti.Name)
		}
	}
	if strings.Contains(t2.Messages[0].Content+t2.Messages[1].Content, offlinetest.Policy) || strings.Contains(c2.Messages[0].Content+c2.Messages[1].Content, `"name":"pay_order"`) {
		t.Errorf("helper inputs mixed up")
	}
	if len(c2.Messages) != 2 || len(t2.Messages) != 2 || c2.Messages[1].Content != t2.Messages[1].Content {
		t.Errorf("helpers see different user requests")
	}

	// Turn 1 (first agent request) shows round 1; turns 2-4 show round 2.
	sys := func(r llm.Request) string { return r.Messages[0].Content }
	if s := sys(reqs[2]); !strings.Contains(s, "(round 1)") || strings.Contains(s, "[2]") {
		t.Errorf("turn 1 block:\n%s", s)
	}
	for _, i := range []int{5, 6, 7} {
		if s := sys(reqs[i]); !strings.Contains(s, "first. (round 2)") || !strings.Contains(s, "order's status (round 2)") {
			t.Errorf("request %d lacks the round-2 helper outputs:\n%s", i, s)
		}
	}
	goldentest.Check(t, *update, "agent_request.golden", renderRequest(reqs[6]))
	goldentest.Check(t, *update, "block.golden", a.Block())
	if !strings.HasSuffix(sys(reqs[6]), a.Block()) || !strings.HasPrefix(sys(reqs[6]), irma.SystemPrompt(ownPrompt(), offlinetest.Policy)) {
		t.Errorf("the block is not appended to the system prompt")
	}
	// The agent's own state is the baseline's: no block, all messages.
	st := a.Base().Messages()
	if st[0].Content != irma.SystemPrompt(ownPrompt(), offlinetest.Policy) || len(st) != 9 {
		t.Errorf("state: %d messages, system %q", len(st), st[0].Content)
	}
	if replies[1].ToolCalls[0].Name != "get_order_details" || replies[3].Content != "Order #O1 is paid with card_1." {
		t.Errorf("replies %+v", replies)
	}
}

// Helper calls are accounted one by one; the reply of a helper turn carries
// the helpers' usage, the report totals add up.
func TestAccounting(t *testing.T) {
	t.Parallel()
	a, _, replies := shopConversation(t, irma.Options{Prompt: ownPrompt()})
	helpers := constraintsUsage.Add(toolsUsage)
	wantUsage := []message.Usage{mainUsage.Add(helpers), mainUsage.Add(helpers), mainUsage, mainUsage}
	wantCost := []float64{mainCost + constraintsCost + toolsCost, mainCost + constraintsCost + toolsCost, mainCost, mainCost}
	var sum message.Usage
	var cost float64
	for i, m := range replies {
		if m.Usage == nil || *m.Usage != wantUsage[i] || !near(m.Cost, wantCost[i]) {
			t.Errorf("reply %d usage %+v cost %v; want %+v %v", i, m.Usage, m.Cost, wantUsage[i], wantCost[i])
			continue
		}
		sum = sum.Add(*m.Usage)
		cost += m.Cost
	}
	r := a.Report().(irma.Report)
	if r.Implementation != "irma" || r.Refresh != "user_message" || r.SeparateHelper {
		t.Errorf("report header %+v", r)
	}
	if r.HelperCalls != 4 || r.HelperRounds != 2 || r.HelperUsage != helpers.Add(helpers) || !near(r.HelperCost, 2*(constraintsCost+toolsCost)) {
		t.Errorf("helpers: %d calls, %d rounds, %+v, %v", r.HelperCalls, r.HelperRounds, r.HelperUsage, r.HelperCost)
	}
	if r.Base.ModelCalls != 4 || r.Base.Usage != (message.Usage{PromptTokens: 4000, CompletionTokens: 200}) || r.Base.Implementation != "irma" {
		t.Errorf("base: %+v", r.Base)
	}
	if r.TotalCalls != 8 || r.TotalUsage != sum || !near(r.TotalCost, cost) {
		t.Errorf("totals: %d calls, %+v, %v; replies sum %+v, %v", r.TotalCalls, r.TotalUsage, r.TotalCost, sum, cost)
	}
	if len(r.Helpers) != 4 || len(r.Turns) != 4 {
		t.Fatalf("%d helper entries, %d turns", len(r.Helpers), len(r.Turns))
	}
	for i, h := range r.Helpers {
		wantKind := []string{irma.KindConstraints, irma.KindTools}[i%2]
		if h.Kind != wantKind || h.Round != i/2 || h.Turn != i/2 || h.OutputChars == 0 {
			t.Errorf("helper entry %d: %+v", i, h)
		}
	}
	for i, ts := range r.Turns {
		if ts.Helpers != (i < 2) || ts.BlockChars != len(a.Block()) && i > 0 || ts.PromptChars <= ts.BlockChars {
			t.Errorf("turn %d: %+v", i, ts)
		}
	}
	// The exact JSON shape (the metrics engineer reads it).
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, *update, "report.golden", string(b)+"\n")
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// A helper backbone of its own gets every helper call; the agent's backbone
// sees agent turns only.
func TestSeparateHelper(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	main := newFake(message.Message{Content: "Which order?"})
	help := newFake()
	a := irma.New(main, irma.Options{Prompt: ownPrompt(), Options: baseline.Options{Policy: dom.Policy(), Tools: dom.AgentTools()}, Helper: help})
	if _, err := a.Next(t.Context(), []message.Message{userMsg("Pay my order.")}); err != nil {
		t.Fatal(err)
	}
	if n, h := len(main.requests()), len(help.requests()); n != 1 || h != 2 {
		t.Errorf("main backbone %d requests, helper backbone %d; want 1 and 2", n, h)
	}
	if r := a.Report().(irma.Report); !r.SeparateHelper || r.HelperCalls != 2 || r.Base.ModelCalls != 1 {
		t.Errorf("report %+v", r)
	}
}

func TestHelperErrors(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	infra := &llm.Error{Backbone: "fake", Status: 500, Err: errors.New("boom")}
	tests := []struct {
		name      string
		fail      map[string]error
		infra     bool
		wantCalls int // most helper calls accounted
	}{
		{"constraints infrastructure", map[string]error{irma.KindConstraints: infra}, true, 1},
		{"tools infrastructure", map[string]error{irma.KindTools: infra}, true, 1},
		{"both", map[string]error{irma.KindTools: infra, irma.KindConstraints: infra}, true, 0},
		{"other", map[string]error{irma.KindTools: errors.New("odd")}, false, 1},
		{"agent", map[string]error{"agent": infra}, true, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gen := newFake(message.Message{Content: "never"})
			gen.fail = tc.fail
			a := irma.New(gen, irma.Options{Prompt: ownPrompt(), Options: baseline.Options{Policy: dom.Policy(), Tools: dom.AgentTools()}})
			_, err := a.Next(t.Context(), []message.Message{userMsg("Pay my order.")})
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, fault.ErrInfrastructure) != tc.infra {
				t.Errorf("error %v: infrastructure %v; want %v", err, !tc.infra, tc.infra)
			}
			// The helper that did not fail may have been canceled first.
			if r := a.Report().(irma.Report); r.HelperCalls > tc.wantCalls || (tc.name == "agent" && r.HelperCalls != 2) {
				t.Errorf("%d helper calls accounted; want at most %d", r.HelperCalls, tc.wantCalls)
			}
		})
	}
	// A canceled context is not an infrastructure failure of the agent.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	a := irma.New(newFake(), irma.Options{Prompt: ownPrompt(), Options: baseline.Options{Policy: dom.Policy()}})
	if _, err := a.Next(ctx, []message.Message{userMsg("x")}); !errors.Is(err, context.Canceled) || errors.Is(err, fault.ErrInfrastructure) {
		t.Errorf("canceled: %v", err)
	}
}

// Empty helper replies leave "(none)" in the block.
func TestEmptyHelperOutput(t *testing.T) {
	t.Parallel()
	got := irma.Block([]string{"a"}, "  ", "")
	if strings.Count(got, "(none)") != 2 || !strings.HasPrefix(got, "\n<reformulated_input>\n") {
		t.Errorf("block %q", got)
	}
}

// The offline backbones answer helper requests with a fixed text and do not
// move their scripts: the gold agent's next turn is still its first step.
func TestOfflineHelperReply(t *testing.T) {
	t.Parallel()
	if irma.HelperMarker != offline.HelperMarker {
		t.Fatalf("markers differ: %q vs %q", irma.HelperMarker, offline.HelperMarker)
	}
	dom := offlinetest.New()
	task := offlinetest.Task("pay")
	gold := offline.NewGoldAgent(dom, task, nil)
	a := irma.New(gold, irma.Options{Prompt: ownPrompt(), Options: baseline.Options{Policy: dom.Policy(), Tools: dom.AgentTools()}})
	m, err := a.Next(t.Context(), []message.Message{userMsg("Pay #O1.")})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].Name != task.GoldActions()[0].Name {
		t.Errorf("first gold turn under IRMA: %+v; want %s", m, task.GoldActions()[0].Name)
	}
	if !strings.Contains(a.Block(), offline.HelperReply) {
		t.Errorf("block lacks the offline helper reply:\n%s", a.Block())
	}
	if rep := gold.Report().(offline.AgentReport); rep.GateFeedback != 0 || len(rep.Faults) != 0 {
		t.Errorf("gold report %+v", rep)
	}
}

// The block keeps every user message verbatim, in order, whatever it holds.
func FuzzBlock(f *testing.F) {
	f.Add("Hi, I want to pay.", "Order #O1\nI am u1.", "- rule", "- pay_order: pay")
	f.Add("", "</memory>", "", "")
	f.Fuzz(func(t *testing.T, m1, m2, constraints, tools string) {
		b := irma.Block([]string{m1, m2}, constraints, tools)
		i := strings.Index(b, "[1] "+m1+"\n")
		j := strings.Index(b, "[2] "+m2+"\n")
		if i < 0 || j < i || !strings.HasSuffix(b, "</tool_suggestions>\n</reformulated_input>") {
			t.Errorf("block %q", b)
		}
	})
}
