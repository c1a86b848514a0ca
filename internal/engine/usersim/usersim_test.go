package usersim_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

var update = flag.Bool("update", false, "update golden files")

func ptr[T any](v T) *T { return &v }

// ownPrompt is a user-simulator prompt of our own words with upstream's
// fields and layout, so renderings can be kept in golden files.
func ownPrompt(t *testing.T, guidelines string) *usersim.Prompt {
	t.Helper()
	p, err := usersim.NewPrompt("{global_user_sim_guidelines_with_persona}\n\n<scenario>\n{instructions}\n</scenario>", guidelines, guidelines)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSystemPromptGolden(t *testing.T) {
	t.Parallel()
	g, err := os.ReadFile("testdata/guidelines.md")
	if err != nil {
		t.Fatal(err)
	}
	scenario := offlinetest.Task("pay").UserScenario.String()
	p := ownPrompt(t, string(g))
	goldentest.Check(t, *update, "tau2_prompt.golden", p.System(false, "", scenario))
	goldentest.Check(t, *update, "tau2_prompt_persona.golden", p.System(false, "Speak tersely.", scenario))
}

// With the pulled sources: SYSTEM_PROMPT of user_simulator.py with its two
// fields, filled with the guidelines file (the tools variant for users
// with tools) and the scenario, nothing trimmed.
func TestLoadPrompt(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	p, err := usersim.LoadPrompt(root)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := p.Texts()["user_system_template"]
	const fg, fi = "{global_user_sim_guidelines_with_persona}", "{instructions}"
	i, j := strings.Index(tmpl, fg), strings.Index(tmpl, fi)
	if i < 0 || j < i || strings.Count(tmpl, "{") != 2 {
		t.Fatalf("template %q; want the fields global_user_sim_guidelines_with_persona, instructions in that order", tmpl)
	}
	for _, tools := range []bool{false, true} {
		g, err := usersim.LoadGuidelines(root, tools)
		if err != nil {
			t.Fatal(err)
		}
		if tools != strings.Contains(g, "tool") {
			t.Errorf("tools=%v: wrong guidelines file", tools)
		}
		g = strings.ReplaceAll(g, "<PERSONA_GUIDELINES>", "")
		want := tmpl[:i] + g + tmpl[i+len(fg):j] + "SCENARIO" + tmpl[j+len(fi):]
		if got := p.System(tools, "", "SCENARIO"); got != want {
			t.Errorf("tools=%v: prompt ends %q; want %q", tools, got[max(0, len(got)-80):], want[max(0, len(want)-80):])
		}
	}
	if _, err := usersim.LoadPrompt(t.TempDir()); err == nil || !strings.Contains(err.Error(), usersim.Source) {
		t.Errorf("missing source: %v; want an error naming %s", err, usersim.Source)
	}
	bad := t.TempDir()
	path := filepath.Join(bad, "tau2-bench", "src", "tau2", "user", "user_simulator.py")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("OTHER = 'x'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := usersim.LoadPrompt(bad); err == nil || !strings.Contains(err.Error(), "SYSTEM_PROMPT") || !strings.Contains(err.Error(), path) {
		t.Errorf("missing symbol: %v; want an error naming the file and SYSTEM_PROMPT", err)
	}
	if _, err := usersim.LoadGuidelines(t.TempDir(), false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestUserTools(t *testing.T) {
	t.Parallel()
	all := offlinetest.New().UserTools()
	task := &tasks.Task{}
	if got := usersim.UserTools(all, task); len(got) != 2 {
		t.Errorf("no filter: %d tools", len(got))
	}
	task.UserTools = []string{"check_device"}
	if got := usersim.UserTools(all, task); len(got) != 1 || got[0].Name != "check_device" {
		t.Errorf("filter: %+v", got)
	}
	if got := usersim.UserTools(nil, task); got != nil {
		t.Errorf("no user tools: %+v", got)
	}
}

func newClient(t *testing.T, srv *openaitest.Server) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Backbone{Name: "fake", BaseURL: srv.BaseURL(), Model: "fake-model", Temperature: ptr(0.0)},
		llm.Options{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func roles(r openaitest.Request) string {
	var s []string
	for _, m := range r.Messages {
		s = append(s, m.Role)
	}
	return strings.Join(s, ",")
}

// Role flipping, user tools with requestor user, skipped empty agent
// messages, seed and temperature.
func TestSimulatorFlow(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	srv := openaitest.NewServer(t,
		openaitest.Text("Hi, my phone is acting up."),
		openaitest.Calls(openaitest.Call("restart_device", `{}`)),
		openaitest.Text("Restarted it. ###STOP###"),
	)
	s := usersim.New(newClient(t, srv), usersim.Options{System: "G" + "\n" + "S", Tools: dom.UserTools(), Seed: ptr(42)})
	ctx := t.Context()
	m1, err := s.Next(ctx, []message.Message{{Role: message.Assistant, Content: orchestrator.DefaultGreeting}})
	if err != nil || m1.Role != message.User || m1.Content != "Hi, my phone is acting up." {
		t.Fatalf("first turn %+v %v", m1, err)
	}
	m2, err := s.Next(ctx, []message.Message{
		{Role: message.Assistant, Content: "  "}, // empty: skipped
		{Role: message.Assistant, Content: "Please restart your phone."},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.ToolCalls) != 1 || m2.ToolCalls[0].Requestor != message.ByUser || m2.Role != message.User {
		t.Fatalf("tool call turn %+v", m2)
	}
	m3, err := s.Next(ctx, []message.Message{{Role: message.Tool, ToolCallID: m2.ToolCalls[0].ID, Content: "Device restarted.", Requestor: message.ByUser}})
	if err != nil || !orchestrator.IsUserStop(m3) {
		t.Fatalf("third turn %+v %v", m3, err)
	}
	reqs := srv.Requests()
	if got := roles(reqs[2]); got != "system,user,assistant,user,assistant,tool" {
		t.Errorf("flipped roles %s", got)
	}
	r := reqs[2]
	if r.Messages[0].Text() != "G\nS" || r.Messages[1].Text() != orchestrator.DefaultGreeting {
		t.Errorf("prompt or greeting wrong: %q %q", r.Messages[0].Text(), r.Messages[1].Text())
	}
	if tc := r.Messages[4].ToolCalls; len(tc) != 1 || tc[0].Name != "restart_device" || r.Messages[4].Content != nil {
		t.Errorf("own tool call sent back as %+v", r.Messages[4])
	}
	if r.Messages[5].ToolCallID != m2.ToolCalls[0].ID {
		t.Errorf("tool result id %q", r.Messages[5].ToolCallID)
	}
	if len(r.Tools) != 2 || r.Seed == nil || *r.Seed != 42 || r.Temperature == nil || *r.Temperature != 0 {
		t.Errorf("tools %d seed %v temperature %v", len(r.Tools), r.Seed, r.Temperature)
	}
	if rep := s.Report().(usersim.Report); rep.ModelCalls != 3 || rep.Usage.PromptTokens == 0 {
		t.Errorf("report %+v", rep)
	}
	// Results of the agent's own tools never reach the user.
	n := len(s.Messages())
	srv2 := openaitest.NewServer(t, openaitest.Text("ok"))
	s2 := usersim.New(newClient(t, srv2), usersim.Options{System: "G" + "\n" + "S"})
	_, _ = s2.Next(ctx, []message.Message{{Role: message.Tool, Content: "secret", Requestor: message.ByAssistant}, {Role: message.Assistant, Content: "hello"}})
	if got := roles(srv2.Requests()[0]); got != "system,user" || n != 6 {
		t.Errorf("agent tool result leaked: %s (state %d)", got, n)
	}
	if srv2.Requests()[0].Tools != nil {
		t.Errorf("tools offered to a user without tools")
	}
}

func TestSimulatorInfrastructure(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewServer(t, openaitest.Status(401, ""))
	s := usersim.New(newClient(t, srv), usersim.Options{System: "G" + "\n" + "S"})
	_, err := s.Next(t.Context(), []message.Message{{Role: message.Assistant, Content: "hi"}})
	if !errors.Is(err, fault.ErrInfrastructure) {
		t.Errorf("error %v", err)
	}
}

// traitPrompts is upstream's τ-Trait user text, read at test time.
func traitPrompts(t *testing.T) *usersim.TraitPrompts {
	t.Helper()
	p, err := usersim.LoadTraitPrompts(datatest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTraitPrompt: without traits the prompt is upstream's build_system_prompt;
// the prompt approximation appends our trait section (golden: ours only).
func TestTraitPrompt(t *testing.T) {
	t.Parallel()
	p := traitPrompts(t)
	instr := "\n        You are Sam Lee. You want to book a check-up next week.\n        "
	traits := usersim.Traits{"impatience": "high", "confusion": "low", "skeptical": "medium", "incoherence": "high"}
	for _, steered := range []bool{false, true} {
		if got := usersim.TraitSystemPrompt(p, instr, steered, nil); got != p.System(instr, steered) {
			t.Errorf("steered=%v: %q", steered, got)
		}
	}
	approx := usersim.TraitSystemPrompt(p, instr, false, traits)
	section, ok := strings.CutPrefix(approx, p.System(instr, false))
	if !ok {
		t.Fatalf("approximation does not start with upstream's prompt: %q", approx)
	}
	goldentest.Check(t, *update, "trait_section.golden", section)
}

func TestParseTraits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, want, err string
	}{
		{"", "", ""},
		{`{"impatience":"low","confusion":"low","skeptical":"medium","incoherence":"low"}`, "impatience=low,confusion=low,skeptical=medium,incoherence=low", ""},
		{"skeptical=high, impatience=medium", "impatience=medium,skeptical=high", ""},
		{"skepticism=high", "", "unknown trait"},
		{"impatience=extreme", "", "level"},
		{"impatience", "", "not name=level"},
		{`{"impatience":3}`, "", "traits"},
	}
	for _, tc := range cases {
		got, err := usersim.ParseTraits(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseTraits(%q) error = %v; want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("ParseTraits(%q) = %q, %v; want %q", tc.in, got.String(), err, tc.want)
		}
	}
	b, _ := json.Marshal(usersim.Traits{"incoherence": "low", "impatience": "high"})
	if string(b) != `{"impatience":"high","incoherence":"low"}` {
		t.Errorf("traits JSON %s", b)
	}
}

func FuzzParseTraits(f *testing.F) {
	f.Add(`{"impatience":"low"}`)
	f.Add("confusion=high,skeptical=low")
	f.Add("=,=")
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := usersim.ParseTraits(s)
		if err == nil {
			if err := tr.Validate(); err != nil {
				t.Errorf("accepted invalid traits %v", tr)
			}
		}
	})
}

// τ-Trait's message flow with a chat model: system, greeting as user, then
// alternating; traits as a prompt approximation by default; no tools.
func TestTraitChatModel(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewServer(t, openaitest.Text("I need an appointment."), openaitest.Text("###STOP###"))
	traits := usersim.Traits{"impatience": "high"}
	u, err := usersim.NewTrait(newClient(t, srv), nil, usersim.TraitOptions{Prompts: traitPrompts(t), Instruction: "Book a visit.", Traits: traits})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Next(t.Context(), []message.Message{{Role: message.Assistant, Content: orchestrator.DefaultGreeting}}); err != nil {
		t.Fatal(err)
	}
	m, err := u.Next(t.Context(), []message.Message{{Role: message.Assistant, Content: "Done, booked."}})
	if err != nil || !orchestrator.IsUserStop(m) {
		t.Fatalf("%+v %v", m, err)
	}
	r := srv.Requests()[1]
	if got := roles(r); got != "system,user,assistant,user" || r.Messages[1].Text() != traitPrompts(t).Greeting || r.Tools != nil {
		t.Errorf("flow %s", got)
	}
	if r.Messages[0].Text() != usersim.TraitSystemPrompt(traitPrompts(t), "Book a visit.", false, traits) {
		t.Errorf("system prompt %q", r.Messages[0].Text())
	}
	rep := u.Report().(usersim.Report)
	if rep.TraitMode != usersim.TraitPrompt || !strings.Contains(rep.Note, "approximated") || rep.ModelCalls != 2 {
		t.Errorf("report %+v", rep)
	}
	// Upstream's behaviour: traits ignored.
	u2, _ := usersim.NewTrait(newClient(t, srv), nil, usersim.TraitOptions{Prompts: traitPrompts(t), Instruction: "x", Traits: traits, Mode: usersim.TraitIgnore})
	if strings.Contains(u2.SystemMessage(), "impatien") || !strings.Contains(u2.Report().(usersim.Report).Note, "ignored") {
		t.Errorf("ignore mode: %q", u2.SystemMessage())
	}
	if _, err := usersim.NewTrait(newClient(t, srv), nil, usersim.TraitOptions{Prompts: traitPrompts(t), Mode: usersim.TraitSteer}); err == nil {
		t.Errorf("steer mode accepted a chat model")
	}
	if _, err := usersim.NewTrait(nil, nil, usersim.TraitOptions{Prompts: traitPrompts(t)}); err == nil {
		t.Errorf("no backend accepted")
	}
}

// steerServer is a fake of τ-Trait's steering endpoint.
type steerServer struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []map[string]any
	headers []http.Header
	replies []func(w http.ResponseWriter)
}

func newSteerServer(t *testing.T, replies ...func(w http.ResponseWriter)) *steerServer {
	s := &steerServer{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.headers = append(s.headers, r.Header.Clone())
		var reply func(w http.ResponseWriter)
		if len(s.replies) > 0 {
			reply, s.replies = s.replies[0], s.replies[1:]
		}
		s.mu.Unlock()
		if reply == nil {
			http.Error(w, "exhausted", 500)
			return
		}
		reply(w)
	}))
	t.Cleanup(s.Close)
	return s
}

