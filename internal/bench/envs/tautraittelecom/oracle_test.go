package tautraittelecom

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/engine/gold"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// oracleCall is one action of an oracle case.
type oracleCall struct {
	Name   string          `json:"name"`
	Kwargs json.RawMessage `json:"kwargs"`
}

type oracleCase struct {
	Split   string       `json:"split"`
	Task    int          `json:"task"`
	Calls   []oracleCall `json:"calls"`
	Respond []string     `json:"respond"`
	label   string
	gold    bool
}

type oracleAnswer struct {
	Outputs       []string `json:"outputs"`
	Data          string   `json:"data"`
	Hash          string   `json:"hash"`
	Reward        *float64 `json:"reward"`
	ActionsReward float64  `json:"actions_reward"`
	GTHash        string   `json:"gt_hash"`
}

// toolCases reads testdata/tool_cases.json: call sequences that reach the
// tools' error paths (wrong argument types, unknown names, Python's binding
// errors, partial changes before an exception).
func toolCases(t *testing.T) []oracleCase {
	raw, err := os.ReadFile("testdata/tool_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Name  string       `json:"name"`
		Calls []oracleCall `json:"calls"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	var out []oracleCase
	for _, c := range list {
		out = append(out, oracleCase{Split: "test", Task: 0, Calls: c.Calls, label: "tool case " + c.Name})
	}
	return out
}

// goldCases are every task of every split: its gold actions, then the
// agent stating each expected output (as gold.Trajectory does).
func goldCases(d *Domain) []oracleCase {
	var out []oracleCase
	for _, split := range []string{"test", "train", "dev-misnamed"} {
		for i, task := range d.Tasks().Extra[split] {
			c := oracleCase{Split: split, Task: i, label: split + " task " + task.ID, gold: true}
			for _, a := range task.GoldActions() {
				c.Calls = append(c.Calls, oracleCall{Name: a.Name, Kwargs: a.Arguments})
			}
			for _, o := range task.EvaluationCriteria.CommunicateInfo {
				c.Respond = append(c.Respond, gold.StateOutput(o))
			}
			if len(c.Respond) == 0 {
				c.Respond = []string{"Done."}
			}
			out = append(out, c)
		}
	}
	return out
}

// TestOracle runs upstream's own environment (testdata/oracle/telecom_oracle.py,
// litellm stubbed) over every task's gold actions in every split and over
// the tool cases, and compares every tool output, the data after the calls
// (json.dumps bytes and get_data_hash), the gold replay's hash and the
// rewards (with the outputs stated, and of the actions alone):
//
//	TAUTRAIT_SRC=<tau-trait checkout at 5855e28> \
//	LEDGERBENCH_TAUTRAIT_TELECOM_ORACLE="python3 testdata/oracle/telecom_oracle.py" \
//	go test ./internal/bench/envs/tautraittelecom -run Oracle -v
func TestOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_TAUTRAIT_TELECOM_ORACLE")
	if cmdline == "" || os.Getenv("TAUTRAIT_SRC") == "" {
		t.Skip("LEDGERBENCH_TAUTRAIT_TELECOM_ORACLE and TAUTRAIT_SRC not set")
	}
	d := loadDomain(t)
	cases := append(goldCases(d), toolCases(t)...)
	var answers []oracleAnswer
	oracletest.JSON(t, cmdline, map[string]any{"cases": cases}, &answers)
	if len(answers) != len(cases) {
		t.Fatalf("oracle answered %d cases; want %d", len(answers), len(cases))
	}
	ctx := context.Background()
	type tally struct{ tasks, goldSame, goldFull, actionsSame, actionsFull, outputs, outputsSame, dbSame, gtSame int }
	per := map[string]*tally{}
	for i, c := range cases {
		w := answers[i]
		key := c.Split
		if !c.gold {
			key = "tool cases"
		}
		tl := per[key]
		if tl == nil {
			tl = &tally{}
			per[key] = tl
		}
		tl.tasks++
		task := &d.Tasks().Extra[c.Split][c.Task]
		env := d.Env()
		for j, call := range c.Calls {
			got := envs.Respond(ctx, env, message.ToolCall{ID: strconv.Itoa(j), Name: call.Name, Arguments: call.Kwargs}).Content
			tl.outputs++
			if got == w.Outputs[j] {
				tl.outputsSame++
			} else {
				t.Errorf("%s: call %d %s %s:\n got %q\nwant %q", c.label, j, call.Name, call.Kwargs, got, w.Outputs[j])
			}
		}
		if got := dump(env); got == w.Data && env.DataHash() == w.Hash {
			tl.dbSame++
		} else {
			t.Errorf("%s: data after the calls differs (hash %s, upstream %s)\n got %.2000s\nwant %.2000s", c.label, env.DataHash(), w.Hash, got, w.Data)
		}
		g, err := evaluator.GoldEnv(ctx, d, task)
		if err != nil {
			t.Fatal(err)
		}
		if h := g.(*tauv1.Env).DataHash(); h == w.GTHash {
			tl.gtSame++
		} else {
			t.Errorf("%s: gold replay hash %s; upstream %s", c.label, h, w.GTHash)
		}
		ar, err := actionsReward(ctx, d, task, c.Calls)
		if err != nil {
			t.Fatalf("%s: %v", c.label, err)
		}
		if ar == w.ActionsReward {
			tl.actionsSame++
		} else {
			t.Errorf("%s: reward of the actions alone %v; upstream %v", c.label, ar, w.ActionsReward)
		}
		if w.ActionsReward == 1 {
			tl.actionsFull++
		}
		if !c.gold {
			continue
		}
		res, err := gold.Verify(ctx, d, task, evaluator.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.label, err)
		}
		if w.Reward == nil {
			t.Errorf("%s: upstream's episode did not end", c.label)
		} else if res.Reward == *w.Reward {
			tl.goldSame++
		} else {
			t.Errorf("%s: gold reward %v; upstream %v", c.label, res.Reward, *w.Reward)
		}
		if w.Reward != nil && *w.Reward == 1 {
			tl.goldFull++
		}
	}
	for _, k := range []string{"test", "train", "dev-misnamed", "tool cases"} {
		tl := per[k]
		if tl == nil {
			continue
		}
		goldPart := ""
		if k != "tool cases" {
			goldPart = fmt.Sprintf("gold reward equal %d/%d (upstream 1.0 on %d); ", tl.goldSame, tl.tasks, tl.goldFull)
		}
		t.Logf("%s: %d cases; %sreward of the actions alone equal %d/%d (upstream 1.0 on %d); tool outputs equal %d/%d; data after the calls equal %d/%d; gold replay hash equal %d/%d",
			k, tl.tasks, goldPart, tl.actionsSame, tl.tasks, tl.actionsFull, tl.outputsSame, tl.outputs, tl.dbSame, tl.tasks, tl.gtSame, tl.tasks)
	}
}

// actionsReward is the reward of a conversation that makes the calls and
// states nothing.
func actionsReward(ctx context.Context, d *Domain, task *tasks.Task, calls []oracleCall) (float64, error) {
	env := d.Env()
	msgs := []message.Message{{Role: message.Assistant, Content: gold.Greeting}, {Role: message.User, Content: "Hi."}}
	for j, c := range calls {
		tc := message.ToolCall{ID: fmt.Sprintf("c%d", j), Name: c.Name, Arguments: c.Kwargs, Requestor: message.ByAssistant}
		msgs = append(msgs, message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{tc}}, envs.Respond(ctx, env, tc))
	}
	msgs = append(msgs, message.Message{Role: message.User, Content: "###STOP###"})
	info, err := evaluator.Evaluate(ctx, d, task, msgs, evaluator.UserStop, evaluator.Options{})
	return info.Reward, err
}
