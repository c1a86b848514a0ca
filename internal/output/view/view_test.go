package view

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

var block = regexp.MustCompile(`(?s)<script type="application/json" id="([^"]+)">(.*?)</script>`)

func rec(task string, trial int, agent string, reward float64, info string, content string) results.Record {
	r := results.Record{ID: task + agent, TaskID: task, Trial: trial, Domain: "airline", Agent: agent, Backbone: "m", UserBackbone: "u",
		TerminationReason: evaluator.UserStop, RewardInfo: &evaluator.RewardInfo{Reward: reward},
		Messages: []message.Message{{Role: message.Assistant, Content: "Hi"}, {Role: message.User, Content: content}}}
	if info != "" {
		r.AgentInfo = json.RawMessage(info)
	}
	return r
}

func TestWrite(t *testing.T) {
	t.Parallel()
	hostile := "</script><script>alert(1)</script> & <!-- " + base64.StdEncoding.EncodeToString([]byte("x"))
	src := &report.Source{Path: "run", Kind: report.RunDir, Records: []results.Record{
		rec("2", 0, "ledger", 0, `{"mode":{"Ledger":true,"Gate":true},"verdicts":[{"turn":0,"tool":"cancel_reservation","call_id":"c1","arguments":{"reservation_id":"X"},"verdict":"BLOCK","predicate":"p","clause":"Cancel","reason":"r"}],"turns":[{"entries":1,"ledger":["user: 1"],"reply":0}]}`, hostile),
		rec("1", 0, "ledger", 1, `{"mode":{"Ledger":true,"Gate":true},"verdicts":[{"turn":0,"tool":"t","verdict":"ALLOW"}]}`, "ok"),
		rec("1", 0, "baseline", 1, "", "ok"),
	}}
	for _, mode := range []string{"inline", "plain", "split"} {
		t.Run(mode, func(t *testing.T) {
			opts := Options{Title: "t <b>", Plain: mode == "plain"}
			if mode == "split" {
				opts.ChunkDir = filepath.Join(t.TempDir(), "page.chunks")
			}
			var buf bytes.Buffer
			st, err := Write(t.Context(), &buf, []*report.Source{src}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if st.Simulations != 3 || st.Groups != 2 || st.Bytes != int64(buf.Len()) {
				t.Errorf("stats %+v (wrote %d bytes)", st, buf.Len())
			}
			page := buf.String()
			if strings.Contains(page, "<script>alert") || !strings.Contains(page, "<title>t &lt;b&gt;</title>") {
				t.Error("data or title not escaped")
			}
			blocks := block.FindAllStringSubmatch(page, -1)
			ids := map[string]string{}
			for _, b := range blocks {
				var v any
				if err := json.Unmarshal([]byte(b[2]), &v); err != nil {
					t.Errorf("block %s is not JSON: %v", b[1], err)
				}
				ids[b[1]] = b[2]
			}
			var idx index
			if err := json.Unmarshal([]byte(ids["index"]), &idx); err != nil {
				t.Fatalf("index block: %v", err)
			}
			sims := pageSims(t, page, ids, idx, opts.ChunkDir)
			if len(sims) != 3 {
				t.Fatalf("%d simulations in the page; want 3", len(sims))
			}
			if mode == "split" && (st.Chunks != 1 || st.ChunkBytes == 0 || idx.ChunkHref != "page.chunks") {
				t.Errorf("split: stats %+v, href %q", st, idx.ChunkHref)
			}
			// Sorted by group (baseline first), then task, then trial.
			var order []string
			for i, r := range idx.Sims {
				order = append(order, idx.Groups[int(r[0].(float64))].Agent+"/"+r[1].(string))
				if sims[i].TaskID != r[1].(string) || sims[i].Agent != idx.Groups[int(r[0].(float64))].Agent {
					t.Errorf("simulation %d is %s/%s; the index says %v", i, sims[i].Agent, sims[i].TaskID, r)
				}
			}
			if strings.Join(order, " ") != "baseline/1 ledger/1 ledger/2" {
				t.Errorf("order %v", order)
			}
			if stopped := idx.Sims[2][7]; stopped != float64(1) || idx.Sims[1][7] != float64(0) {
				t.Errorf("gate stopped: %v, %v; want 1, 0", idx.Sims[2][7], idx.Sims[1][7])
			}
			s := sims[2]
			if s.Gate == nil || len(s.Gate.Verdicts) != 1 || s.Gate.Verdicts[0].Clause != "Cancel" || s.Gate.Verdicts[0].Turn == nil ||
				len(s.Gate.Turns) != 1 || s.Messages[1].Content != hostile || s.Diagnosis == nil {
				t.Errorf("simulation page data %+v", s)
			}
		})
	}
}

var gzBlock = regexp.MustCompile(`<script type="application/gzip" id="c(\d+)">([^<]*)</script>`)
var chunkFile = regexp.MustCompile(`^ledgerbenchChunk\((\d+),"([A-Za-z0-9+/=]*)"\);\n$`)

// pageSims decodes the simulations a page embeds (plain blocks s<i>, inline
// chunks c<c>) or refers to (chunk files in dir), in index order.
func pageSims(t *testing.T, page string, ids map[string]string, idx index, dir string) []sim {
	t.Helper()
	var out []sim
	if idx.Chunk == 0 {
		for i := 0; ; i++ {
			b, ok := ids[fmt.Sprintf("s%d", i)]
			if !ok {
				return out
			}
			var s sim
			if err := json.Unmarshal([]byte(b), &s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
	}
	var b64 []string
	if dir == "" {
		for i, m := range gzBlock.FindAllStringSubmatch(page, -1) {
			if m[1] != fmt.Sprint(i) {
				t.Fatalf("chunk %s at position %d", m[1], i)
			}
			b64 = append(b64, m[2])
		}
	} else {
		if gzBlock.MatchString(page) {
			t.Error("split page holds chunks inline")
		}
		for c := 0; ; c++ {
			body, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("c%d.js", c)))
			if err != nil {
				break
			}
			m := chunkFile.FindStringSubmatch(string(body))
			if m == nil || m[1] != fmt.Sprint(c) {
				t.Fatalf("chunk file c%d.js: %.100q", c, body)
			}
			b64 = append(b64, m[2])
		}
	}
	for c, s := range b64 {
		gz, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("chunk %d: %v", c, err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatalf("chunk %d: %v", c, err)
		}
		var part []sim
		if err := json.NewDecoder(zr).Decode(&part); err != nil {
			t.Fatalf("chunk %d: %v", c, err)
		}
		if len(part) > idx.Chunk || c < len(b64)-1 && len(part) != idx.Chunk {
			t.Errorf("chunk %d holds %d simulations; chunks hold %d", c, len(part), idx.Chunk)
		}
		out = append(out, part...)
	}
	return out
}

// pageIndex renders sources and returns the page's index block as generic
// JSON (nulls kept).
func pageIndex(t *testing.T, sources ...*report.Source) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Write(t.Context(), &buf, sources, Options{Plain: true}); err != nil {
		t.Fatal(err)
	}
	for _, b := range block.FindAllStringSubmatch(buf.String(), -1) {
		if b[1] == "index" {
			var idx map[string]any
			if err := json.Unmarshal([]byte(b[2]), &idx); err != nil {
				t.Fatal(err)
			}
			return idx
		}
	}
	t.Fatal("no index block")
	return nil
}

