package telecom

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// recordedRuns are upstream's recorded telecom runs (gpt-4o on the 20-task
// small set; gpt-4.1 on the 40-task test split).
var recordedRuns = []string{
	"2025-08-10_telecom_llm_agent_gpt-4o_user_simulator_gpt-4o.json",
	"gpt-4.1_telecom_default_gpt-4.1_1trials.json",
}

// knownMismatches lists recorded tool calls ("file: task id #call index")
// whose replay differs from the recording, with the reason. Replay agrees on
// every call of both files, so it is empty; any difference fails the test.
var knownMismatches = map[string]string{}

type mismatch struct {
	key, call string
	got, want message.Message
}

// replayRecording rebuilds every simulation of a recorded run: a fresh
// environment, the task's initialization actions (each followed by a sync),
// the syncs that end set_state and the orchestrator's initialisation, then
// every message in order with a sync after each orchestrator step (one
// participant message, or the batch of tool results answering it), each
// recorded tool call re-executed with envs.Respond and compared with the
// recorded tool message (content and error flag).
func replayRecording(t *testing.T, d *Domain, file string) (calls int, bad []mismatch) {
	t.Helper()
	path := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", file)
	rf, err := results.ReadTau2(path)
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]string, len(rf.Tasks))
	for i, r := range rf.Tasks {
		raw[i] = string(r)
	}
	ts, err := tasks.Parse(path, []byte("["+strings.Join(raw, ",")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	byID := make(map[string]*tasks.Task, len(ts))
	for i := range ts {
		byID[ts[i].ID] = &ts[i]
	}
	ctx := context.Background()
	for _, sim := range rf.Simulations {
		task, ok := byID[sim.TaskID]
		if !ok {
			t.Fatalf("%s: simulation of unknown task %s", file, sim.TaskID)
		}
		e := d.newEnv()
		for _, a := range task.InitActions() {
			if _, err := e.RunFunction(ctx, message.Requestor(a.EnvType), a.FuncName, a.Arguments); err != nil {
				t.Fatalf("%s: task %s: init %s: %v", file, task.ID, a.FuncName, err)
			}
		}
		e.Sync() // end of set_state
		e.Sync() // end of the orchestrator's initialisation
		traj := sim.Trajectory()
		recorded := make(map[string]message.Message)
		for _, m := range traj {
			if m.Role == message.Tool {
				recorded[m.ToolCallID] = m
			}
		}
		idx := 0
		for i, m := range traj {
			if i == 0 || m.Role == message.Tool {
				continue // the greeting is not a step; tool messages are replayed with their call
			}
			e.Sync() // the step that produced m
			if len(m.ToolCalls) == 0 {
				continue
			}
			for _, tc := range m.ToolCalls {
				want, ok := recorded[tc.ID]
				if !ok {
					t.Fatalf("%s: task %s: no tool message for call %s", file, task.ID, tc.ID)
				}
				got := envs.Respond(ctx, e, tc)
				calls++
				if got.Content != want.Content || got.Error != want.Error {
					bad = append(bad, mismatch{
						key:  fmt.Sprintf("%s: %s #%d", file, sim.TaskID, idx),
						call: tc.Name + string(tc.Arguments), got: got, want: want,
					})
				}
				idx++
			}
			e.Sync() // the step that answered the calls
		}
	}
	return calls, bad
}

func TestConformanceRecordedRuns(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	seen := map[string]bool{}
	for _, file := range recordedRuns {
		calls, bad := replayRecording(t, d, file)
		t.Logf("%s: %d/%d recorded tool calls reproduced exactly", file, calls-len(bad), calls)
		for _, m := range bad {
			seen[m.key] = true
			if reason, ok := knownMismatches[m.key]; ok {
				t.Logf("known mismatch %s (%s): %s", m.key, m.call, reason)
				continue
			}
			t.Errorf("%s %s:\n got %q (error %v)\nwant %q (error %v)", m.key, m.call, m.got.Content, m.got.Error, m.want.Content, m.want.Error)
		}
	}
	for k := range knownMismatches {
		if !seen[k] {
			t.Errorf("known mismatch %s no longer occurs: remove it", k)
		}
	}
}

// TestRecordedPolicy checks the composed policy against the policy recorded
// in both runs' environment info.
func TestRecordedPolicy(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	for _, file := range recordedRuns {
		b, err := os.ReadFile(filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", file))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Info struct {
				EnvironmentInfo struct {
					DomainName string `json:"domain_name"`
					Policy     string `json:"policy"`
				} `json:"environment_info"`
			} `json:"info"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		if got, want := d.Name(), f.Info.EnvironmentInfo.DomainName; got != want {
			t.Errorf("%s: domain name %q; recorded %q", file, got, want)
		}
		if d.Policy() != f.Info.EnvironmentInfo.Policy {
			t.Errorf("%s: policy differs from the recorded one", file)
		}
	}
}

// TestRecordedTasksMatchTaskFile checks that the task definitions embedded in
// the recorded runs equal those of tasks.json.
func TestRecordedTasksMatchTaskFile(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(data.Tau2Domain(datatest.Root(t), Name), "tasks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		t.Fatal(err)
	}
	byID := make(map[string]any, len(raws))
	for _, r := range raws {
		v, err := pyjson.Decode(r)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := v.(*pyjson.Dict).Get("id")
		byID[id.(string)] = v
	}
	for _, file := range recordedRuns {
		rf, err := results.ReadTau2(filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range rf.Tasks {
			v, err := pyjson.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := v.(*pyjson.Dict).Get("id")
			if !pyjson.Equal(v, byID[id.(string)]) {
				t.Errorf("%s: task %s differs from tasks.json", file, id)
			}
		}
	}
}

// TestRecordedRewards re-scores every recorded simulation with the
// evaluator (strict replay of the trajectory's writes, gold environment, env
// assertions, action checks) and compares the reward, the DB match, and
// each env assertion and action check with upstream's recorded reward info.
func TestRecordedRewards(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	ctx := context.Background()
	for _, file := range recordedRuns {
		path := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", file)
		rf, err := results.ReadTau2(path)
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]string, len(rf.Tasks))
		for i, r := range rf.Tasks {
			raw[i] = string(r)
		}
		ts, err := tasks.Parse(path, []byte("["+strings.Join(raw, ",")+"]"))
		if err != nil {
			t.Fatal(err)
		}
		byID := make(map[string]*tasks.Task, len(ts))
		for i := range ts {
			byID[ts[i].ID] = &ts[i]
		}
		same, passes := 0, 0
		for _, sim := range rf.Simulations {
			var want struct {
				Reward  float64 `json:"reward"`
				DBCheck *struct {
					DBMatch bool `json:"db_match"`
				} `json:"db_check"`
				EnvAssertions []struct {
					Met bool `json:"met"`
				} `json:"env_assertions"`
				ActionChecks []struct {
					ActionMatch bool `json:"action_match"`
				} `json:"action_checks"`
			}
			if err := json.Unmarshal(sim.RewardInfo.Raw, &want); err != nil {
				t.Fatal(err)
			}
			got, err := evaluator.Evaluate(ctx, d, byID[sim.TaskID], sim.Trajectory(), evaluator.Termination(sim.TerminationReason), evaluator.Options{})
			if err != nil {
				t.Errorf("%s: %s: %v", file, sim.TaskID, err)
				continue
			}
			ok := got.Reward == want.Reward && (want.DBCheck == nil) == (got.DBCheck == nil) &&
				(want.DBCheck == nil || want.DBCheck.DBMatch == got.DBCheck.DBMatch) &&
				len(got.EnvAssertions) == len(want.EnvAssertions) && len(got.ActionChecks) == len(want.ActionChecks)
			for i := 0; ok && i < len(want.EnvAssertions); i++ {
				ok = got.EnvAssertions[i].Met == want.EnvAssertions[i].Met
			}
			for i := 0; ok && i < len(want.ActionChecks); i++ {
				ok = got.ActionChecks[i].ActionMatch == want.ActionChecks[i].ActionMatch
			}
			if !ok {
				t.Errorf("%s: %s: got %+v; recorded %s", file, sim.TaskID, got, sim.RewardInfo.Raw)
				continue
			}
			same++
			if evaluator.Success(got.Reward) {
				passes++
			}
		}
		t.Logf("%s: %d/%d simulations scored as recorded (%d passes)", file, same, len(rf.Simulations), passes)
	}
}
