package gold_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/gold"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// TestDecodersMatchReflective plays every task of every domain and split
// (initialization actions, gold calls, gold replay and env assertions) with
// the tools' single-pass argument decoders and again with CheckArgs and
// encoding/json alone (tool.ReflectDecoding): every call's output and error
// flag, and the whole evaluation, must be the same.
func TestDecodersMatchReflective(t *testing.T) {
	root := datatest.Root(t)
	ctx := context.Background()
	slow := tool.ReflectDecoding(ctx)
	for _, name := range domains.Names() {
		t.Run(name, func(t *testing.T) {
			dom, err := domains.Load(name, root)
			if err != nil {
				t.Fatal(err)
			}
			all, err := everyTask(dom.Tasks())
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			for i := range all {
				task := &all[i]
				fastMsgs, fastCalls, fastErr := gold.Trajectory(ctx, dom, task)
				slowMsgs, slowCalls, slowErr := gold.Trajectory(slow, dom, task)
				if (fastErr == nil) != (slowErr == nil) || (fastErr != nil && fastErr.Error() != slowErr.Error()) {
					t.Fatalf("task %s: trajectory error %v; reflective %v", task.ID, fastErr, slowErr)
				}
				if fastErr != nil {
					continue
				}
				if !reflect.DeepEqual(fastCalls, slowCalls) {
					t.Fatalf("task %s: gold calls\n%+v\nreflective\n%+v", task.ID, fastCalls, slowCalls)
				}
				calls += len(fastCalls)
				fast, fastErr := evaluator.Evaluate(ctx, dom, task, fastMsgs, evaluator.UserStop, evaluator.Options{})
				ref, slowErr := evaluator.Evaluate(slow, dom, task, slowMsgs, evaluator.UserStop, evaluator.Options{})
				if (fastErr == nil) != (slowErr == nil) || (fastErr != nil && fastErr.Error() != slowErr.Error()) {
					t.Fatalf("task %s: evaluation error %v; reflective %v", task.ID, fastErr, slowErr)
				}
				if !reflect.DeepEqual(fast, ref) {
					t.Fatalf("task %s: evaluation\n%+v\nreflective\n%+v", task.ID, fast, ref)
				}
			}
			if calls == 0 {
				t.Fatalf("no gold calls compared")
			}
			t.Logf("%d tasks, %d gold calls compared", len(all), calls)
		})
	}
}

// everyTask is the main task list and every split's tasks, each id once.
func everyTask(s *tasks.Set) ([]tasks.Task, error) {
	out, err := s.All()
	if err != nil {
		return nil, err
	}
	out = append([]tasks.Task(nil), out...)
	seen := map[string]bool{}
	for _, t := range out {
		seen[t.ID] = true
	}
	for _, split := range s.SplitNames() {
		ts, err := s.Select(tasks.Selection{Split: split})
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if !seen[t.ID] {
				seen[t.ID] = true
				out = append(out, t)
			}
		}
	}
	return out, nil
}
