package tautrait_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/score/rescore"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// v1Domains are the τ-bench v1 style domains besides telehealth, with what
// the request oracle needs: upstream's package, environment and source
// variable, and the tool the fake agent first calls (with callArgs).
var v1Domains = []struct {
	name, pkg, env, srcEnv, call string
}{
	{"taubench-airline", "tau_bench", "airline", "TAUBENCH_SRC", "get_user_details"},
	{"tautrait-airline", "tau_trait", "airline", "TAUTRAIT_SRC", "get_user_details"},
	{"taubench-retail", "tau_bench", "retail", "TAUBENCH_SRC", "find_user_id_by_email"},
	{"tautrait-retail", "tau_trait", "retail", "TAUTRAIT_SRC", "find_user_id_by_email"},
}

// TestV1OracleRequests compares every request of a scripted episode (the
// user opens, the agent proposes two tool calls of which only the first
// runs, then answers, and the user stops) for every task of every split of
// the four v1 domains with what upstream's own code sends (its environment,
// LLM user and ToolCallingAgent, litellm's completion() stubbed):
//
//	TAUBENCH_SRC=../shared/upstream/tau-bench TAUTRAIT_SRC=../shared/upstream/tau-trait \
//	LEDGERBENCH_V1_REQUESTS_ORACLE="python3 testdata/oracle/v1_requests.py" \
//	go test ./internal/engine/tautrait -run V1OracleRequests -v
//
// Only what is not model-facing is normalised: the model name and stream
// flag of our bodies, litellm's routing arguments of upstream's calls.
func TestV1OracleRequests(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_V1_REQUESTS_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_V1_REQUESTS_ORACLE not set")
	}
	root := datatest.Repo(t, data.TauBench, data.TauTrait)
	for _, vd := range v1Domains {
		t.Run(vd.name, func(t *testing.T) {
			if os.Getenv(vd.srcEnv) == "" {
				t.Skipf("%s not set", vd.srcEnv)
			}
			dom, err := domains.Load(vd.name, root)
			if err != nil {
				t.Fatal(err)
			}
			calls := fakeCalls(vd.call)
			for _, split := range dom.Tasks().SplitNames() {
				list := dom.Tasks().Extra[split]
				idx := make([]int, len(list))
				for i := range idx {
					idx[i] = i
				}
				var oc []map[string]string
				for _, c := range calls {
					oc = append(oc, map[string]string{"id": c.ID, "name": c.Name, "arguments": c.Arguments})
				}
				var want []struct {
					Task  int              `json:"task"`
					User  []map[string]any `json:"user"`
					Agent []map[string]any `json:"agent"`
				}
				oracletest.JSON(t, cmdline, map[string]any{"source": vd.pkg, "env": vd.env, "split": split, "tasks": idx,
					"user_opening": userOpening, "agent_answer": agentAnswer, "calls": oc}, &want)
				if len(want) != len(list) {
					t.Fatalf("%s: oracle answered %d tasks; want %d", split, len(want), len(list))
				}
				var agentN, agentEq, userN, userEq, firstEq int
				for _, w := range want {
					c := runFakeCalls(t, dom, root, &list[w.Task], "baseline", calls)
					first := true
					for role, pair := range map[string][2]any{"user": {c.user, w.User}, "agent": {c.agent, w.Agent}} {
						ours, up := pair[0].([][]byte), pair[1].([]map[string]any)
						if len(ours) != len(up) {
							t.Errorf("%s task %d: %d %s requests; upstream made %d", split, w.Task, len(ours), role, len(up))
						}
						for n := range min(len(ours), len(up)) {
							delete(up[n], "model")
							delete(up[n], "custom_llm_provider")
							if role == "user" {
								userN++
							} else {
								agentN++
							}
							got := normalised(t, ours[n])
							if reflect.DeepEqual(got, jsonValue(t, mustJSON(up[n]))) {
								if role == "user" {
									userEq++
								} else {
									agentEq++
								}
								continue
							}
							if n == 0 {
								first = false
							}
							t.Errorf("%s task %d: %s request %d\n%.2500s\nupstream\n%.2500s", split, w.Task, role, n, mustJSON(got), mustJSON(up[n]))
						}
					}
					if first {
						firstEq++
					}
				}
				t.Logf("%s %s: first requests (agent and user) equal to upstream's for %d/%d tasks; all requests: agent %d/%d, user %d/%d",
					vd.name, split, firstEq, len(list), agentEq, agentN, userEq, userN)
			}
		})
	}
}

// v1Recordings are the τ-Trait and τ-bench v1 recordings of the v1
// domains, each with the domain rescore's detection assigns it (checked).
func v1Recordings(t *testing.T) []string {
	t.Helper()
	dir := datatest.Trajectories(t)
	var out []string
	for _, pat := range []string{"collinear-ai+tau-trait/*_airline.json", "collinear-ai+tau-trait/*_retail.json", "sierra-research+tau-bench/*.json"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Skipf("no τ-Trait or τ-bench v1 airline/retail recordings in %s", dir)
	}
	return out
}

