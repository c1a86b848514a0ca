package tautrait_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/envs/telehealth"
	"github.com/ledgerbench/ledgerbench/internal/agents"
	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/runner"
	"github.com/ledgerbench/ledgerbench/message"
	"github.com/ledgerbench/ledgerbench/orchestrator"
	"github.com/ledgerbench/ledgerbench/results"
)

// recordings lists τ-Trait's recorded GPT-5 telehealth runs (τ-bench v1
// result lists); the test skips when they are absent.
func recordings(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(datatest.Trajectories(t), "collinear-ai+tau-trait")
	files, _ := filepath.Glob(filepath.Join(dir, "*telehealth*.json"))
	if len(files) == 0 {
		t.Skipf("no τ-Trait telehealth recordings in %s", dir)
	}
	return files
}

// TestReplayRecordings replays every recorded GPT-5 telehealth run through
// the τ-Trait loop, with the replay backbone on both sides (agents.Build, as
// `run --backbone replay:F --user-backbone replay:F` does), and checks that
// each recorded reward and every recorded tool output are reproduced.
func TestReplayRecordings(t *testing.T) {
	ctx := context.Background()
	root := datatest.Root(t)
	dom, err := telehealth.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	rewards, sims, outputs, outputsEqual := 0, 0, 0, 0
	for _, path := range recordings(t) {
		recs, err := results.ReadV1(path, results.V1Labels{Domain: telehealth.Name})
		if err != nil {
			t.Fatal(err)
		}
		makers, _, err := agents.Build(ctx, agents.Options{Domain: dom, DataRoot: root, Backbone: "replay:" + path,
			UserBackbone: "replay:" + path, JudgeBackbone: agents.NoJudge})
		if err != nil {
			t.Fatal(err)
		}
		if makers.Loop == nil || makers.LoopName != "tau-trait" {
			t.Fatalf("telehealth's default loop is %q", makers.LoopName)
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
	t.Logf("recorded rewards reproduced: %d/%d; tool outputs equal: %d/%d", rewards, sims, outputsEqual, outputs)
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
