package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/judge"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// The prompt oracle compares the requests ledgerbench sends with the ones
// upstream's own Python code would send, run by
// testdata/oracle/prompt_oracle.py over a tau2-bench source tree:
//
//	LEDGERBENCH_PROMPT_ORACLE=1 TAU2_SRC=/path/to/tau2-bench/src \
//	go test ./internal/engine/agents -run PromptOracle -v
//
// (export one with git -C <mirror> archive a2c02472... src | tar -x -C DIR).
// Requests are compared as JSON values after removing only what is not
// model-facing: the model name and the stream flag (headers are not part of
// the body). The tools are compared apart and counted: they are the tool
// schema port's measure, not the prompts'.

const oracleModel = "gpt-4.1-2025-04-14"

// oracleSplits are the task sets measured: every airline and retail task,
// telecom's base split.
var oracleSplits = map[string]string{"airline": "all", "retail": "all", "telecom": "base"}

type oracleJob struct {
	Domain    string          `json:"domain"`
	Task      json.RawMessage `json:"task,omitempty"`
	Seed      int64           `json:"seed"`
	UserReply string          `json:"user_reply,omitempty"`
	File      string          `json:"trajectory_file,omitempty"`
	Index     int             `json:"index"`
	Judge     bool            `json:"judge,omitempty"`
}

type oracleOut struct {
	User  []json.RawMessage `json:"user"`
	Agent []json.RawMessage `json:"agent"`
	Judge []json.RawMessage `json:"judge"`
}

func oracleEnv(t *testing.T) {
	t.Helper()
	if os.Getenv("LEDGERBENCH_PROMPT_ORACLE") == "" {
		t.Skip("LEDGERBENCH_PROMPT_ORACLE not set (see prompt_oracle_test.go)")
	}
	if os.Getenv("TAU2_SRC") == "" {
		t.Skip("TAU2_SRC (a tau2-bench src directory) not set")
	}
}

func runOracle(t *testing.T, root string, jobs []oracleJob) []oracleOut {
	t.Helper()
	var res []oracleOut
	oracletest.JSON(t, "python3 "+filepath.Join("testdata", "oracle", "prompt_oracle.py"), map[string]any{
		"data_dir": filepath.Join(root, data.Tau2, "data"),
		"schemas":  filepath.Join(root, data.Tau2, "derived", "tool_schemas.json"),
		"model":    oracleModel, "llm_args": map[string]any{"temperature": 0.0},
		"jobs": jobs,
	}, &res)
	if len(res) != len(jobs) {
		t.Fatalf("oracle answered %d of %d jobs", len(res), len(jobs))
	}
	return res
}