// detect is rescore's domain detection of a recording: the domain, the
// split and whether the file was recorded on other data than the pinned
// (its gold-replay hashes differ).
func detect(t *testing.T, root, path string) (envs.Domain, string, bool) {
	t.Helper()
	recs, err := results.ReadV1(path, results.V1Labels{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := results.ReadV1List(path)
	if err != nil {
		t.Fatal(err)
	}
	det, dom, err := rescore.DetectV1(context.Background(), path, recs[0].Domain, list, func(name string) (envs.Domain, error) {
		return domains.Load(name, root)
	})
	if err != nil {
		t.Fatal(err)
	}
	other := false
	for _, n := range det.Notes {
		other = other || strings.Contains(n, "recorded on other data")
	}
	return dom, det.Split, other
}

// TestV1ReplayRecordings replays every recorded run of the v1 domains
// through the τ-Trait loop with the replay backbone on both sides (as `run
// --backbone replay:F --user-backbone replay:F` does) and checks each
// recorded reward and every recorded tool output are reproduced.
func TestV1ReplayRecordings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := datatest.Repo(t, data.TauBench, data.TauTrait)
	for _, path := range v1Recordings(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			dom, split, otherData := detect(t, root, path)
			recs, err := results.ReadV1(path, results.V1Labels{Domain: dom.Name()})
			if err != nil {
				t.Fatal(err)
			}
			makers, _, err := agents.Build(ctx, agents.Options{Domain: dom, DataRoot: root, Backbone: "replay:" + path,
				UserBackbone: "replay:" + path, JudgeBackbone: agents.NoJudge})
			if err != nil {
				t.Fatal(err)
			}
			if makers.LoopName != "tau-trait" {
				t.Fatalf("%s's default loop is %q", dom.Name(), makers.LoopName)
			}
			rewards, outputs, outputsEqual := 0, 0, 0
			for _, want := range recs {
				name := "task" + want.TaskID + "/trial" + strconv.Itoa(want.Trial)
				i, _ := strconv.Atoi(want.TaskID)
				task := dom.Tasks().Extra[split][i]
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
				wantReward, gotReward := 0.0, 0.0
				if want.RewardInfo != nil {
					wantReward = want.RewardInfo.Reward
				}
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
						if !otherData {
							t.Errorf("%s: tool output %d:\n%.600s\nrecorded:\n%.600s", name, i, gotTools[i], wantTools[i])
						}
						continue
					}
					outputsEqual++
				}
			}
			t.Logf("%s (%s): recorded rewards reproduced %d/%d; tool outputs equal %d/%d", filepath.Base(path), dom.Name(), rewards, len(recs), outputsEqual, outputs)
			if otherData {
				t.Logf("%s was recorded on other data than the pinned (rescore's note): %d tool outputs differ and are not errors", filepath.Base(path), outputs-outputsEqual)
			}
		})
	}
}

// TestV1RequestsAlongRecordings replays each recorded conversation of the
// v1 domains through the fake OpenAI servers and checks that every agent
// request is the conversation upstream itself sent at that step (the
// recorded trajectory is ToolCallingAgent's messages list, sent whole at
// every step; OpenAI's "annotations" removed), and every user request the
// recorded turns in upstream's user flow with the domain's user prompt.
func TestV1RequestsAlongRecordings(t *testing.T) {
	t.Parallel()
	root := datatest.Repo(t, data.TauBench, data.TauTrait)
	for _, path := range v1Recordings(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			dom, split, otherData := detect(t, root, path)
			var prompts *usersim.TraitPrompts
			var err error
			if strings.HasPrefix(dom.Name(), "taubench-") {
				prompts, err = usersim.LoadV1Prompts(root)
			} else {
				prompts, err = usersim.LoadTraitPrompts(root)
			}
			if err != nil {
				t.Fatal(err)
			}
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
			var n alongCounts
			convs := 0
			for _, rec := range list {
				if len(rec.Traj) == 0 {
					continue // an episode that failed before its first step
				}
				convs++
				conv := scriptOf(rec.Traj)
				task := &dom.Tasks().Extra[split][rec.TaskID]
				c := runScripted(t, dom, root, task, conv.agentTurns, conv.userTurns)
				n.compare(t, fmt.Sprintf("task%d", rec.TaskID), conv, c, prompts, task, otherData)
			}
			t.Logf("%s (%s, %d conversations): requests equal to upstream's: agent %d/%d (%d more equal but for the null keys another client left out), user %d/%d", filepath.Base(path), dom.Name(), convs, n.agentEq, n.agentReqs, n.otherClient, n.userEq, n.userReqs)
			if otherData {
				t.Logf("%s was recorded on other data and an older litellm: agent requests equal but for tool outputs and litellm's newer null keys (function_call, tool_calls): %d/%d", filepath.Base(path), n.agentModulo, n.agentReqs)
				if n.agentModulo != n.agentReqs || n.userEq != n.userReqs {
					t.Errorf("%d agent requests differ beyond tool outputs, %d user requests differ", n.agentReqs-n.agentModulo, n.userReqs-n.userEq)
				}
				return
			}
			if n.agentEq+n.otherClient != n.agentReqs || n.userEq != n.userReqs {
				t.Errorf("%d agent and %d user requests differ", n.agentReqs-n.agentEq-n.otherClient, n.userReqs-n.userEq)
			}
		})
	}
}

// withoutOutputs is a request's messages without what depends on the data
// and the litellm version a recording was made with: tool messages' content
// and the keys litellm's newer Message dumps carry (function_call, and
// tool_calls when null).
func withoutOutputs(v any) any {
	msgs, _ := v.([]any)
	out := make([]any, len(msgs))
	for i, m := range msgs {
		mm, ok := m.(map[string]any)
		if !ok {
			out[i] = m
			continue
		}
		c := map[string]any{}
		for k, x := range mm {
			c[k] = x
		}
		delete(c, "function_call")
		if c["tool_calls"] == nil {
			delete(c, "tool_calls")
		}
		if c["role"] == "tool" {
			delete(c, "content")
		}
		out[i] = c
	}
	return out
}
