package view

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/report"
	"github.com/ledgerbench/ledgerbench/message"
	"github.com/ledgerbench/ledgerbench/results"
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
	hostile := "</script><script>alert(1)</script> & <!-- " + base64.StdEncoding.EncodeToString([]byte("x"))
	src := &report.Source{Path: "run", Kind: report.RunDir, Records: []results.Record{
		rec("2", 0, "ledger", 0, `{"mode":{"Ledger":true,"Gate":true},"verdicts":[{"turn":0,"tool":"cancel_reservation","call_id":"c1","arguments":{"reservation_id":"X"},"verdict":"BLOCK","predicate":"p","clause":"Cancel","reason":"r"}],"turns":[{"entries":1,"ledger":["user: 1"],"reply":0}]}`, hostile),
		rec("1", 0, "ledger", 1, `{"mode":{"Ledger":true,"Gate":true},"verdicts":[{"turn":0,"tool":"t","verdict":"ALLOW"}]}`, "ok"),
		rec("1", 0, "baseline", 1, "", "ok"),
	}}
	var buf bytes.Buffer
	st, err := Write(t.Context(), &buf, []*report.Source{src}, Options{Title: "t <b>"})
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
	if len(blocks) != 1+3 || ids["index"] == "" || ids["s2"] == "" {
		t.Fatalf("blocks %v", len(blocks))
	}
	var idx index
	json.Unmarshal([]byte(ids["index"]), &idx)
	// Sorted by group (baseline first), then task, then trial.
	var order []string
	for _, r := range idx.Sims {
		order = append(order, idx.Groups[int(r[0].(float64))].Agent+"/"+r[1].(string))
	}
	if strings.Join(order, " ") != "baseline/1 ledger/1 ledger/2" {
		t.Errorf("order %v", order)
	}
	if stopped := idx.Sims[2][7]; stopped != float64(1) || idx.Sims[1][7] != float64(0) {
		t.Errorf("gate stopped: %v, %v; want 1, 0", idx.Sims[2][7], idx.Sims[1][7])
	}
	var s sim
	json.Unmarshal([]byte(ids["s2"]), &s)
	if s.Gate == nil || len(s.Gate.Verdicts) != 1 || s.Gate.Verdicts[0].Clause != "Cancel" || s.Gate.Verdicts[0].Turn == nil ||
		len(s.Gate.Turns) != 1 || s.Messages[1].Content != hostile || s.Diagnosis == nil {
		t.Errorf("simulation page data %+v", s)
	}
}