// oracleBackbone is a backbone on a fake server, sampling as backbones.yaml's
// gpt-4.1 (temperature 0.0, nothing else).
func oracleMakers(t *testing.T, dom envs.Domain, agentURL, userURL string) runner.Makers {
	t.Helper()
	zero := 0.0
	cfg := &llm.Config{Backbones: map[string]llm.Backbone{
		"agent": {Name: "agent", BaseURL: agentURL, Model: oracleModel, Temperature: &zero},
		"user":  {Name: "user", BaseURL: userURL, Model: oracleModel, Temperature: &zero},
	}}
	makers, _, err := Build(t.Context(), Options{Domain: dom, DataRoot: datatest.Root(t), Backbone: "agent", UserBackbone: "user",
		JudgeBackbone: NoJudge, Pool: llm.NewPool(cfg, llm.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	return makers
}

// requestDiff compares two request bodies: it returns the top-level keys
// (other than tools) whose values differ, and whether the tools are equal.
// model and stream are not compared.
func requestDiff(got, want []byte) (diff []string, toolsEqual bool, err error) {
	var g, w map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		return nil, false, fmt.Errorf("ours: %w", err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		return nil, false, fmt.Errorf("upstream: %w", err)
	}
	if e, ok := w["error"]; ok {
		return nil, false, fmt.Errorf("upstream raised: %v", e)
	}
	for _, m := range []map[string]any{g, w} {
		delete(m, "model")
		delete(m, "stream")
	}
	toolsEqual = reflect.DeepEqual(g["tools"], w["tools"])
	keys := map[string]bool{}
	for k := range g {
		keys[k] = true
	}
	for k := range w {
		keys[k] = true
	}
	for k := range keys {
		if k == "tools" {
			continue
		}
		if !reflect.DeepEqual(g[k], w[k]) {
			diff = append(diff, k+messageDiff(k, g[k], w[k]))
		}
	}
	sort.Strings(diff)
	return diff, toolsEqual, nil
}

// messageDiff names the first differing message, for the log.
func messageDiff(key string, g, w any) string {
	if key != "messages" {
		return fmt.Sprintf(" (ours %v, upstream %v)", g, w)
	}
	gl, _ := g.([]any)
	wl, _ := w.([]any)
	for i := 0; i < max(len(gl), len(wl)); i++ {
		if i >= len(gl) || i >= len(wl) {
			return fmt.Sprintf(" (%d messages, upstream %d)", len(gl), len(wl))
		}
		if !reflect.DeepEqual(gl[i], wl[i]) {
			gb, _ := json.Marshal(gl[i])
			wb, _ := json.Marshal(wl[i])
			return fmt.Sprintf(" (message %d: ours %.300s; upstream %.300s)", i, gb, wb)
		}
	}
	return ""
}

// rawTasks reads a domain's upstream tasks file by id.
func rawTasks(t *testing.T, root, domain string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(data.Tau2Domain(root, domain), "tasks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]json.RawMessage, len(list))
	for _, raw := range list {
		var id struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &id); err != nil {
			t.Fatal(err)
		}
		out[id.ID] = raw
	}
	return out
}

// TestPromptOracleFirstRequests: for every task, the first user-simulator
// request and the first agent request of a simulation (orchestrator.Run on
// the fake server: the user answers the greeting, the agent answers the
// user, the user stops) against upstream's.
func TestPromptOracleFirstRequests(t *testing.T) {
	t.Parallel()
	oracleEnv(t)
	root := datatest.Root(t)
	for _, name := range []string{"airline", "retail", "telecom"} {
		t.Run(name, func(t *testing.T) {
			dom, err := domains.Load(name, root)
			if err != nil {
				t.Fatal(err)
			}
			ts, err := dom.Tasks().Select(tasks.Selection{Split: oracleSplits[name]})
			if err != nil {
				t.Fatal(err)
			}
			raw := rawTasks(t, root, name)
			var mu sync.Mutex
			userReply := ""
			userCalls := 0
			userSrv := openaitest.NewHandlerServer(t, func(*openaitest.Request) openaitest.Reply {
				mu.Lock()
				defer mu.Unlock()
				userCalls++
				if userCalls%2 == 0 {
					return openaitest.Text("###STOP###")
				}
				return openaitest.Text(userReply)
			})
			agentSrv := openaitest.NewHandlerServer(t, func(*openaitest.Request) openaitest.Reply {
				return openaitest.Text("Let me look into that.")
			})
			makers := oracleMakers(t, dom, agentSrv.BaseURL(), userSrv.BaseURL())
			jobs := make([]oracleJob, len(ts))
			for i := range ts {
				task := &ts[i]
				seed := int64(1000 + i)
				mu.Lock()
				userReply = "Hello, I need help (task " + task.ID + ")."
				mu.Unlock()
				jobs[i] = oracleJob{Domain: name, Task: raw[task.ID], Seed: seed, UserReply: userReply}
				if jobs[i].Task == nil {
					t.Fatalf("task %s not in tasks.json", task.ID)
				}
				spec := runner.Spec{Domain: dom, Task: task, Seed: seed}
				a, err := makers.Agent(spec)
				if err != nil {
					t.Fatal(err)
				}
				u, err := makers.User(spec)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := orchestrator.Run(t.Context(), dom, task, a, u, orchestrator.Config{Greeting: makers.Greeting, Now: fixedNow}); err != nil {
					t.Fatalf("task %s: %v", task.ID, err)
				}
			}
			ureqs, areqs := userSrv.Requests(), agentSrv.Requests()
			if len(ureqs) != 2*len(ts) || len(areqs) != len(ts) {
				t.Fatalf("%d user and %d agent requests for %d tasks", len(ureqs), len(areqs), len(ts))
			}
			want := runOracle(t, root, jobs)
			userEq, agentEq, userTools, agentTools := 0, 0, 0, 0
			for i := range ts {
				for _, side := range []struct {
					name      string
					got, want []byte
					eq, tools *int
				}{
					{"user", ureqs[2*i].Body, want[i].User[0], &userEq, &userTools},
					{"agent", areqs[i].Body, want[i].Agent[0], &agentEq, &agentTools},
				} {
					diff, toolsEq, err := requestDiff(side.got, side.want)
					if err != nil {
						t.Errorf("task %s %s: %v", ts[i].ID, side.name, err)
						continue
					}
					if toolsEq {
						*side.tools++
					}
					if len(diff) == 0 {
						*side.eq++
					} else {
						t.Errorf("task %s: first %s request differs: %s", ts[i].ID, side.name, strings.Join(diff, "; "))
					}
				}
			}
			t.Logf("%s: first agent requests equal (tools apart) %d/%d, tools equal %d/%d; first user-simulator requests equal %d/%d, tools equal %d/%d",
				name, agentEq, len(ts), agentTools, len(ts), userEq, len(ts), userTools, len(ts))
		})
	}
}

// TestPromptOracleReplay: along every recorded τ²-bench conversation, each
// agent and user request ledgerbench sends for a recorded prefix (the fake
// server answers with the recorded next message) against the request
// upstream's generate_next_message would be sent for that prefix.
func TestPromptOracleReplay(t *testing.T) {
	t.Parallel()
	oracleEnv(t)
	root := datatest.Root(t)
	files, err := filepath.Glob(filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "*.json"))
	if err != nil || len(files) == 0 {
		t.Skipf("no recorded τ²-bench trajectories (%v)", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := results.ReadTau2(path)
			if err != nil {
				t.Fatal(err)
			}
			var info struct {
				Env struct {
					Domain string `json:"domain_name"`
				} `json:"environment_info"`
			}
			if err := json.Unmarshal(f.Info, &info); err != nil {
				t.Fatal(err)
			}
			dom, err := domains.Load(info.Env.Domain, root)
			if err != nil {
				t.Fatal(err)
			}
			byID := recordedTasks(t, f)
			var jobs []oracleJob
			var ours []oracleOut
			for i, s := range f.Simulations {
				task := byID[s.TaskID]
				if task == nil {
					t.Fatalf("simulation %d: task %s not in the file", i, s.TaskID)
				}
				seed := int64(0)
				if s.Seed != nil {
					seed = *s.Seed
				}
				o, err := replayRequests(t, dom, task, seed, s.Trajectory())
				if err != nil {
					t.Fatalf("simulation %d (%s): %v", i, s.TaskID, err)
				}
				ours = append(ours, o)
				jobs = append(jobs, oracleJob{Domain: dom.Name(), Seed: seed, File: path, Index: i})
			}
			want := runOracle(t, root, jobs)
			total, equal, toolsEq := 0, 0, 0
			kinds := map[string]int{}
			for i := range jobs {
				for _, side := range []struct {
					name      string
					got, want []json.RawMessage
				}{{"agent", ours[i].Agent, want[i].Agent}, {"user", ours[i].User, want[i].User}} {
					if len(side.got) != len(side.want) {
						t.Errorf("simulation %d: %d %s requests, upstream %d", i, len(side.got), side.name, len(side.want))
					}
					for j := range min(len(side.got), len(side.want)) {
						total++
						diff, teq, err := requestDiff(side.got[j], side.want[j])
						if err != nil {
							kinds[side.name+": "+err.Error()]++
							continue
						}
						if teq {
							toolsEq++
						}
						if len(diff) == 0 {
							equal++
							continue
						}
						k := side.name + ": " + strings.Join(diff, "; ")
						kinds[k]++
						if kinds[k] == 1 {
							t.Logf("simulation %d %s request %d: %s", i, side.name, j, k)
						}
					}
				}
			}
			t.Logf("%s: %d/%d prefix requests equal (tools apart); tools equal in %d/%d; %d kinds of difference",
				filepath.Base(path), equal, total, toolsEq, total, len(kinds))
			if equal != total {
				t.Errorf("%d of %d prefix requests differ", total-equal, total)
			}
		})
	}
}

// replayRequests feeds a recorded trajectory to ledgerbench's agent and user
// simulator, as the orchestrator routes messages, each side's model
// answering with its recorded message, and returns the bodies sent.
func replayRequests(t *testing.T, dom envs.Domain, task *tasks.Task, seed int64, traj []message.Message) (oracleOut, error) {
	t.Helper()
	var agentReplies, userReplies []openaitest.Reply
	for i, m := range traj {
		if i == 0 {
			continue
		}
		r := openaitest.Reply{Content: m.Content, EmptyContent: m.EmptyContent}
		for _, tc := range m.ToolCalls {
			r.ToolCalls = append(r.ToolCalls, openaitest.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: string(tc.Arguments)})
		}
		switch m.Role {
		case message.Assistant:
			agentReplies = append(agentReplies, r)
		case message.User:
			userReplies = append(userReplies, r)
		}
	}
	agentSrv := openaitest.NewServer(t, agentReplies...)
	userSrv := openaitest.NewServer(t, userReplies...)
	makers := oracleMakers(t, dom, agentSrv.BaseURL(), userSrv.BaseURL())
	spec := runner.Spec{Domain: dom, Task: task, Seed: seed}
	a, err := makers.Agent(spec)
	if err != nil {
		return oracleOut{}, err
	}
	u, err := makers.User(spec)
	if err != nil {
		return oracleOut{}, err
	}
	toAgent := []message.Message{{Role: message.Assistant, Content: makers.Greeting}}
	toUser := []message.Message{toAgent[0]}
	for i, m := range traj {
		if i == 0 {
			continue
		}
		switch m.Role {
		case message.Assistant:
			if _, err := a.Next(t.Context(), toAgent); err != nil {
				return oracleOut{}, err
			}
			toAgent = nil
			if !m.IsToolCall() {
				toUser = append(toUser, m)
			}
		case message.User:
			if _, err := u.Next(t.Context(), toUser); err != nil {
				return oracleOut{}, err
			}
			toUser = nil
			if !m.IsToolCall() {
				toAgent = append(toAgent, m)
			}
		case message.Tool:
			if m.Requestor == message.ByUser {
				toUser = append(toUser, m)
			} else {
				toAgent = append(toAgent, m)
			}
		}
	}
	var out oracleOut
	for _, r := range agentSrv.Requests() {
		out.Agent = append(out.Agent, r.Body)
	}
	for _, r := range userSrv.Requests() {
		out.User = append(out.User, r.Body)
	}
	return out, nil
}

