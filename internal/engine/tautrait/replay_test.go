package tautrait_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// TestReplayRecordings replays every recorded GPT-5 run of telehealth and
// tautrait-telecom through the τ-Trait loop, with the replay backbone on
// both sides (agents.Build, as `run --backbone replay:F --user-backbone
// replay:F` does), and checks that each recorded reward and every recorded
// tool output are reproduced.
func TestReplayRecordings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := datatest.Root(t)
	for _, td := range tauTraitDomains(t, root) {
		replayRecordings(ctx, t, root, td)
	}
}

func replayRecordings(ctx context.Context, t *testing.T, root string, td tauTraitDomain) {
	dom := td.dom
	rewards, sims, outputs, outputsEqual := 0, 0, 0, 0
	for _, path := range datatest.TauTraitRecordingsOf(t, td.env) {
		recs, err := results.ReadV1(path, results.V1Labels{Domain: dom.Name()})
		if err != nil {
			t.Fatal(err)
		}
		makers, _, err := agents.Build(ctx, agents.Options{Domain: dom, DataRoot: root, Backbone: "replay:" + path,
			UserBackbone: "replay:" + path, JudgeBackbone: agents.NoJudge})
		if err != nil {
			t.Fatal(err)
		}
		if makers.Loop == nil || makers.LoopName != "tau-trait" {
			t.Fatalf("%s's default loop is %q", dom.Name(), makers.LoopName)
		}
		for _, want := range recs {
			name := filepath.Base(path) + "/task" + want.TaskID
			sims++
			task := dom.Tasks().Extra["test"][atoi(t, want.TaskID)]
			spec := runner.Spec{Domain: dom, Task: &task, Trial: want.Trial}
			agent, err := makers.Agent(spec)
			if err != nil {
				t.Fatal(err)
			}
			user, err := makers.User(spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := orchestrator.Run(ctx, dom, &task, agent, user, orchestrator.Config{Loop: makers.Loop})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			wantReward := 0.0
			if want.RewardInfo != nil {
				wantReward = want.RewardInfo.Reward
			}
			gotReward := 0.0
			if got.RewardInfo != nil {
				gotReward = got.RewardInfo.Reward
			}
			if math.Abs(gotReward-wantReward) > 1e-9 || got.TerminationReason != want.TerminationReason {
				t.Errorf("%s: reward %g (%s, %s); recorded %g (%s)", name, gotReward, got.TerminationReason, got.Error, wantReward, want.TerminationReason)
			} else {
				rewards++
			}
			gotTools, wantTools := toolOutputs(got.Messages), toolOutputs(want.Messages)
			outputs += len(wantTools)
			if len(gotTools) != len(wantTools) {
				t.Errorf("%s: %d tool outputs; recorded %d", name, len(gotTools), len(wantTools))
			}
			for i := range min(len(gotTools), len(wantTools)) {
				if gotTools[i] != wantTools[i] {
					t.Errorf("%s: tool output %d:\n%s\nrecorded:\n%s", name, i, gotTools[i], wantTools[i])
					continue
				}
				outputsEqual++
			}
		}
	}
	t.Logf("%s: recorded rewards reproduced: %d/%d; tool outputs equal: %d/%d", dom.Name(), rewards, sims, outputsEqual, outputs)
}

// toolOutputs lists "name: content" of a trajectory's tool messages, the
// name taken from the call each answers.
func toolOutputs(msgs []message.Message) []string {
	var out []string
	for _, ex := range message.Exchanges(msgs) {
		content := "<unanswered>"
		if ex.Answered() {
			content = msgs[ex.Result].Content
		}
		out = append(out, ex.Call.Name+": "+content)
	}
	return out
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("task id %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestRequestsAlongRecordings replays each recorded conversation through
// the fake OpenAI server (the agent's and the user's recorded replies) and
// checks that every agent request equals the conversation upstream itself
// sent at that step: the recorded trajectory is ToolCallingAgent's messages
// list, passed to completion() whole at every step. The recorded replies
// carry OpenAI's "annotations", which ledgerbench does not keep; they are
// removed before comparing. The user's requests must be the recorded turns
// in upstream's user flow.
func TestRequestsAlongRecordings(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	prompts, err := usersim.LoadTraitPrompts(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, td := range tauTraitDomains(t, root) {
		requestsAlongRecordings(t, root, td, prompts)
	}
}

func requestsAlongRecordings(t *testing.T, root string, td tauTraitDomain, prompts *usersim.TraitPrompts) {
	dom := td.dom
	var n alongCounts
	for _, path := range datatest.TauTraitRecordingsOf(t, td.env) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var list []struct {
			TaskID int              `json:"task_id"`
			Traj   []map[string]any `json:"traj"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatal(err)
		}
		for _, rec := range list {
			conv := scriptOf(rec.Traj)
			task := &dom.Tasks().Extra["test"][rec.TaskID]
			c := runScripted(t, dom, root, task, conv.agentTurns, conv.userTurns)
			n.compare(t, fmt.Sprintf("%s/task%d", filepath.Base(path), rec.TaskID), conv, c, prompts, task, false)
		}
	}
	t.Logf("%s: requests along the recorded conversations equal to upstream's: agent %d/%d (%d more equal but for the null keys another client left out), user %d/%d",
		dom.Name(), n.agentEq, n.agentReqs, n.otherClient, n.userEq, n.userReqs)
	if n.agentEq+n.otherClient != n.agentReqs || n.userEq != n.userReqs {
		t.Errorf("%d agent and %d user requests differ", n.agentReqs-n.agentEq-n.otherClient, n.userReqs-n.userEq)
	}
}

// recordedConv is one recorded conversation (OpenAI's "annotations", which
// ledgerbench does not keep, removed) with the replies it scripts for the
// fake agent and user servers.
type recordedConv struct {
	traj                  []map[string]any
	agentTurns, userTurns []openaitest.Reply
	agentAt               []int // index in traj of each assistant message
}

func scriptOf(traj []map[string]any) recordedConv {
	conv := recordedConv{traj: traj}
	for i, m := range traj {
		delete(m, "annotations")
		switch m["role"] {
		case "assistant":
			conv.agentAt = append(conv.agentAt, i)
			r := openaitest.Reply{}
			if s, ok := m["content"].(string); ok {
				r.Content = s
			}
			calls, _ := m["tool_calls"].([]any)
			for _, c := range calls {
				c := c.(map[string]any)
				fn := c["function"].(map[string]any)
				r.ToolCalls = append(r.ToolCalls, openaitest.ToolCall{ID: c["id"].(string), Name: fn["name"].(string), Arguments: fn["arguments"].(string)})
			}
			conv.agentTurns = append(conv.agentTurns, r)
		case "user":
			conv.userTurns = append(conv.userTurns, openaitest.Text(m["content"].(string)))
		}
	}
	return conv
}

// alongCounts counts the requests compared along recordings: agentEq equal,
// otherClient equal but for the null keys another client left out,
// agentModulo (recordings on other data) equal but for tool outputs.
type alongCounts struct {
	agentReqs, agentEq, agentModulo, otherClient, userReqs, userEq int
}

// compare checks the requests captured while replaying conv: each agent
// request is the trajectory up to that assistant message (ToolCallingAgent
// sends its messages list whole at every step), each user request the
// user's view in upstream's user flow (system, greeting, then its own turns
// dumped and the agent's respond contents, alternating). The trajectory is
// decoded once and its prefixes compared, as decoding each prefix would.
func (n *alongCounts) compare(t *testing.T, name string, conv recordedConv, c captured, prompts *usersim.TraitPrompts, task *tasks.Task, otherData bool) {
	t.Helper()
	traj := jsonValue(t, mustJSON(conv.traj)).([]any)
	for i, body := range c.agent {
		n.agentReqs++
		got := normalised(t, body)["messages"]
		want := any(traj[:conv.agentAt[i]])
		switch {
		case reflect.DeepEqual(got, want):
			n.agentEq++
			n.agentModulo++
		case otherData:
			if reflect.DeepEqual(withoutOutputs(got), withoutOutputs(want)) {
				n.agentModulo++
			}
		case reflect.DeepEqual(withoutNullKeys(got), withoutNullKeys(want)):
			// skeptical_*.json were recorded by another client: its
			// assistant messages lack litellm's function_call (and a null
			// tool_calls) that ToolCallingAgent's model_dump() keeps, and
			// that we send.
			n.otherClient++
		case n.agentReqs-n.agentEq-n.otherClient <= 3:
			t.Errorf("%s: agent request %d:\n%.1500s\nupstream sent\n%.1500s", name, i, mustJSON(got), mustJSON(want))
		}
	}
	view := []any{
		jsonValue(t, mustJSON(map[string]any{"role": "system", "content": prompts.System(task.UserScenario.Instructions.String(), false)})),
		jsonValue(t, mustJSON(map[string]any{"role": "user", "content": prompts.Greeting})),
	}
	u := 0
	for i, m := range conv.traj {
		if i == 0 {
			continue
		}
		switch {
		case m["role"] == "user":
			n.userReqs++
			if u < len(c.user) && reflect.DeepEqual(normalised(t, c.user[u])["messages"], any(view)) {
				n.userEq++
			} else if n.userReqs-n.userEq <= 3 {
				t.Errorf("%s: user request %d differs", name, u)
			}
			u++
			view = append(view, jsonValue(t, mustJSON(dumped(m["content"], nil))))
		case m["role"] == "assistant" && m["tool_calls"] == nil:
			view = append(view, jsonValue(t, mustJSON(map[string]any{"role": "user", "content": m["content"]})))
		}
	}
}

// withoutNullKeys is a request's messages without the function_call key and
// null tool_calls of assistant messages.
func withoutNullKeys(msgs any) any {
	list, ok := msgs.([]any)
	if !ok {
		return msgs
	}
	out := make([]any, len(list))
	for i, m := range list {
		d, ok := m.(map[string]any)
		if !ok || d["role"] != "assistant" {
			out[i] = m
			continue
		}
		c := map[string]any{}
		for k, v := range d {
			if k == "function_call" || (k == "tool_calls" && v == nil) {
				continue
			}
			c[k] = v
		}
		out[i] = c
	}
	return out
}
