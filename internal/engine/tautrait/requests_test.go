package tautrait_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tautraittelecom"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/telehealth"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Scripted replies of the fake servers: the user opens, the agent proposes
// two tool calls (only the first may run), then answers, and the user stops.
const (
	userOpening = "Hi, I need help with an appointment."
	agentAnswer = "Could you give me your email address?"
	callArgs    = `{"email":  "nobody@example.com"}` // odd spacing: must go back verbatim
)

// captured are the request bodies one simulation sent.
type captured struct {
	agent, user [][]byte
}

// runFake plays task with a fixed script: the user opens, the agent
// proposes two tool calls, then answers, and the user stops.
func runFake(t *testing.T, dom envs.Domain, root string, task *tasks.Task, agent string) captured {
	t.Helper()
	return runFakeCalls(t, dom, root, task, agent, fakeCalls("find_patient_by_email"))
}

// fakeCalls are the two tool calls the fake agent proposes: name with
// callArgs, then a think.
func fakeCalls(name string) []openaitest.ToolCall {
	return []openaitest.ToolCall{{ID: "call_a", Name: name, Arguments: callArgs},
		{ID: "call_b", Name: "think", Arguments: `{"thought": "x"}`}}
}

// runFakeCalls is runFake with the agent's first reply proposing calls.
func runFakeCalls(t *testing.T, dom envs.Domain, root string, task *tasks.Task, agent string, calls []openaitest.ToolCall) captured {
	t.Helper()
	agentTurns := []openaitest.Reply{
		openaitest.Calls(calls...),
		openaitest.Text(agentAnswer),
	}
	userTurns := []openaitest.Reply{openaitest.Text(userOpening), openaitest.Text("Thanks. ###STOP###")}
	c := runWith(t, dom, root, task, agent, agentTurns, userTurns)
	if len(c.agent) != 2 || len(c.user) != 2 {
		t.Fatalf("task %s: %d agent and %d user requests; want 2 each", task.ID, len(c.agent), len(c.user))
	}
	return c
}

// runScripted plays recorded turns with the baseline agent.
func runScripted(t *testing.T, dom envs.Domain, root string, task *tasks.Task, agentTurns, userTurns []openaitest.Reply) captured {
	t.Helper()
	return runWith(t, dom, root, task, "baseline", agentTurns, userTurns)
}