// TestPromptOracleJudge: the NL-assertion judge's request for every
// recorded τ²-bench conversation whose task has NL assertions, against the
// request upstream's NLAssertionsEvaluator.evaluate_nl_assertions sends for
// the same messages.
func TestPromptOracleJudge(t *testing.T) {
	t.Parallel()
	oracleEnv(t)
	root := datatest.Root(t)
	files, err := filepath.Glob(filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "*.json"))
	if err != nil || len(files) == 0 {
		t.Skipf("no recorded τ²-bench trajectories (%v)", err)
	}
	prompt, err := judge.LoadPrompt(root)
	if err != nil {
		t.Fatal(err)
	}
	srv := openaitest.NewHandlerServer(t, func(*openaitest.Request) openaitest.Reply { return openaitest.Text(`{"results": []}`) })
	zero := 0.0
	c, err := llm.New(llm.Backbone{Name: "judge", BaseURL: srv.BaseURL(), Model: oracleModel, Temperature: &zero}, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	j := judge.New(c, prompt, judge.Options{})
	var jobs []oracleJob
	for _, path := range files {
		f, err := results.ReadTau2(path)
		if err != nil {
			t.Fatal(err)
		}
		byID := recordedTasks(t, f)
		for i, s := range f.Simulations {
			task := byID[s.TaskID]
			if task == nil || task.EvaluationCriteria == nil || len(task.EvaluationCriteria.NLAssertions) == 0 {
				continue
			}
			if _, err := j.JudgeNL(t.Context(), s.Trajectory(), task.EvaluationCriteria.NLAssertions); err != nil {
				t.Fatalf("%s simulation %d: %v", filepath.Base(path), i, err)
			}
			jobs = append(jobs, oracleJob{File: path, Index: i, Judge: true})
		}
	}
	if len(jobs) == 0 {
		t.Skip("no recorded conversation has NL assertions")
	}
	want := runOracle(t, root, jobs)
	got := srv.Requests()
	equal := 0
	for i := range jobs {
		diff, _, err := requestDiff(got[i].Body, want[i].Judge[0])
		switch {
		case err != nil:
			t.Errorf("job %d: %v", i, err)
		case len(diff) == 0:
			equal++
		default:
			t.Errorf("%s simulation %d: judge request differs: %s", filepath.Base(jobs[i].File), jobs[i].Index, strings.Join(diff, "; "))
		}
	}
	t.Logf("judge requests equal: %d/%d", equal, len(jobs))
}

// recordedTasks are the tasks a recorded results file holds, by id (the
// recording's own version of each task).
func recordedTasks(t *testing.T, f *results.Tau2File) map[string]*tasks.Task {
	t.Helper()
	byID := map[string]*tasks.Task{}
	for _, raw := range f.Tasks {
		var rt tasks.Task
		if err := json.Unmarshal(raw, &rt); err != nil {
			t.Fatal(err)
		}
		byID[rt.ID] = &rt
	}
	return byID
}
