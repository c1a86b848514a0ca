package banking

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/engine/gold"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The oracle tests compare this port with upstream's own Python, run by
// testdata/oracle/banking_oracle.py from a tau2-bench checkout (its
// docstring says what it computes and what it stands in for):
//
//	PYTHONPATH=<docstring_parser checkout> TAU2_SRC=<tau2-bench>/src \
//	TAU2_DATA_DIR=<tau2-bench>/data \
//	LEDGERBENCH_BANKING_ORACLE="python3 testdata/oracle/banking_oracle.py" \
//	go test ./internal/bench/envs/banking -run Oracle
//
// They are skipped unless LEDGERBENCH_BANKING_ORACLE is set.

func oracleCmd(t *testing.T) string {
	cmd := os.Getenv("LEDGERBENCH_BANKING_ORACLE")
	if cmd == "" {
		t.Skip("LEDGERBENCH_BANKING_ORACLE not set")
	}
	return cmd
}

// TestGoldOracle plays every task's gold actions here and upstream and
// compares each tool output and error flag, the final database dump and
// the reward.
func TestGoldOracle(t *testing.T) {
	t.Parallel()
	cmd := oracleCmd(t)
	d := domainForTest(t)
	all, err := d.Tasks().All()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, task := range all {
		ids = append(ids, task.ID)
	}
	var want []struct {
		ID     string   `json:"id"`
		Calls  [][2]any `json:"calls"`
		DB     string   `json:"db"`
		Reward float64  `json:"reward"`
	}
	oracletest.JSON(t, cmd, map[string]any{"mode": "gold", "tasks": ids}, &want)
	if len(want) != len(all) {
		t.Fatalf("oracle answered %d tasks; want %d", len(want), len(all))
	}
	ctx := context.Background()
	var calls, sameCalls, sameDB, sameReward int
	for i := range all {
		task := &all[i]
		w := want[i]
		res, err := gold.Verify(ctx, d, task, evaluator.Options{})
		if err != nil {
			t.Errorf("%s: %v", task.ID, err)
			continue
		}
		if len(res.Calls) != len(w.Calls) {
			t.Errorf("%s: %d calls; upstream %d", task.ID, len(res.Calls), len(w.Calls))
			continue
		}
		for j, c := range res.Calls {
			calls++
			if c.Output == w.Calls[j][0].(string) && c.Error == w.Calls[j][1].(bool) {
				sameCalls++
				continue
			}
			t.Errorf("%s call %d %s(%s)\n got (error=%v): %.800s\nwant (error=%v): %.800s", task.ID, j, c.Name, c.Arguments, c.Error, c.Output, w.Calls[j][1], w.Calls[j][0])
		}
		env, err := goldEnv(ctx, d, task)
		if err != nil {
			t.Errorf("%s: %v", task.ID, err)
			continue
		}
		agent, _ := env.DumpDB()
		if got := pyjson.String(agent); got == w.DB {
			sameDB++
		} else {
			t.Errorf("%s: final database differs from upstream's\n got %s\nwant %s", task.ID, firstDiff(got, w.DB), firstDiff(w.DB, got))
		}
		if res.Reward == w.Reward {
			sameReward++
		} else {
			t.Errorf("%s: reward %v; upstream %v", task.ID, res.Reward, w.Reward)
		}
	}
	t.Logf("%d tasks: tool outputs %d/%d equal, final databases %d/%d, rewards %d/%d", len(all), sameCalls, calls, sameDB, len(all), sameReward, len(all))
}

// goldEnv is the state after the task's gold actions, played as the
// orchestrator plays them.
func goldEnv(ctx context.Context, d *Domain, task *tasks.Task) (*Env, error) {
	env, err := evaluator.NewInitializedEnv(ctx, d, task)
	if err != nil {
		return nil, err
	}
	for i, a := range task.GoldActions() {
		envs.Respond(ctx, env, message.ToolCall{ID: fmt.Sprint(i), Name: a.Name, Arguments: a.Arguments, Requestor: message.Requestor(a.By())})
	}
	return env.(*Env), nil
}

// firstDiff is s from a little before where it first differs from o.
func firstDiff(s, o string) string {
	i := 0
	for i < len(s) && i < len(o) && s[i] == o[i] {
		i++
	}
	start := max(0, i-120)
	end := min(len(s), i+200)
	return s[start:end]
}