// runWith plays task through agents.Build and the τ-Trait loop against two
// fake OpenAI servers answering with the given turns in order (the last
// repeats), whose backbones set a temperature the τ-Trait roles must not
// send.
func runWith(t *testing.T, dom envs.Domain, root string, task *tasks.Task, agent string, agentTurns, userTurns []openaitest.Reply) captured {
	t.Helper()
	var mu sync.Mutex
	var agentN, userN int
	turn := func(turns []openaitest.Reply, n *int) openaitest.Handler {
		return func(*openaitest.Request) openaitest.Reply {
			mu.Lock()
			defer mu.Unlock()
			r := turns[min(*n, len(turns)-1)]
			*n++
			return r
		}
	}
	agentSrv := openaitest.NewHandlerServer(t, turn(agentTurns, &agentN))
	userSrv := openaitest.NewHandlerServer(t, turn(userTurns, &userN))
	temp := 0.5
	cfg := &llm.Config{Backbones: map[string]llm.Backbone{
		"agent-model": {Name: "agent-model", BaseURL: agentSrv.BaseURL(), Model: "agent-model", Temperature: &temp},
		"user-model":  {Name: "user-model", BaseURL: userSrv.BaseURL(), Model: "user-model", Temperature: &temp},
	}}
	pool := llm.NewPool(cfg, llm.Options{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	makers, _, err := agents.Build(context.Background(), agents.Options{Domain: dom, DataRoot: root, Agent: agent,
		Backbone: "agent-model", UserBackbone: "user-model", JudgeBackbone: agents.NoJudge, Pool: pool,
		TraitMode: usersim.TraitIgnore})
	if err != nil {
		t.Fatal(err)
	}
	spec := runner.Spec{Domain: dom, Task: task}
	a, err := makers.Agent(spec)
	if err != nil {
		t.Fatal(err)
	}
	u, err := makers.User(spec)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := orchestrator.Run(context.Background(), dom, task, a, u, orchestrator.Config{Loop: makers.Loop})
	if err != nil || rec.Error != "" {
		t.Fatalf("task %s: %v %s", task.ID, err, rec.Error)
	}
	var c captured
	for _, r := range agentSrv.Requests() {
		c.agent = append(c.agent, r.Body)
	}
	for _, r := range userSrv.Requests() {
		c.user = append(c.user, r.Body)
	}
	return c
}

// normalised decodes a request body without what is not model-facing
// (model name, stream flag).
func normalised(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body: %v", err)
	}
	delete(m, "model")
	delete(m, "stream")
	return m
}

func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

// dumped is a reply as litellm's Message.model_dump() holds it (the form
// both of upstream's roles send their earlier replies back in).
func dumped(content any, toolCalls any) map[string]any {
	return map[string]any{"content": content, "role": "assistant", "tool_calls": toolCalls, "function_call": nil}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRequests checks every request of a scripted conversation, for all 20
// test tasks, against the upstream text read at test time: the agent's
// system message is wiki.md, its tools the derived get_info() dump, only
// temperature 0.0 is sent; the user's system prompt carries the task's
// instruction verbatim (leading newline and indentation) and no sampling
// argument; only the first proposed tool call is kept; the tool result
// carries the tool's name; earlier replies go back dumped, the agent's
// arguments as written.
func TestRequests(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	dom, err := telehealth.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	wiki, err := os.ReadFile(filepath.Join(root, "tau-trait", "tau_trait", "envs", "telehealth", "wiki.md"))
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := os.ReadFile(filepath.Join(root, "tau-trait", "derived", "telehealth", "tool_schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	var derived []struct {
		Instruction string `json:"instruction"`
	}
	raw, err := os.ReadFile(filepath.Join(root, "tau-trait", "derived", "telehealth", "tasks_test.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &derived); err != nil {
		t.Fatal(err)
	}
	prompts, err := usersim.LoadTraitPrompts(root)
	if err != nil {
		t.Fatal(err)
	}
	test := dom.Tasks().Extra["test"]
	if len(test) != 20 || len(derived) != 20 {
		t.Fatalf("%d tasks, %d derived", len(test), len(derived))
	}
	sys := func(role, content string) map[string]any { return map[string]any{"role": role, "content": content} }
	for i := range test {
		task := &test[i]
		instr := derived[i].Instruction
		if !strings.HasPrefix(instr, "\n") {
			t.Fatalf("task %d: derived instruction has no leading newline", i)
		}
		c := runFake(t, dom, root, task, "baseline")
		userSystem := prompts.System(instr, false)
		if !strings.Contains(userSystem, prompts.InstructionPrefix+instr+prompts.InstructionSuffix) {
			t.Fatalf("task %d: user prompt lacks the instruction", i)
		}
		wantUser := []map[string]any{
			{"messages": []any{sys("system", userSystem), sys("user", prompts.Greeting)}},
			{"messages": []any{sys("system", userSystem), sys("user", prompts.Greeting), dumped(userOpening, nil), sys("user", agentAnswer)}},
		}
		wantAgent := []map[string]any{
			{"messages": []any{sys("system", string(wiki)), sys("user", userOpening)}, "tools": jsonValue(t, string(schemas)), "temperature": 0.0},
			{"messages": []any{sys("system", string(wiki)), sys("user", userOpening),
				dumped(nil, []any{map[string]any{"id": "call_a", "type": "function",
					"function": map[string]any{"name": "find_patient_by_email", "arguments": callArgs}}}),
				map[string]any{"role": "tool", "tool_call_id": "call_a", "name": "find_patient_by_email", "content": "No patient found with email: nobody@example.com"},
			}, "tools": jsonValue(t, string(schemas)), "temperature": 0.0},
		}
		for n := range 2 {
			if got, want := normalised(t, c.user[n]), jsonValue(t, mustJSON(wantUser[n])); !reflect.DeepEqual(any(got), want) {
				t.Errorf("task %d: user request %d:\n%s\nwant\n%s", i, n, mustJSON(got), mustJSON(want))
			}
			if got, want := normalised(t, c.agent[n]), jsonValue(t, mustJSON(wantAgent[n])); !reflect.DeepEqual(any(got), want) {
				t.Errorf("task %d: agent request %d:\n%.2000s\nwant\n%.2000s", i, n, mustJSON(got), mustJSON(want))
			}
		}
	}
}

// TestLedgerAgentRequest: LedgerAgent on the τ-Trait loop sends the
// baseline's request plus the ledger block appended to the system message.
func TestLedgerAgentRequest(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	dom, err := telehealth.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	task := &dom.Tasks().Extra["test"][0]
	base := runFake(t, dom, root, task, "baseline")
	led := runFake(t, dom, root, task, "ledger")
	for n := range 2 {
		b, l := normalised(t, base.agent[n]), normalised(t, led.agent[n])
		bm, lm := b["messages"].([]any), l["messages"].([]any)
		bs, ls := bm[0].(map[string]any)["content"].(string), lm[0].(map[string]any)["content"].(string)
		if !strings.HasPrefix(ls, bs) {
			t.Errorf("request %d: LedgerAgent's system message does not start with the baseline's", n)
		}
		lm[0] = bm[0]
		if !reflect.DeepEqual(b, l) {
			t.Errorf("request %d: LedgerAgent's request differs beyond the system message:\n%s\nbaseline\n%s", n, mustJSON(l), mustJSON(b))
		}
	}
}

// tauTraitDomain is one of τ-Trait's domains as the tests load it, with its
// environment name upstream.
type tauTraitDomain struct {
	dom envs.Domain
	env string
}

// tauTraitDomains loads τ-Trait's ported domains (telehealth and
// tautrait-telecom).
func tauTraitDomains(t *testing.T, root string) []tauTraitDomain {
	t.Helper()
	th, err := telehealth.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	tc, err := tautraittelecom.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return []tauTraitDomain{{th, "telehealth"}, {tc, tautraittelecom.UpstreamEnv}}
}
