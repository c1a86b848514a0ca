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
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// maxDiffs bounds the database differences listed for one simulation.
const maxDiffs = 40

// dbDiffs computes which database fields differ between the database a
// trajectory produced and the gold one, by replaying both (the record says
// only that they differ). The gold databases are rebuilt once per task.
type dbDiffs struct {
	gold map[[2]string][2]json.RawMessage
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
		if want, err = dumps(env); err != nil {
			return nil, err
		}
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
	diffRaw("db", got[0], want[0], &out)
	diffRaw("user_db", got[1], want[1], &out)
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

// diffRaw appends "path: got X, gold Y" lines for every difference,
// decoding only the branches whose bytes differ.
func diffRaw(path string, got, want json.RawMessage, out *[]string) {
	if len(*out) > maxDiffs || bytes.Equal(got, want) {
		return
	}
	var g, w map[string]json.RawMessage
	if json.Unmarshal(got, &g) == nil && json.Unmarshal(want, &w) == nil && g != nil && w != nil {
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
				add(out, fmt.Sprintf("%s.%s: missing, gold %s", path, k, short(wv)))
			case !wok:
				add(out, fmt.Sprintf("%s.%s: extra %s", path, k, short(gv)))
			default:
				diffRaw(path+"."+k, gv, wv, out)
			}
		}
		return
	}
	var ga, wa []json.RawMessage
	if json.Unmarshal(got, &ga) == nil && json.Unmarshal(want, &wa) == nil && ga != nil && wa != nil && len(ga) == len(wa) {
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