func respond(text string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		b, _ := json.Marshal(map[string]string{"response": text})
		w.Write(b)
	}
}

func status(code int, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) { http.Error(w, body, code) }
}

func TestSteer(t *testing.T) {
	t.Parallel()
	srv := newSteerServer(t, status(503, "busy"), respond("ugh, fine. I need a visit."), respond("###STOP###"))
	env := map[string]string{usersim.SteerEndpointEnv: srv.URL + "/steer_bare", usersim.SteerKeyEnv: "k-123"}
	sc, err := usersim.NewSteerClient(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	sc.Sleep = func(context.Context, time.Duration) error { return nil }
	traits := usersim.Traits{"impatience": "high", "skeptical": "low"}
	u, err := usersim.NewTrait(nil, sc, usersim.TraitOptions{Prompts: traitPrompts(t), Instruction: "Book a visit.", Traits: traits})
	if err != nil {
		t.Fatal(err)
	}
	m, err := u.Next(t.Context(), []message.Message{{Role: message.Assistant, Content: orchestrator.DefaultGreeting}})
	if err != nil || m.Content != "ugh, fine. I need a visit." || m.Role != message.User {
		t.Fatalf("%+v %v", m, err)
	}
	if _, err := u.Next(t.Context(), []message.Message{{Role: message.Assistant, Content: "Booked."}}); err != nil {
		t.Fatal(err)
	}
	if len(srv.bodies) != 3 {
		t.Fatalf("%d requests", len(srv.bodies))
	}
	h, body := srv.headers[2], srv.bodies[2]
	if h.Get("API-Key") != "k-123" || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", h)
	}
	if body["temperature"] != 0.7 || body["max_tokens"] != float64(256) {
		t.Errorf("body %v", body)
	}
	td, _ := json.Marshal(body["trait_dict"])
	if string(td) != `{"impatience":"high","skeptical":"low"}` {
		t.Errorf("trait_dict %s", td)
	}
	msgs, _ := json.Marshal(body["messages"])
	greetingJSON, _ := json.Marshal(traitPrompts(t).Greeting)
	want := `[{"content":"` + strings.ReplaceAll(usersim.TraitSystemPrompt(traitPrompts(t), "Book a visit.", true, nil), "\n", `\n`) +
		`","role":"system"},{"content":` + string(greetingJSON) + `,"role":"user"},{"content":"ugh, fine. I need a visit.","role":"assistant"},{"content":"Booked.","role":"user"}]`
	if string(msgs) != want {
		t.Errorf("messages\n%s\nwant\n%s", msgs, want)
	}
	if rep := u.Report().(usersim.Report); rep.TraitMode != usersim.TraitSteer || rep.ModelCalls != 2 {
		t.Errorf("report %+v", rep)
	}
}

