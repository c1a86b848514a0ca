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
	agentReqs, agentEq, otherClient, userReqs, userEq := 0, 0, 0, 0, 0
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
			name := fmt.Sprintf("%s/task%d", filepath.Base(path), rec.TaskID)
			var agentTurns, userTurns []openaitest.Reply
			var agentAt []int // index in traj of each assistant message
			for i, m := range rec.Traj {
				delete(m, "annotations")
				switch m["role"] {
				case "assistant":
					agentAt = append(agentAt, i)
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
					agentTurns = append(agentTurns, r)
				case "user":
					userTurns = append(userTurns, openaitest.Text(m["content"].(string)))
				}
			}
			task := &dom.Tasks().Extra["test"][rec.TaskID]
			c := runScripted(t, dom, root, task, agentTurns, userTurns)
			for n, body := range c.agent {
				agentReqs++
				got := normalised(t, body)["messages"]
				want := jsonValue(t, mustJSON(rec.Traj[:agentAt[n]]))
				switch {
				case reflect.DeepEqual(got, want):
					agentEq++
				case reflect.DeepEqual(withoutNullKeys(got), withoutNullKeys(want)):
					// skeptical_*.json were recorded by another client: its
					// assistant messages lack litellm's function_call (and a
					// null tool_calls) that ToolCallingAgent's model_dump()
					// keeps, and that we send.
					otherClient++
				case agentReqs-agentEq-otherClient <= 3:
					t.Errorf("%s: agent request %d:\n%.1500s\nupstream sent\n%.1500s", name, n, mustJSON(got), mustJSON(want))
				}
			}
			// The user's view: system, greeting, then its own turns
			// (dumped) and the agent's respond contents, alternating.
			view := []any{map[string]any{"role": "system", "content": prompts.System(task.UserScenario.Instructions.String(), false)},
				map[string]any{"role": "user", "content": prompts.Greeting}}
			u := 0
			for i, m := range rec.Traj {
				if i == 0 {
					continue
				}
				switch {
				case m["role"] == "user":
					userReqs++
					if n := u; n < len(c.user) && reflect.DeepEqual(normalised(t, c.user[n])["messages"], jsonValue(t, mustJSON(view))) {
						userEq++
					} else if userReqs-userEq <= 3 {
						t.Errorf("%s: user request %d differs", name, n)
					}
					u++
					view = append(view, dumped(m["content"], nil))
				case m["role"] == "assistant" && m["tool_calls"] == nil:
					view = append(view, map[string]any{"role": "user", "content": m["content"]})
				}
			}
		}
	}
	t.Logf("%s: requests along the recorded conversations equal to upstream's: agent %d/%d (%d more equal but for the null keys another client left out), user %d/%d",
		dom.Name(), agentEq, agentReqs, otherClient, userEq, userReqs)
	if agentEq+otherClient != agentReqs || userEq != userReqs {
		t.Errorf("%d agent and %d user requests differ", agentReqs-agentEq-otherClient, userReqs-userEq)
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
