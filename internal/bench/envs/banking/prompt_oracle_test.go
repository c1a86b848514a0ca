package banking

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

const oracleModel = "gpt-4.1-2025-04-14"

// TestFirstRequestOracle: under every offline variant, the first request
// the baseline agent sends for every task (system prompt with the
// variant's policy, the greeting, the user's reply, the tools, tool_choice,
// seed, temperature) against the one upstream's LLMAgent hands litellm.
// The bodies are compared key by key as JSON values with object key order
// kept (json.dumps of each side), the model name apart.
func TestFirstRequestOracle(t *testing.T) {
	t.Parallel()
	cmd := oracleCmd(t)
	root := datatest.Root(t)
	n := oracletest.EnvInt(t, "LEDGERBENCH_BANKING_ORACLE_TASKS", 97)
	variants := OfflineVariants()
	const userReply = "Hello, I need help with my account."
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			d, err := LoadVariant(root, Options{Variant: v})
			if err != nil {
				t.Fatal(err)
			}
			all, err := d.Tasks().All()
			if err != nil {
				t.Fatal(err)
			}
			all = all[:min(n, len(all))]
			userSrv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
				if len(r.Messages) > 2 {
					return openaitest.Text("###STOP###")
				}
				return openaitest.Text(userReply)
			})
			agentSrv := openaitest.NewHandlerServer(t, func(*openaitest.Request) openaitest.Reply {
				return openaitest.Text("Let me look into that.")
			})
			zero := 0.0
			cfg := &llm.Config{Backbones: map[string]llm.Backbone{
				"agent": {Name: "agent", BaseURL: agentSrv.BaseURL(), Model: oracleModel, Temperature: &zero},
				"user":  {Name: "user", BaseURL: userSrv.BaseURL(), Model: oracleModel, Temperature: &zero},
			}}
			makers, _, err := agents.Build(t.Context(), agents.Options{Domain: d, DataRoot: root, Backbone: "agent", UserBackbone: "user",
				JudgeBackbone: agents.NoJudge, Pool: llm.NewPool(cfg, llm.Options{})})
			if err != nil {
				t.Fatal(err)
			}
			const seed = 4242
			var ids []string
			for i := range all {
				task := &all[i]
				ids = append(ids, task.ID)
				spec := runner.Spec{Domain: d, Task: task, Seed: seed}
				a, err := makers.Agent(spec)
				if err != nil {
					t.Fatal(err)
				}
				u, err := makers.User(spec)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := orchestrator.Run(t.Context(), d, task, a, u, orchestrator.Config{Greeting: makers.Greeting,
					Now: func() time.Time { return time.Unix(0, 0) }}); err != nil {
					t.Fatalf("task %s: %v", task.ID, err)
				}
			}
			areqs := agentSrv.Requests()
			if len(areqs) != len(all) {
				t.Fatalf("%d agent requests for %d tasks", len(areqs), len(all))
			}
			var want []struct {
				ID      string          `json:"id"`
				Request json.RawMessage `json:"request"`
			}
			oracletest.JSON(t, cmd, map[string]any{"mode": "request", "variants": []string{v}, "tasks": ids,
				"model": oracleModel, "seed": seed, "user_reply": userReply, "llm_args": json.RawMessage(`{"temperature": 0.0}`)}, &want)
			same := 0
			for i := range all {
				if diff := sameRequest(areqs[i].Body, want[i].Request); diff != "" {
					t.Errorf("%s task %s: %s", v, all[i].ID, diff)
					continue
				}
				same++
			}
			t.Logf("%s: first agent requests equal to upstream's %d/%d", v, same, len(all))
		})
	}
}

// sameRequest compares two request bodies key by key ("" when equal), as
// json.dumps of each value with key order kept; the model name is not
// compared.
func sameRequest(got, want []byte) string {
	g, err := pyjson.Decode(got)
	if err != nil {
		return "ours: " + err.Error()
	}
	w, err := pyjson.Decode(want)
	if err != nil {
		return "upstream: " + err.Error()
	}
	gd, _ := g.(*pyjson.Dict)
	wd, _ := w.(*pyjson.Dict)
	keys := map[string]bool{}
	for _, d := range []*pyjson.Dict{gd, wd} {
		for _, k := range d.Keys {
			keys[k] = true
		}
	}
	for k := range keys {
		if k == "model" {
			continue
		}
		gv, _ := gd.Get(k)
		wv, _ := wd.Get(k)
		gs, ws := pyjson.String(gv), pyjson.String(wv)
		if gs != ws {
			return fmt.Sprintf("%s differs:\n ours %s\n upstream %s", k, firstDiff(gs, ws), firstDiff(ws, gs))
		}
	}
	return ""
}
