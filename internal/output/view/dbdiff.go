package view

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// maxDiffs bounds the database differences listed for one simulation.
const maxDiffs = 40

// dbDiffs computes which database fields differ between the database a
// trajectory produced and the gold one, by replaying both (the record says
// only that they differ). The gold databases are rebuilt once per task.
type dbDiffs struct {
	gold map[[2]string][2]*jsonNode
	n    int // simulations diffed
}

func (x *dbDiffs) diff(ctx context.Context, dom envs.Domain, task *tasks.Task, r *results.Record) ([]string, error) {
	k := [2]string{dom.Name(), task.ID}
	want, ok := x.gold[k]
	if !ok {
		env, err := evaluator.GoldEnv(ctx, dom, task)
		if err != nil {
			return nil, err
		}
		raw, err := dumps(env)
		if err != nil {
			return nil, err
		}
		want = [2]*jsonNode{{raw: raw[0]}, {raw: raw[1]}}
		x.gold[k] = want
	}
	env, _, err := evaluator.ReplayEnv(ctx, dom, task, r.Messages, false)
	if err != nil {
		return nil, err
	}
	got, err := dumps(env)
	if err != nil {
		return nil, err
	}
	var out []string
	diffRaw("db", &jsonNode{raw: got[0]}, want[0], &out)
	diffRaw("user_db", &jsonNode{raw: got[1]}, want[1], &out)
	return out, nil
}

func dumps(env envs.Env) ([2]json.RawMessage, error) {
	a, u := env.DumpDB()
	var out [2]json.RawMessage
	for i, v := range []any{a, u} {
		b, err := json.Marshal(v)
		if err != nil {
			return out, fmt.Errorf("dump database: %w", err)
		}
		out[i] = b
	}
	return out, nil
}

// jsonNode is a JSON value (valid, as json.Marshal writes it) split into
// its members on first use: the gold databases are split once per task,
// however many simulations are diffed against them.
type jsonNode struct {
	raw   []byte
	split bool
	obj   map[string]*jsonNode // non-nil for an object
	arr   []*jsonNode          // non-nil for an array
}

// members splits n once (pyjson's one-pass scan, without decoding the
// values).
func (n *jsonNode) members() {
	if n.split {
		return
	}
	n.split = true
	switch {
	case len(n.raw) > 0 && n.raw[0] == '{':
		obj := map[string]*jsonNode{}
		if pyjson.Object(n.raw, func(k string, v []byte) error { obj[k] = &jsonNode{raw: v}; return nil }) == nil {
			n.obj = obj
		}
	case len(n.raw) > 0 && n.raw[0] == '[':
		arr := []*jsonNode{}
		if pyjson.Array(n.raw, func(_ int, v []byte) error { arr = append(arr, &jsonNode{raw: v}); return nil }) == nil {
			n.arr = arr
		}
	}
}

// diffRaw appends "path: got X, gold Y" lines for every difference,
// splitting only the branches whose bytes differ.
func diffRaw(path string, gn, wn *jsonNode, out *[]string) {
	got, want := gn.raw, wn.raw
	if len(*out) > maxDiffs || bytes.Equal(got, want) {
		return
	}
	gn.members()
	wn.members()
	if g, w := gn.obj, wn.obj; g != nil && w != nil {
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			gv, gok := g[k]
			wv, wok := w[k]
			switch {
			case !gok:
				add(out, fmt.Sprintf("%s.%s: missing, gold %s", path, k, short(wv.raw)))
			case !wok:
				add(out, fmt.Sprintf("%s.%s: extra %s", path, k, short(gv.raw)))
			default:
				diffRaw(path+"."+k, gv, wv, out)
			}
		}
		return
	}
	if ga, wa := gn.arr, wn.arr; ga != nil && wa != nil && len(ga) == len(wa) {
		for i := range wa {
			diffRaw(fmt.Sprintf("%s[%d]", path, i), ga[i], wa[i], out)
		}
		return
	}
	var gv, wv any
	if json.Unmarshal(got, &gv) == nil && json.Unmarshal(want, &wv) == nil {
		a, _ := json.Marshal(gv)
		b, _ := json.Marshal(wv)
		if bytes.Equal(a, b) {
			return // same value, other spelling
		}
	}
	add(out, fmt.Sprintf("%s: got %s, gold %s", path, short(got), short(want)))
}

func add(out *[]string, s string) {
	if len(*out) < maxDiffs {
		*out = append(*out, s)
	} else if len(*out) == maxDiffs {
		*out = append(*out, "… (more differences)")
	}
}

func short(raw json.RawMessage) string {
	return clip.Runes(strings.ReplaceAll(string(raw), "\n", " "), 200, "…")
}
