package telehealth

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/engine/gold"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// The shared evaluator's DB check (replay the trajectory's write calls,
// replay every gold action, compare) gives τ-Trait's reward here: reads and
// transfer_to_human_support change nothing, SameDB compares like upstream's
// data hash, and communicate_info (upstream's outputs) is empty.
func verifySplit(t *testing.T, split string, want int) {
	d := loadDomain(t)
	list, err := d.Tasks().Select(tasks.Selection{Split: split})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != want {
		t.Fatalf("%s split has %d tasks; want %d", split, len(list), want)
	}
	passed := 0
	for i := range list {
		task := &list[i]
		res, err := gold.Verify(context.Background(), d, task, evaluator.Options{})
		if err != nil {
			t.Errorf("task %s: %v", task.ID, err)
			continue
		}
		if !res.Passed || res.Info.DBCheck == nil || !res.Info.DBCheck.DBMatch {
			t.Errorf("task %s: reward %v; info %+v", task.ID, res.Reward, res.Info)
			continue
		}
		passed++
	}
	t.Logf("%d/%d %s tasks pass gold verification", passed, len(list), split)
}

func TestVerifyTest(t *testing.T)  { verifySplit(t, "test", 20) }
func TestVerifyDev(t *testing.T)   { verifySplit(t, "dev", 1) }
func TestVerifyTrain(t *testing.T) { verifySplit(t, "train", 1) }

// TestVerifyDetectsWrongWrites checks the DB check is not vacuous: a
// trajectory missing a gold write, or adding one, fails.
func TestVerifyDetectsWrongWrites(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	ctx := context.Background()
	task := d.Tasks().Extra["test"][0] // one schedule_appointment
	msgs, _, err := gold.Trajectory(ctx, d, &task)
	if err != nil {
		t.Fatal(err)
	}
	// Drop the write (messages 2 and 3: the call and its result).
	short := append(append([]message.Message(nil), msgs[:2]...), msgs[4:]...)
	info, err := evaluator.Evaluate(ctx, d, &task, short, evaluator.UserStop, evaluator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Reward != 0 {
		t.Errorf("without the gold write: reward %v; want 0", info.Reward)
	}
	// An extra successful note fails too (the whole database is compared).
	other := d.Tasks().Extra["test"][2] // reads and a transfer only
	msgs2, _, err := gold.Trajectory(ctx, d, &other)
	if err != nil {
		t.Fatal(err)
	}
	extra := message.ToolCall{ID: "x", Name: "update_medical_record_note", Arguments: json.RawMessage(`{"record_id": "REC001", "note": "n"}`), Requestor: message.ByAssistant}
	env := d.Env()
	res := envs.Respond(ctx, env, extra)
	msgs2 = append(msgs2[:len(msgs2)-1], message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{extra}}, res, msgs2[len(msgs2)-1])
	info, err = evaluator.Evaluate(ctx, d, &other, msgs2, evaluator.UserStop, evaluator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Reward != 0 {
		t.Errorf("with an extra note: reward %v; want 0", info.Reward)
	}
}