// The steering client retries as the backbones do: a Retry-After sets the
// wait, and waits have jitter.
func TestSteerRetryAfter(t *testing.T) {
	t.Parallel()
	slow := func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "7")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	}
	srv := newSteerServer(t, slow, status(503, "busy"), respond("fine."))
	sc := &usersim.SteerClient{Endpoint: srv.URL, Key: "k"}
	var waits []time.Duration
	sc.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	r, err := sc.Steer(t.Context(), nil, []message.Message{{Role: message.User, Content: "hi"}})
	if err != nil || r.Content != "fine." || r.Attempts != 3 {
		t.Fatalf("Steer = %+v, %v; want fine. after 3 attempts", r, err)
	}
	if len(waits) != 2 || waits[0] < 7*time.Second || waits[0] > 7*time.Second+250*time.Millisecond || waits[1] >= 2*time.Second {
		t.Errorf("waits %v; want Retry-After's 7s (plus jitter), then a jittered wait under 2s", waits)
	}
}

func TestSteerErrors(t *testing.T) {
	t.Parallel()
	if _, err := usersim.NewSteerClient(func(string) string { return "" }); err == nil ||
		!strings.Contains(err.Error(), usersim.SteerEndpointEnv) || !strings.Contains(err.Error(), usersim.SteerKeyEnv) {
		t.Errorf("missing env: %v", err)
	}
	cases := []struct {
		name  string
		reply func(w http.ResponseWriter)
		want  string
	}{
		{"invalid response", func(w http.ResponseWriter) { w.Write([]byte(`{"text":"x"}`)) }, "invalid response"},
		{"unauthorized", status(401, "bad key"), "status 401"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSteerServer(t, tc.reply)
			sc := &usersim.SteerClient{Endpoint: srv.URL, Key: "k"}
			_, err := sc.Steer(t.Context(), nil, []message.Message{{Role: message.System, Content: "s"}})
			if !errors.Is(err, fault.ErrInfrastructure) || !errors.Is(err, usersim.ErrSteer) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v", err)
			}
			if len(srv.bodies) != 1 {
				t.Errorf("%d attempts for a non-retryable failure", len(srv.bodies))
			}
			if td, _ := json.Marshal(srv.bodies[0]["trait_dict"]); string(td) != "{}" {
				t.Errorf("nil traits sent as %s", td)
			}
		})
	}
}

// echo is a zero-latency generator.
type echo struct{}

func (echo) Generate(_ context.Context, req llm.Request) (llm.Response, error) {
	return llm.Response{Message: message.Message{Role: message.Assistant, Content: "fine"}, Usage: message.Usage{PromptTokens: 1}}, nil
}

// BenchmarkUserTurn is the harness's work per user-simulator turn (state,
// role flipping, accounting) over a zero-latency generator, in
// conversations of 20 user turns.
func BenchmarkUserTurn(b *testing.B) {
	in := []message.Message{{Role: message.Assistant, Content: "Could you confirm your user id?"}}
	var s *usersim.Simulator
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%20 == 0 {
			s = usersim.New(echo{}, usersim.Options{System: "G" + "\n" + "S", Seed: ptr(1)})
		}
		if _, err := s.Next(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}