// TestUnscoredGroupIsMissing: a group without a scored simulation has no
// pass^k and no mean reward in the index (null), never 0.
func TestUnscoredGroupIsMissing(t *testing.T) {
	t.Parallel()
	infra := rec("1", 0, "baseline", 0, "", "x")
	infra.TerminationReason, infra.RewardInfo, infra.Error = evaluator.InfrastructureError, nil, "status 503"
	idx := pageIndex(t, &report.Source{Path: "run", Kind: report.RunDir, Records: []results.Record{infra, rec("1", 0, "ledger", 1, "", "ok")}, Plan: metrics.Plan{Trials: 1}})
	groups := idx["groups"].([]any)
	if len(groups) != 2 {
		t.Fatalf("groups %v", groups)
	}
	for _, g := range groups {
		g := g.(map[string]any)
		pk, _ := g["pass_k"].([]any)
		if len(pk) != 1 {
			t.Fatalf("group %v: pass_k %v", g["agent"], g["pass_k"])
		}
		switch g["agent"] {
		case "baseline":
			if pk[0] != nil || g["avg_reward"] != nil {
				t.Errorf("unscored group: pass_k %v, avg_reward %v; want null", pk, g["avg_reward"])
			}
		case "ledger":
			if pk[0] != 1.0 || g["avg_reward"] != 1.0 {
				t.Errorf("scored group: pass_k %v, avg_reward %v; want 1", pk, g["avg_reward"])
			}
		}
	}
}
