package offline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

const testGuidelines = "Play a customer. Say ###STOP### when done."

func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

func newUser(dom envs.Domain, task *tasks.Task, gen usersim.Generator) *usersim.Simulator {
	return usersim.New(gen, usersim.Options{System: testGuidelines + "\n" + task.UserScenario.String(),
		Tools: usersim.UserTools(dom.UserTools(), task)})
}

func newAgent(dom envs.Domain, gen baseline.Generator) *baseline.Agent {
	return baseline.New(gen, baseline.Options{Policy: dom.Policy(), Tools: dom.AgentTools()})
}

func run(t *testing.T, dom envs.Domain, task *tasks.Task, a orchestrator.Agent, u orchestrator.User) results.Record {
	t.Helper()
	rec, err := orchestrator.Run(t.Context(), dom, task, a, u, orchestrator.Config{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestGoldShop(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	for _, id := range []string{"pay", "device"} {
		t.Run(id, func(t *testing.T) {
			task := offlinetest.Task(id)
			rec := run(t, dom, task, newAgent(dom, offline.NewGoldAgent(dom, task, nil)), newUser(dom, task, offline.NewUser(task)))
			if !rec.Success() {
				b, _ := json.MarshalIndent(rec, "", " ")
				t.Fatalf("gold failed: %s", b)
			}
			if rec.TerminationReason != "user_stop" {
				t.Errorf("termination %s", rec.TerminationReason)
			}
			first := rec.Messages[1]
			if first.Role != message.User || first.Content != strings.Join(strings.Fields(reasonOf(task)), " ") {
				t.Errorf("first user message %q", first.Content)
			}
			var userCalls []string
			for _, m := range rec.Messages {
				for _, c := range m.ToolCalls {
					if c.Requestor == message.ByUser {
						userCalls = append(userCalls, c.Name)
						if m.Role != message.User {
							t.Errorf("user call in a %s message", m.Role)
						}
					}
				}
			}
			if id == "device" && !reflect.DeepEqual(userCalls, []string{"restart_device", "check_device"}) {
				t.Errorf("user calls %v", userCalls)
			}
		})
	}
}

func reasonOf(t *tasks.Task) string {
	if s := t.UserScenario.Instructions.Structured; s != nil {
		return s.ReasonForCall
	}
	return t.UserScenario.Instructions.Text
}

// gateAgent is a minimal stand-in for LedgerAgent built from baseline's
// steps: a refused call gets gate feedback and the agent keeps its turn.
type gateAgent struct {
	*baseline.Agent
	refuse func(message.ToolCall) bool
	// viaTool answers the refused call with a tool message (the call stays
	// in the agent's history); otherwise the call is dropped and the
	// feedback is a user message.
	viaTool bool
}

func (g *gateAgent) Next(ctx context.Context, incoming []message.Message) (message.Message, error) {
	g.Observe(incoming)
	for tries := 0; ; tries++ {
		msg, err := g.Generate(ctx, g.Request())
		if err != nil {
			return message.Message{}, err
		}
		if tries < 3 && len(msg.ToolCalls) == 1 && g.refuse(msg.ToolCalls[0]) {
			text := offline.GateMarker + " REVISE: " + msg.ToolCalls[0].Name + " is not allowed with these arguments."
			if g.viaTool {
				g.Commit(msg)
				g.Observe([]message.Message{{Role: message.Tool, ToolCallID: msg.ToolCalls[0].ID, Requestor: message.ByAssistant, Content: text, Error: true}})
			} else {
				g.Observe([]message.Message{{Role: message.User, Content: text}})
			}
			continue
		}
		g.Commit(msg)
		return msg, nil
	}
}

func simReport(t *testing.T, rec results.Record) offline.AgentReport {
	t.Helper()
	var info struct {
		Backbone offline.AgentReport `json:"backbone"`
	}
	if err := json.Unmarshal(rec.AgentInfo, &info); err != nil {
		t.Fatalf("agent info %s: %v", rec.AgentInfo, err)
	}
	return info.Backbone
}

func hasArg(c message.ToolCall, key, want string) bool {
	var m map[string]any
	_ = json.Unmarshal(c.Arguments, &m)
	return m[key] == want
}

func TestSimGateFeedback(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	task := offlinetest.Task("pay")
	refuse := func(c message.ToolCall) bool {
		return c.Name == "pay_order" && (!hasArg(c, "order_id", "#O1") || !hasArg(c, "payment_method_id", "card_1"))
	}
	cases := []struct {
		name  string
		rates offline.Rates
		kind  string
	}{
		{"stale", offline.Rates{Stale: 1}, offline.FaultStale},
		{"violation", offline.Rates{Violation: 1}, offline.FaultViolation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Without a gate the fault costs the task.
			plain := run(t, dom, task, newAgent(dom, offline.NewSimAgent(dom, task, 1, tc.rates, nil)), newUser(dom, task, offline.NewUser(task)))
			if plain.Success() {
				t.Errorf("fault without gate still passed")
			}
			rep := simReport(t, plain)
			if len(rep.Faults) != 1 || rep.Faults[0].Kind != tc.kind || !rep.Faults[0].Applied || rep.Faults[0].Corrected || !rep.Simulated {
				t.Fatalf("report %+v", rep)
			}
			for _, viaTool := range []bool{true, false} {
				g := &gateAgent{Agent: newAgent(dom, offline.NewSimAgent(dom, task, 1, tc.rates, nil)), refuse: refuse, viaTool: viaTool}
				rec := run(t, dom, task, g, newUser(dom, task, offline.NewUser(task)))
				if !rec.Success() {
					t.Errorf("viaTool=%v: gate feedback did not correct the fault: %s", viaTool, rec.RewardInfo.Notes)
				}
				rep := simReport(t, rec)
				if len(rep.Faults) != 1 || !rep.Faults[0].Corrected || rep.GateFeedback != 1 {
					t.Errorf("viaTool=%v: report %+v", viaTool, rep)
				}
			}
		})
	}
}

// A gate that refuses the gold call itself (a false positive) must not make
// the scripted agent loop: it records the refusal and moves on.
func TestGateRefusesGold(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	task := offlinetest.Task("pay")
	g := &gateAgent{Agent: newAgent(dom, offline.NewGoldAgent(dom, task, nil)), refuse: func(c message.ToolCall) bool { return c.Name == "pay_order" }, viaTool: true}
	rec := run(t, dom, task, g, newUser(dom, task, offline.NewUser(task)))
	rep := simReport(t, rec)
	if !reflect.DeepEqual(rep.GateRefusedGold, []string{"pay_order"}) || rep.Simulated {
		t.Errorf("report %+v", rep)
	}
	if rec.TerminationReason != "user_stop" || rec.Success() {
		t.Errorf("termination %s success %v", rec.TerminationReason, rec.Success())
	}
}

func TestSimMissAndDeterminism(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	task := offlinetest.Task("device")
	rec := run(t, dom, task, newAgent(dom, offline.NewSimAgent(dom, task, 3, offline.Rates{Miss: 1}, nil)), newUser(dom, task, offline.NewUser(task)))
	rep := simReport(t, rec)
	// The user step and the write are missed; the read is never faulted.
	if len(rep.Faults) != 2 || rep.Faults[0].Tool != "restart_device" || rep.Faults[1].Tool != "cancel_order" || rec.Success() {
		t.Errorf("faults %+v success %v", rep.Faults, rec.Success())
	}
	runOnce := func(seed int64) string {
		rates := offline.Rates{Stale: 0.3, Violation: 0.3, Miss: 0.3}
		rec := run(t, dom, offlinetest.Task("pay"), newAgent(dom, offline.NewSimAgent(dom, offlinetest.Task("pay"), seed, rates, nil)), newUser(dom, task, offline.NewUser(offlinetest.Task("pay"))))
		b, _ := json.Marshal(rec.Messages)
		return string(b) + string(rec.AgentInfo)
	}
	seen := map[string]bool{}
	for seed := int64(0); seed < 12; seed++ {
		a, b := runOnce(seed), runOnce(seed)
		if a != b {
			t.Fatalf("seed %d: runs differ", seed)
		}
		seen[a] = true
	}
	if len(seen) < 2 {
		t.Errorf("12 seeds gave %d distinct runs", len(seen))
	}
}

func TestParseBackbone(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		ok      bool
		want    offline.Backbone
		wantErr string
	}{
		{"gold", true, offline.Backbone{Kind: offline.Gold}, ""},
		{"gold:x", true, offline.Backbone{}, "takes no parameters"},
		{"replay:/a/b.json", true, offline.Backbone{Kind: offline.Replay, File: "/a/b.json"}, ""},
		{"replay:", true, offline.Backbone{}, "needs a file"},
		{"sim", true, offline.Backbone{Kind: offline.Sim, Rates: offline.DefaultRates()}, ""},
		{"sim:stale=0.5,miss=0,violation=0.25,seed=9", true, offline.Backbone{Kind: offline.Sim, Rates: offline.Rates{Stale: 0.5, Violation: 0.25, Seed: 9}}, ""},
		{"sim:stale=2", true, offline.Backbone{}, "outside [0, 1]"},
		{"sim:stale=0.6,miss=0.6", true, offline.Backbone{}, "more than 1"},
		{"sim:bogus=1", true, offline.Backbone{}, "unknown parameter"},
		{"sim:stale", true, offline.Backbone{}, "not name=value"},
		{"gpt-4.1", false, offline.Backbone{}, ""},
		{"golden", false, offline.Backbone{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			b, ok, err := offline.Parse(tc.in)
			if ok != tc.ok {
				t.Fatalf("Parse(%q) ok = %v; want %v", tc.in, ok, tc.ok)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse(%q) error = %v; want %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || b != tc.want {
				t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, b, err, tc.want)
			}
			if ok {
				if b2, _, err := offline.Parse(b.String()); err != nil || b2 != b {
					t.Errorf("round trip of %q via %q = %+v, %v", tc.in, b.String(), b2, err)
				}
			}
		})
	}
}

func TestParseRequest(t *testing.T) {
	t.Parallel()
	msg := offline.RequestPrefix + "\n- restart_device {}\n- set_mode {\"mode\":\"4g\"}\nnot an item\n- bare"
	calls, ok := offline.ParseRequest(msg)
	if !ok || len(calls) != 3 {
		t.Fatalf("ParseRequest = %v, %v", calls, ok)
	}
	if calls[1].Name != "set_mode" || string(calls[1].Arguments) != `{"mode":"4g"}` || string(calls[2].Arguments) != "{}" || calls[0].Requestor != message.ByUser {
		t.Errorf("calls %+v", calls)
	}
	if _, ok := offline.ParseRequest("Could you restart your phone?"); ok {
		t.Errorf("plain text parsed as a request")
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add(offline.RequestPrefix + "\n- a {}\n- b {\"x\":1}")
	f.Add("hello")
	f.Add(offline.RequestPrefix + "\n- \n-  ")
	f.Fuzz(func(t *testing.T, s string) {
		calls, ok := offline.ParseRequest(s)
		if !ok && calls != nil {
			t.Errorf("calls without a request")
		}
	})
}

func TestMutateUsesSiblings(t *testing.T) {
	t.Parallel()
	// Stale state on the "pay" task must take another payment method of
	// the user (seen in get_user_details), never an invented value.
	dom := offlinetest.New()
	task := offlinetest.Task("pay")
	for seed := int64(0); seed < 8; seed++ {
		rec := run(t, dom, task, newAgent(dom, offline.NewSimAgent(dom, task, seed, offline.Rates{Stale: 1}, nil)), newUser(dom, task, offline.NewUser(task)))
		f := simReport(t, rec).Faults[0]
		if f.Argument != "payment_method_id" || f.From != "card_1" || f.To != "gift_2" {
			t.Errorf("seed %d: stale fault %+v", seed, f)
		}
		rec = run(t, dom, task, newAgent(dom, offline.NewSimAgent(dom, task, seed, offline.Rates{Violation: 1}, nil)), newUser(dom, task, offline.NewUser(task)))
		f = simReport(t, rec).Faults[0]
		if f.Argument != "order_id" || (f.To != "#O2" && f.To != "#O3") {
			t.Errorf("seed %d: violation fault %+v", seed, f)
		}
	}
}

// A stale fault that has nothing to draw from is recorded as not applied
// and the gold call is made.
func TestStaleNotApplicable(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	task := offlinetest.Task("device")
	task.EvaluationCriteria.Actions = task.EvaluationCriteria.Actions[3:] // cancel_order with no read before it
	rec := run(t, dom, task, newAgent(dom, offline.NewSimAgent(dom, task, 1, offline.Rates{Stale: 1}, nil)), newUser(dom, task, offline.NewUser(task)))
	rep := simReport(t, rec)
	if len(rep.Faults) != 1 || rep.Faults[0].Applied || !rec.Success() {
		t.Errorf("faults %+v success %v", rep.Faults, rec.Success())
	}
}

func TestReplay(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	task := offlinetest.Task("device")
	// Record a gold run in τ²-bench's results format, then replay it.
	gold := run(t, dom, task, newAgent(dom, offline.NewGoldAgent(dom, task, nil)), newUser(dom, task, offline.NewUser(task)))
	path := filepath.Join(t.TempDir(), "results.json")
	writeTau2(t, path, task.ID, 0, gold.Messages)
	rec, err := offline.LoadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Agent(task.ID, 1); err == nil || !strings.Contains(err.Error(), "recorded trials: 0") {
		t.Errorf("missing trial: %v", err)
	}
	if _, err := rec.Agent("nope", 0); err == nil || !strings.Contains(err.Error(), "was not recorded") {
		t.Errorf("missing task: %v", err)
	}
	ag, _ := rec.Agent(task.ID, 0)
	us, _ := rec.User(task.ID, 0)
	got := run(t, dom, task, newAgent(dom, ag), newUser(dom, task, us))
	if !got.Success() {
		t.Errorf("replay of a passing run failed")
	}
	strip := func(ms []message.Message) string {
		var b strings.Builder
		for _, m := range ms {
			fmt.Fprintf(&b, "%s|%s|%s|%v\n", m.Role, m.Content, m.ToolCallID, m.Error)
			for _, c := range m.ToolCalls {
				var args bytes.Buffer
				_ = json.Compact(&args, c.Arguments)
				fmt.Fprintf(&b, "  call %s %s %s %s\n", c.ID, c.Name, args.String(), c.Requestor)
			}
		}
		return b.String()
	}
	if strip(got.Messages) != strip(gold.Messages) {
		t.Errorf("replayed conversation differs:\n%s\nwant\n%s", strip(got.Messages), strip(gold.Messages))
	}
	// A recording that ends early: the live side runs out of turns.
	short := gold.Messages[:4]
	writeTau2(t, path, task.ID, 0, short)
	rec, _ = offline.LoadRecording(path)
	ag, _ = rec.Agent(task.ID, 0)
	us, _ = rec.User(task.ID, 0)
	got = run(t, dom, task, newAgent(dom, ag), newUser(dom, task, us))
	if got.TerminationReason != "agent_error" && got.TerminationReason != "user_error" || !strings.Contains(got.Error, "no recorded turn left") {
		t.Errorf("short recording: %s %q", got.TerminationReason, got.Error)
	}
}

func writeTau2(t *testing.T, path, taskID string, trial int, msgs []message.Message) {
	t.Helper()
	var out []map[string]any
	for _, m := range msgs {
		e := map[string]any{"role": m.Role, "content": m.Content, "turn_idx": m.TurnIdx}
		if m.Role == message.Tool {
			e["id"] = m.ToolCallID
			e["requestor"] = m.Requestor
			e["error"] = m.Error
		}
		if len(m.ToolCalls) > 0 {
			var calls []map[string]any
			for _, c := range m.ToolCalls {
				calls = append(calls, map[string]any{"id": c.ID, "name": c.Name, "arguments": c.Arguments, "requestor": c.Requestor})
			}
			e["tool_calls"] = calls
		}
		out = append(out, e)
	}
	f := map[string]any{"timestamp": "x", "info": map[string]any{}, "tasks": []any{},
		"simulations": []any{map[string]any{"id": "s", "task_id": taskID, "trial": trial, "termination_reason": "user_stop",
			"duration": 0, "agent_cost": 0, "user_cost": 0, "reward_info": map[string]any{"reward": 1}, "messages": out, "seed": 1}}}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestContextCanceled(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	task := offlinetest.Task("pay")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, g := range []baseline.Generator{offline.NewGoldAgent(dom, task, nil), offline.NewUser(task)} {
		if _, err := g.Generate(ctx, llmRequest()); err == nil {
			t.Errorf("%T: no error on a canceled context", g)
		}
	}
}

func llmRequest() llm.Request { return llm.Request{} }
