package tauv1_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/v1airline"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/v1retail"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/engine/gold"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// v1Domain is one of the four ported v1 domains with what the oracle needs
// to load upstream's copy.
type v1Domain struct {
	name   string
	pkg    string // tau_bench or tau_trait
	env    string
	load   func(root string) (*tauv1.Domain, error)
	srcEnv string // the environment variable naming upstream's source
}

var v1Domains = []v1Domain{
	{"taubench-airline", "tau_bench", "airline", func(r string) (*tauv1.Domain, error) {
		d, err := v1airline.LoadTauBench(r)
		if err != nil {
			return nil, err
		}
		return d.Domain, nil
	}, "TAUBENCH_SRC"},
	{"tautrait-airline", "tau_trait", "airline", func(r string) (*tauv1.Domain, error) {
		d, err := v1airline.LoadTauTrait(r)
		if err != nil {
			return nil, err
		}
		return d.Domain, nil
	}, "TAUTRAIT_SRC"},
	{"taubench-retail", "tau_bench", "retail", func(r string) (*tauv1.Domain, error) {
		d, err := v1retail.LoadTauBench(r)
		if err != nil {
			return nil, err
		}
		return d.Domain, nil
	}, "TAUBENCH_SRC"},
	{"tautrait-retail", "tau_trait", "retail", func(r string) (*tauv1.Domain, error) {
		d, err := v1retail.LoadTauTrait(r)
		if err != nil {
			return nil, err
		}
		return d.Domain, nil
	}, "TAUTRAIT_SRC"},
}

type oracleCall struct {
	Name   string          `json:"name"`
	Kwargs json.RawMessage `json:"kwargs"`
}

type oracleSeq struct {
	kind    string       // gold, actions (gold actions without the replies), mutations
	Task    int          `json:"task"`
	Calls   []oracleCall `json:"calls"`
	Replies []string     `json:"replies,omitempty"`
	Reward  bool         `json:"reward,omitempty"`
	Changes bool         `json:"changes,omitempty"`
}

