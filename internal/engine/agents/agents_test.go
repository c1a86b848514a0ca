package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/judge"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// traitDomain is the shop renamed telehealth, to exercise the τ-Trait user.
type traitDomain struct{ *offlinetest.Domain }

func (traitDomain) Name() string { return "telehealth" }

func writeBackbones(t *testing.T, baseURL string) string {
	t.Helper()
	yaml := fmt.Sprintf(`judge: judge-model
backbones:
  fake:
    base_url: %[1]s
    model: fake-model
    api_key_env: FAKE_KEY
    temperature: 0.0
  judge-model:
    base_url: %[1]s
    model: judge
    api_key_env: FAKE_KEY
    temperature: 0.0
`, baseURL)
	path := filepath.Join(t.TempDir(), "backbones.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	root := datatest.Root(t)
	bb := writeBackbones(t, "http://127.0.0.1:1/v1")
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"no domain", Options{Backbone: "gold"}, "no domain"},
		{"no backbone", Options{Domain: dom, DataRoot: root}, "no agent backbone"},
		{"unknown agent", Options{Domain: dom, DataRoot: root, Agent: "react", Backbone: "gold"}, `unknown agent "react"`},
		{"model name without file", Options{Domain: dom, DataRoot: root, Backbone: "gpt-4.1"}, "no backbones file"},
		{"unknown backbone", Options{Domain: dom, DataRoot: root, Backbone: "gpt-9", BackbonesFile: bb}, `unknown backbone "gpt-9"`},
		{"missing key", Options{Domain: dom, DataRoot: root, Backbone: "fake", BackbonesFile: bb}, "hint: set FAKE_KEY"},
		{"missing backbones file", Options{Domain: dom, DataRoot: root, Backbone: "fake", BackbonesFile: "/nonexistent/b.yaml"}, "load backbones"},
		{"bad sim", Options{Domain: dom, DataRoot: root, Backbone: "sim:stale=3"}, "outside [0, 1]"},
		{"missing replay", Options{Domain: dom, DataRoot: root, Backbone: "replay:/nonexistent.json"}, "replay"},
		{"no user simulator source", Options{Domain: dom, DataRoot: t.TempDir(), Backbone: "gold"}, "user_simulator.py"},
		{"steer on tau2", Options{Domain: dom, DataRoot: root, Backbone: "gold", UserBackbone: "steer"}, "τ-Trait's user only"},
		{"traits on tau2", Options{Domain: dom, DataRoot: root, Backbone: "gold", Traits: usersim.Traits{"impatience": "high"}}, "τ-Trait's user only"},
		{"steer without env", Options{Domain: traitDomain{dom}, DataRoot: root, Backbone: "gold", UserBackbone: "steer"}, usersim.SteerEndpointEnv},
		{"bad traits", Options{Domain: traitDomain{dom}, DataRoot: root, Backbone: "gold", Traits: usersim.Traits{"grumpy": "high"}}, "unknown trait"},
		{"steer mode on chat", Options{Domain: traitDomain{dom}, DataRoot: root, Backbone: "gold", TraitMode: usersim.TraitSteer}, "needs the user backbone"},
		{"unknown style", Options{Domain: dom, DataRoot: root, Backbone: "gold", UserStyle: "v1"}, "unknown user style"},
		{"offline judge", Options{Domain: dom, DataRoot: root, Backbone: "gold", JudgeBackbone: "gold"}, "must be a model backbone"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Build(t.Context(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Build error = %v; want it to contain %q", err, tc.want)
			}
		})
	}
	if !errors.Is(func() error {
		_, _, err := Build(t.Context(), Options{Domain: dom, DataRoot: root, Backbone: "fake", BackbonesFile: bb})
		return err
	}(), llm.ErrNoAPIKey) {
		t.Errorf("missing key does not wrap llm.ErrNoAPIKey")
	}
	if got := strings.Join(AgentNames(), ","); got != "baseline,ledger,ledger-only,gate-only,irma" {
		t.Errorf("AgentNames = %v", got)
	}
	if !Simulated("sim:miss=0.5") || Simulated("gold") || Simulated("gpt-4.1") {
		t.Errorf("Simulated")
	}
}

