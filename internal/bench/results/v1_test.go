package results_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestV1PublishedPassK checks pass^k of τ-bench's historical gpt-4o airline
// trajectories against the numbers τ-bench published for them.
func TestV1PublishedPassK(t *testing.T) {
	t.Parallel()
	path := filepath.Join(datatest.Trajectories(t), "sierra-research+tau-bench", "gpt-4o-airline.json")
	recs, err := results.ReadV1(path, results.V1Labels{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 200 {
		t.Fatalf("records = %d; want 200", len(recs))
	}
	r := recs[0]
	if r.Domain != "airline" || r.Agent != "baseline" || r.Backbone != "gpt-4o" {
		t.Errorf("labels = %q/%q/%q; want airline/baseline/gpt-4o", r.Domain, r.Agent, r.Backbone)
	}
	sums := metrics.Summarize(recs, metrics.Options{})
	if len(sums) != 1 {
		t.Fatalf("groups = %d; want 1", len(sums))
	}
	s := sums[0]
	if s.K != 4 || s.Tasks != 50 || len(s.Incomplete) != 0 {
		t.Errorf("K = %d, tasks = %d, incomplete = %v; want 4, 50, none", s.K, s.Tasks, s.Incomplete)
	}
	want := []string{"0.420", "0.273", "0.220", "0.200"}
	for k := 1; k <= 4; k++ {
		if got := fmt.Sprintf("%.3f", s.At(k)); got != want[k-1] {
			t.Errorf("pass^%d = %s; want %s", k, got, want[k-1])
		}
	}
	if got := fmt.Sprintf("%.2f", s.AvgReward); got != "0.42" {
		t.Errorf("avg reward = %s; want 0.42", got)
	}
	// Every failure is classified; a v1 run carries its gold actions.
	n := 0
	for _, c := range s.Errors {
		n += c
	}
	if n != s.Failed || s.Failed != 116 {
		t.Errorf("classified %d of %d failures; want 116", n, s.Failed)
	}
	if s.Errors[metrics.Other] == s.Failed {
		t.Errorf("every failure filed under other: %v", s.Errors)
	}
	t.Logf("errors: %v", s.Errors)
}

func TestV1LabelsFromName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		want results.V1Labels
	}{
		{"gpt-4o-airline.json", results.V1Labels{Domain: "airline", Agent: "baseline", Backbone: "gpt-4o"}},
		{"dir/claude-3-5-sonnet-20241022-retail.json", results.V1Labels{Domain: "retail", Agent: "baseline", Backbone: "claude-3-5-sonnet-20241022"}},
		{"tool-calling-gpt-4o-0.0_range_0-50_user-gpt-4o-llm_0529094421.json", results.V1Labels{Agent: "baseline", Backbone: "gpt-4o", UserBackbone: "gpt-4o"}},
		{"react-Qwen3-32B-0.0_range_0--1_user-gpt-4.1-mini-llm_1230.json", results.V1Labels{Agent: "react", Backbone: "Qwen3-32B", UserBackbone: "gpt-4.1-mini"}},
		{"results.json", results.V1Labels{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := results.V1LabelsFromName(tc.name); got != tc.want {
				t.Errorf("V1LabelsFromName(%q) = %+v; want %+v", tc.name, got, tc.want)
			}
		})
	}
}

// TestParseV1 covers the conversion rules on a small list written here.
func TestParseV1(t *testing.T) {
	t.Parallel()
	list := `[
 {"task_id": 3, "reward": 1.0, "trial": 0, "info": {"task": {"user_id": "u", "actions": [{"name": "cancel_reservation", "kwargs": {"reservation_id": "ABC"}}], "instruction": "", "outputs": []},
   "source": "user", "user_cost": 0.5, "reward_info": {"reward": 1.0, "info": {"r_actions": true, "gt_data_hash": "x"}, "actions": []}},
  "traj": [{"role": "system", "content": "# Telehealth Agent Policy\n..."}, {"role": "user", "content": "hi"},
   {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "cancel_reservation", "arguments": "{\"reservation_id\": \"ABC\"}"}}]},
   {"role": "tool", "tool_call_id": "c1", "name": "cancel_reservation", "content": "ok"},
   {"role": "user", "content": "###STOP###"}]},
 {"task_id": "4", "reward": 0.0, "trial": 1, "info": {"task": {"user_id": "u", "actions": [], "instruction": "", "outputs": ["42"]},
   "reward_info": {"reward": 0.0, "info": {"r_outputs": 0.0, "outputs": {"42": false}}, "actions": []}},
  "traj": [{"role": "user", "content": "hi"},
   {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "get_x", "arguments": "{}"}}]},
   {"role": "tool", "tool_call_id": "c2", "name": "get_x", "content": "Error: no such x"},
   {"role": "assistant", "content": "done"}, {"role": "user", "content": "###STOP###"}]},
 {"task_id": 5, "reward": 0.0, "trial": 0, "info": {"error": "RateLimitError", "traceback": "..."}, "traj": []},
 {"task_id": 6, "reward": 0.0, "trial": 0, "info": {"task": {"user_id": "u", "actions": [], "instruction": "", "outputs": []}, "source": "user"}, "traj": []}
]`
	recs, err := results.ParseV1([]byte(list), results.V1Labels{Agent: "a", Backbone: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("records = %d; want 4", len(recs))
	}
	r0 := recs[0]
	if r0.Domain != "telehealth" || r0.TaskID != "3" || !r0.Success() || r0.UserCost != 0.5 {
		t.Errorf("record 0 = domain %q task %q success %v user cost %v", r0.Domain, r0.TaskID, r0.Success(), r0.UserCost)
	}
	if len(r0.Messages) != 4 || r0.Messages[0].Role != "user" {
		t.Errorf("record 0 messages = %d (first %q); want 4 without the system prompt", len(r0.Messages), r0.Messages[0].Role)
	}
	if ac := r0.RewardInfo.ActionChecks; len(ac) != 1 || !ac[0].ActionMatch {
		t.Errorf("record 0 action checks = %+v; want one matched", ac)
	}
	if db := r0.RewardInfo.DBCheck; db == nil || !db.DBMatch {
		t.Errorf("record 0 db check = %+v; want a match", db)
	}
	r1 := recs[1]
	if r1.TaskID != "4" || !r1.Messages[2].Error || r1.TerminationReason != evaluator.UserStop {
		t.Errorf("record 1 = task %q, tool error %v, termination %q", r1.TaskID, r1.Messages[2].Error, r1.TerminationReason)
	}
	if cc := r1.RewardInfo.CommunicateChecks; len(cc) != 1 || cc[0].Met || cc[0].Info != "42" {
		t.Errorf("record 1 communicate checks = %+v", cc)
	}
	if !recs[2].Infrastructure() || !strings.Contains(recs[2].Error, "RateLimit") {
		t.Errorf("record 2 = %q %q; want an infrastructure error", recs[2].TerminationReason, recs[2].Error)
	}
	if recs[3].TerminationReason != evaluator.MaxSteps {
		t.Errorf("record 3 termination = %q; want max_steps", recs[3].TerminationReason)
	}
}

func FuzzParseV1(f *testing.F) {
	f.Add([]byte(`[{"task_id": 1, "reward": 1, "info": {}, "traj": [], "trial": 0}]`))
	f.Add([]byte(`[{"task_id": "x", "reward": 0, "info": {"reward_info": {"reward": 0, "info": {"outputs": {"a": true}}}}, "traj": [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{"}}]}], "trial": 0}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := results.ParseV1(data, results.V1Labels{})
		if err == nil {
			_ = metrics.Summarize(recs, metrics.Options{})
		}
	})
}