type oracleResult struct {
	Observations []string        `json:"observations"`
	Hash         string          `json:"hash"`
	Reward       *float64        `json:"reward"`
	RewardInfo   json.RawMessage `json:"reward_info"`
	Changes      json.RawMessage `json:"changes"`
	Crash        *struct {
		Step int    `json:"step"`
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"crash"`
}

// TestOracleEnvironments plays, for every task of every split of the four v1
// domains, the gold actions (then a reply stating each expected output),
// the gold actions alone, and a sequence of argument mutations of the gold
// calls (missing, unknown and duplicate keyword arguments, values of other
// types, unknown ids), through upstream's own Env.step (testdata/oracle/
// v1_env.py, litellm stubbed) and through ours, and compares every tool
// output, the final data hash, the changed records and the rewards:
//
//	TAUBENCH_SRC=../shared/upstream/tau-bench TAUTRAIT_SRC=../shared/upstream/tau-trait \
//	LEDGERBENCH_TAUV1_ORACLE="python3 testdata/oracle/v1_env.py" \
//	go test ./internal/bench/envs/tauv1 -run OracleEnvironments -v
func TestOracleEnvironments(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_TAUV1_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_TAUV1_ORACLE not set")
	}
	root := datatest.Repo(t, data.TauBench, data.TauTrait)
	for _, vd := range v1Domains {
		t.Run(vd.name, func(t *testing.T) {
			if os.Getenv(vd.srcEnv) == "" {
				t.Skipf("%s not set", vd.srcEnv)
			}
			d, err := vd.load(root)
			if err != nil {
				t.Fatal(err)
			}
			for _, split := range d.Tasks().SplitNames() {
				if only := os.Getenv("LEDGERBENCH_TAUV1_SPLITS"); only != "" && !slices.Contains(strings.Split(only, ","), split) {
					continue
				}
				t.Run(split, func(t *testing.T) { oracleSplit(t, cmdline, vd, d, split) })
			}
		})
	}
}

func oracleSplit(t *testing.T, cmdline string, vd v1Domain, d *tauv1.Domain, split string) {
	ctx := context.Background()
	list := d.Tasks().Extra[split]
	var seqs []oracleSeq
	mutate := split == "test" || os.Getenv("LEDGERBENCH_TAUV1_MUTATIONS") == "all"
	for i := range list {
		task := &list[i]
		calls := []oracleCall{}
		for _, a := range task.GoldActions() {
			calls = append(calls, oracleCall{a.Name, a.Arguments})
		}
		var replies []string
		for _, o := range task.EvaluationCriteria.CommunicateInfo {
			replies = append(replies, gold.StateOutput(o))
		}
		replies = append(replies, "Thank you.")
		seqs = append(seqs, oracleSeq{kind: "gold", Task: i, Calls: calls, Replies: replies, Reward: true, Changes: true})
		if len(task.EvaluationCriteria.CommunicateInfo) > 0 {
			seqs = append(seqs, oracleSeq{kind: "actions", Task: i, Calls: calls, Reward: true})
		}
		if mutate {
			seqs = append(seqs, oracleSeq{kind: "mutations", Task: i, Calls: mutations(d, task)})
		}
	}
	var want []oracleResult
	oracletest.JSON(t, cmdline, map[string]any{"source": vd.pkg, "env": vd.env, "split": split, "sequences": seqs}, &want)
	if len(want) != len(seqs) {
		t.Fatalf("oracle answered %d sequences; want %d", len(want), len(seqs))
	}
	var outputs, outputsEq, hashes, hashEq, changesEq, goldEq, actionsEq, actionsN, fuzzCalls, fuzzEq, fuzzN, fuzzHashEq, gtHashes, gtHashEq int
	var goldUp, goldOurs, actUp, actOurs int
	for n, seq := range seqs {
		w := want[n]
		task := &list[seq.Task]
		env := d.Env()
		var msgs []message.Message
		got := make([]string, 0, len(seq.Calls))
		crashes := 0
		for j, c := range seq.Calls {
			if w.Crash != nil && w.Crash.Step == j {
				// Env.step raised: upstream's episode ends with the error.
				// The one such call (send_certificate past its three
				// certificates) is an error observation here.
				res := envs.Respond(ctx, env, message.ToolCall{ID: "crash", Name: c.Name, Arguments: c.Kwargs})
				if !res.Error || !strings.Contains(res.Content, "returned None") {
					t.Errorf("task %d %s: call %d %s(%s) crashes upstream (%s: %.200s); here %.200q", seq.Task, seq.kind, j, c.Name, c.Kwargs, w.Crash.Type, w.Crash.Text, res.Content)
				}
				crashes++
				break
			}
			if j >= len(w.Observations) {
				break // the episode ended there upstream
			}
			tc := message.ToolCall{ID: fmt.Sprintf("c%d", j), Name: c.Name, Arguments: c.Kwargs, Requestor: message.ByAssistant}
			res := envs.Respond(ctx, env, tc)
			got = append(got, res.Content)
			msgs = append(msgs, message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{tc}}, res)
			if d.Terminates(c.Name) {
				break
			}
		}
		kind := seq.kind
		for j := range w.Observations {
			if j >= len(got) {
				t.Errorf("task %d %s: call %d (%s) not made here", seq.Task, kind, j, seq.Calls[j].Name)
				continue
			}
			if kind == "mutations" {
				fuzzCalls++
			} else {
				outputs++
			}
			if got[j] == w.Observations[j] {
				if kind == "mutations" {
					fuzzEq++
				} else {
					outputsEq++
				}
				continue
			}
			t.Errorf("task %d %s: call %d %s(%s):\n got %.400q\nwant %.400q", seq.Task, kind, j, seq.Calls[j].Name, seq.Calls[j].Kwargs, got[j], w.Observations[j])
		}
		if crashes > 0 {
			t.Logf("task %d %s: upstream's Env.step raised at call %d (%s): %s", seq.Task, kind, w.Crash.Step, w.Crash.Type, strings.SplitN(w.Crash.Text, "\n", 2)[0])
			continue
		}
		if kind == "mutations" {
			fuzzN++
		} else {
			hashes++
		}
		if h := env.DataHash(); h == w.Hash {
			if kind == "mutations" {
				fuzzHashEq++
			} else {
				hashEq++
			}
		} else {
			t.Errorf("task %d %s: data hash %s; upstream %s", seq.Task, kind, h, w.Hash)
		}
		if seq.Changes {
			if eq, diff := sameChanges(env, w.Changes); eq {
				changesEq++
			} else {
				t.Errorf("task %d: changed records differ: %s", seq.Task, diff)
			}
			var ri struct {
				Info struct {
					GTDataHash string `json:"gt_data_hash"`
				} `json:"info"`
			}
			if json.Unmarshal(w.RewardInfo, &ri) == nil && ri.Info.GTDataHash != "" {
				gtHashes++
				g, err := evaluator.GoldEnv(ctx, d, task)
				if err != nil {
					t.Fatal(err)
				}
				if h := g.(*tauv1.Env).DataHash(); h == ri.Info.GTDataHash {
					gtHashEq++
				} else {
					t.Errorf("task %d: gold data hash %s; upstream's gt_data_hash %s", seq.Task, h, ri.Info.GTDataHash)
				}
			}
		}
		if !seq.Reward {
			continue
		}
		for _, r := range seq.Replies {
			msgs = append(msgs, message.Message{Role: message.Assistant, Content: r})
		}
		for i := range msgs {
			msgs[i].TurnIdx = i
		}
		info, err := evaluator.Evaluate(ctx, d, task, msgs, evaluator.UserStop, evaluator.Options{})
		if err != nil {
			t.Errorf("task %d %s: evaluate: %v", seq.Task, kind, err)
			continue
		}
		if w.Reward == nil {
			t.Errorf("task %d %s: upstream gave no reward", seq.Task, kind)
			continue
		}
		up := *w.Reward
		if kind == "gold" {
			goldUp += full(up)
			goldOurs += full(info.Reward)
		} else {
			actUp += full(up)
			actOurs += full(info.Reward)
		}
		if math.Abs(info.Reward-up) > 1e-9 {
			t.Errorf("task %d %s: reward %v; upstream %v (%s)", seq.Task, kind, info.Reward, up, w.RewardInfo)
			continue
		}
		if kind == "gold" {
			goldEq++
		} else {
			actionsEq++
		}
	}
	for _, seq := range seqs {
		if seq.kind == "actions" {
			actionsN++
		}
	}
	tasksN := len(list)
	t.Logf("%s %s: %d tasks; gold reward equal %d/%d (1.0: ours %d, upstream %d); actions-only reward (tasks with outputs) equal %d/%d (1.0: ours %d, upstream %d); "+
		"gold tool outputs equal %d/%d; final data hashes equal %d/%d; gold-replay hashes equal %d/%d; changed records equal %d/%d; mutated calls equal %d/%d (final hashes %d/%d)",
		vd.name, split, tasksN, goldEq, tasksN, goldOurs, goldUp, actionsEq, actionsN, actOurs, actUp,
		outputsEq, outputs, hashEq, hashes, gtHashEq, gtHashes, changesEq, tasksN, fuzzEq, fuzzCalls, fuzzHashEq, fuzzN)
}

func full(r float64) int {
	if evaluator.Success(r) {
		return 1
	}
	return 0
}

// sameChanges compares the records the state changed with upstream's.
func sameChanges(env *tauv1.Env, raw json.RawMessage) (bool, string) {
	up, err := pyjson.Decode(raw)
	if err != nil {
		return false, err.Error()
	}
	upD, _ := up.(*pyjson.Dict)
	ours := &pyjson.Dict{}
	db := env.DB()
	for _, name := range db.Names() {
		view := env.View(name)
		base, _ := db.Table(name)
		for _, k := range view.Touched() {
			rec, _ := view.Get(k)
			if b, ok := base.Get(k); ok && tauv1.Canonical(b) == tauv1.Canonical(rec) {
				continue
			}
			t, ok := ours.Get(name)
			if !ok {
				t = &pyjson.Dict{}
				ours.Set(name, t)
			}
			tree, _ := pyjson.Decode([]byte(tauv1.Canonical(rec)))
			t.(*pyjson.Dict).Set(k, tree)
		}
	}
	if upD == nil {
		upD = &pyjson.Dict{}
	}
	if pyjson.Equal(ours, upD) {
		return true, ""
	}
	a, _ := pyjson.MarshalOptions(ours, pyjson.Options{SortKeys: true})
	b, _ := pyjson.MarshalOptions(upD, pyjson.Options{SortKeys: true})
	return false, fmt.Sprintf("\n ours %.1500s\n upstream %.1500s", a, b)
}

// mutations turns the task's gold calls (terminate tools excepted) into
// calls with odd arguments: each argument missing, replaced by values of
// other types and by unknown ids; an unknown keyword; a duplicate data
// keyword; items of list arguments with missing keys or other types.
func mutations(d *tauv1.Domain, task *tasks.Task) []oracleCall {
	out := []oracleCall{}
	add := func(name string, args *pyjson.Dict) {
		b, err := args.MarshalJSON()
		if err != nil {
			panic(err)
		}
		out = append(out, oracleCall{name, b})
	}
	clone := func(a *pyjson.Dict) *pyjson.Dict {
		c := &pyjson.Dict{Keys: append([]string(nil), a.Keys...), Values: append([]any(nil), a.Values...)}
		return c
	}
	replacements := []any{json.Number("5"), nil, []any{"x"}, "x", json.Number("1.5"), &pyjson.Dict{Keys: []string{"a"}, Values: []any{json.Number("1")}}, true}
	for _, a := range task.GoldActions() {
		if d.Terminates(a.Name) {
			continue
		}
		v, err := pyjson.Decode(a.Arguments)
		if err != nil {
			continue
		}
		args := v.(*pyjson.Dict)
		add(a.Name, args) // the call itself, on the state so far
		for i, k := range args.Keys {
			c := clone(args)
			c.Keys = append(c.Keys[:i:i], c.Keys[i+1:]...)
			c.Values = append(c.Values[:i:i], c.Values[i+1:]...)
			add(a.Name, c)
			for _, r := range replacements {
				c := clone(args)
				c.Values[i] = r
				add(a.Name, c)
			}
			if s, ok := args.Values[i].(string); ok {
				c := clone(args)
				c.Values[i] = s + "_unknown"
				add(a.Name, c)
				c = clone(args)
				c.Values[i] = strings.ToUpper(s)
				add(a.Name, c)
			}
			if l, ok := args.Values[i].([]any); ok && len(l) > 0 {
				for _, mut := range listMutations(l) {
					c := clone(args)
					c.Values[i] = mut
					add(a.Name, c)
				}
			}
			_ = k
		}
		c := clone(args)
		c.Set("unexpected", json.Number("1"))
		add(a.Name, c)
		c = clone(args)
		c.Set("data", json.Number("1"))
		add(a.Name, c)
	}
	return out
}

// listMutations are variants of a list argument: doubled, empty, an item
// replaced by other types, a dict item with a key missing or a value of
// another type.
func listMutations(l []any) [][]any {
	var out [][]any
	out = append(out, append(append([]any(nil), l...), l...), []any{})
	for _, r := range []any{json.Number("7"), "x", nil} {
		c := append([]any(nil), l...)
		c[0] = r
		out = append(out, c)
	}
	if d, ok := l[0].(*pyjson.Dict); ok {
		for i := range d.Keys {
			c := append([]any(nil), l...)
			nd := &pyjson.Dict{Keys: append([]string(nil), d.Keys...), Values: append([]any(nil), d.Values...)}
			nd.Keys = append(nd.Keys[:i:i], nd.Keys[i+1:]...)
			nd.Values = append(nd.Values[:i:i], nd.Values[i+1:]...)
			c[0] = nd
			out = append(out, c)
			for _, r := range []any{"x", json.Number("3"), json.Number("2.5")} {
				c := append([]any(nil), l...)
				nd := &pyjson.Dict{Keys: append([]string(nil), d.Keys...), Values: append([]any(nil), d.Values...)}
				nd.Values[i] = r
				c[0] = nd
				out = append(out, c)
			}
		}
	}
	return out
}