// A model run end to end: agent, τ² user and judge on the fake server,
// through the orchestrator, with the backbones file and keys from Getenv.
func TestBuildModelRun(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	task := offlinetest.Task("pay")
	task.EvaluationCriteria.NLAssertions = []string{"Agent pays the order"}
	task.EvaluationCriteria.RewardBasis = append(task.EvaluationCriteria.RewardBasis, tasks.RewardNLAssertion)
	agentTurns := []openaitest.Reply{
		openaitest.Calls(openaitest.Call("pay_order", `{"order_id": "#O1", "payment_method_id": "card_1"}`)),
		openaitest.Text("Done: #O1 is paid."),
	}
	userTurns := []openaitest.Reply{openaitest.Text("Please pay #O1 with card_1. I am u1."), openaitest.Text("Thanks! ###STOP###")}
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		sys := r.Messages[0].Text()
		switch {
		case r.Model == "judge":
			return openaitest.Text(`{"results": [{"expectedOutcome": "Agent pays the order", "reasoning": "paid", "metExpectation": true}]}`)
		case strings.HasPrefix(sys, "<instructions>"):
			if r.Seed == nil || *r.Seed != 99 {
				t.Errorf("agent seed %v", r.Seed)
			}
			rep := agentTurns[0]
			agentTurns = agentTurns[1:]
			return rep
		default:
			if !strings.Contains(sys, "<scenario>") || len(r.Tools) != 2 {
				t.Errorf("user request: system %.60q, %d tools", sys, len(r.Tools))
			}
			rep := userTurns[0]
			userTurns = userTurns[1:]
			return rep
		}
	})
	bb := writeBackbones(t, srv.BaseURL())
	makers, j, err := Build(t.Context(), Options{Domain: dom, DataRoot: datatest.Root(t), Backbone: "fake",
		BackbonesFile: bb, Getenv: env("FAKE_KEY", "sk-test")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := j.(*judge.Judge); !ok {
		t.Fatalf("judge %T", j)
	}
	spec := runner.Spec{Domain: dom, Task: task, Seed: 99}
	a, err := makers.Agent(spec)
	if err != nil {
		t.Fatal(err)
	}
	u, err := makers.User(spec)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := orchestrator.Run(t.Context(), dom, task, a, u, orchestrator.Config{Judge: j})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Success() || rec.JudgeUsage.PromptTokens == 0 || rec.AgentUsage.PromptTokens == 0 || rec.UserUsage.PromptTokens == 0 {
		b, _ := json.Marshal(rec)
		t.Errorf("model run: %s", b)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("authorization %q", got)
	}
	for _, k := range []string{"agent_system", "user_guidelines", "user_guidelines_tools"} {
		if makers.PromptHashes[k] == "" {
			t.Errorf("prompt hash %s missing: %v", k, makers.PromptHashes)
		}
	}
	var info baseline.Report
	if err := json.Unmarshal(rec.AgentInfo, &info); err != nil || info.ModelCalls != 2 {
		t.Errorf("agent info %s", rec.AgentInfo)
	}
	// JudgeBackbone "none" disables the judge.
	if _, j, err := Build(t.Context(), Options{Domain: dom, DataRoot: datatest.Root(t), Backbone: "fake", BackbonesFile: bb,
		Getenv: env("FAKE_KEY", "k"), JudgeBackbone: NoJudge}); err != nil || j != nil {
		t.Errorf("none judge: %v %v", j, err)
	}
}

// The τ-Trait user through Build: telehealth picks it; steer reads its
// endpoint and key from the environment.
func TestBuildTraitUser(t *testing.T) {
	t.Parallel()
	dom := traitDomain{offlinetest.New()}
	task := offlinetest.Task("pay")
	var bodies []map[string]any
	steer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		bodies = append(bodies, body)
		if r.Header.Get("API-Key") != "steer-key" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"response": "Pay #O1 with card_1 please. ###STOP###"})
	}))
	t.Cleanup(steer.Close)
	makers, _, err := Build(t.Context(), Options{Domain: dom, DataRoot: datatest.Root(t), Backbone: "gold", UserBackbone: SteerBackbone,
		Traits: usersim.Traits{"impatience": "high"}, Getenv: env(usersim.SteerEndpointEnv, steer.URL, usersim.SteerKeyEnv, "steer-key")})
	if err != nil {
		t.Fatal(err)
	}
	spec := runner.Spec{Domain: dom, Task: task}
	a, _ := makers.Agent(spec)
	u, err := makers.User(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.(*usersim.Trait); !ok {
		t.Fatalf("user %T", u)
	}
	rec, err := orchestrator.Run(t.Context(), envs.Domain(dom), task, a, u, orchestrator.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.TerminationReason != "user_stop" || len(bodies) != 1 {
		t.Errorf("termination %s, %d steer calls", rec.TerminationReason, len(bodies))
	}
	if td, _ := json.Marshal(bodies[0]["trait_dict"]); string(td) != `{"impatience":"high"}` {
		t.Errorf("trait_dict %s", td)
	}
	var rep usersim.Report
	_ = json.Unmarshal(rec.UserInfo, &rep)
	if rep.TraitMode != usersim.TraitSteer {
		t.Errorf("user info %s", rec.UserInfo)
	}
	// With the offline user the τ-Trait prompt approximation is labelled.
	makers, _, err = Build(t.Context(), Options{Domain: dom, DataRoot: datatest.Root(t), Backbone: "gold", Traits: usersim.Traits{"confusion": "low"}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ = makers.User(spec)
	if rep := u.(*usersim.Trait).Report().(usersim.Report); rep.TraitMode != usersim.TraitPrompt {
		t.Errorf("default trait mode %s", rep.TraitMode)
	}
}

func TestBuildOfflinePairs(t *testing.T) {
	t.Parallel()
	dom := offlinetest.New()
	for _, name := range []string{"gold", "sim", "sim:stale=0,violation=0,miss=0"} {
		makers, j, err := Build(t.Context(), Options{Domain: dom, DataRoot: datatest.Root(t), Backbone: name})
		if err != nil || j != nil {
			t.Fatalf("%s: %v %v", name, err, j)
		}
		for _, task := range offlinetest.Tasks() {
			spec := runner.Spec{Domain: dom, Task: &task, Seed: 5}
			a, _ := makers.Agent(spec)
			u, _ := makers.User(spec)
			rec, err := orchestrator.Run(t.Context(), dom, &task, a, u, orchestrator.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if name != "sim" && !rec.Success() {
				t.Errorf("%s %s: %s %v", name, task.ID, rec.TerminationReason, rec.Reward())
			}
			var info struct {
				Backbone offline.AgentReport `json:"backbone"`
			}
			_ = json.Unmarshal(rec.AgentInfo, &info)
			if info.Backbone.Simulated != Simulated(name) {
				t.Errorf("%s: simulated label %v", name, info.Backbone.Simulated)
			}
		}
	}
}
