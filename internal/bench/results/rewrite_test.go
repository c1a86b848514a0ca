package results

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
)

// TestRewriteTau2Rewards: the rewards given replace those simulations'
// reward_info (added where a simulation has none), everything else is
// kept, and more rewards than simulations is an error.
func TestRewriteTau2Rewards(t *testing.T) {
	t.Parallel()
	in := `{"timestamp": "t", "info": {"a": [1, 2]}, "tasks": [], "simulations": [` +
		`{"id": "s0", "reward_info": {"reward": 0.0, "extra": 1}, "x": "<&>"}, {"id": "s1", "reward_info": {"reward": 1.0}}, {"id": "s2"}]}`
	ri := &evaluator.RewardInfo{Reward: 1, Notes: []string{"n"}}
	out, err := RewriteTau2Rewards([]byte(in), []*evaluator.RewardInfo{ri, nil, ri})
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	sims := got["simulations"].([]any)
	for i, wantReward := range []float64{1, 1, 1} {
		s := sims[i].(map[string]any)
		r := s["reward_info"].(map[string]any)
		if r["reward"] != wantReward {
			t.Errorf("simulation %d: reward %v; want %v", i, r["reward"], wantReward)
		}
	}
	if r := sims[0].(map[string]any)["reward_info"].(map[string]any); r["extra"] != nil || r["info"] == nil {
		t.Errorf("simulation 0's reward_info %v; want ours (no extra, info.ledgerbench)", r)
	}
	if sims[0].(map[string]any)["x"] != "<&>" || !reflect.DeepEqual(got["info"], want["info"]) || got["timestamp"] != "t" {
		t.Errorf("kept keys changed: %s", out)
	}
	if !reflect.DeepEqual(sims[1], want["simulations"].([]any)[1]) {
		t.Errorf("simulation 1 (no reward given) changed: %v", sims[1])
	}
	if _, err := RewriteTau2Rewards([]byte(in), []*evaluator.RewardInfo{nil, nil, nil, ri}); err == nil {
		t.Errorf("4 rewards for 3 simulations: no error")
	}
}

// FuzzRewriteTau2Rewards: any input either fails or gives valid JSON.
func FuzzRewriteTau2Rewards(f *testing.F) {
	f.Add([]byte(`{"simulations": [{"id": "a", "reward_info": null}]}`))
	f.Add([]byte(`{"simulations": []}`))
	f.Add([]byte(`[1]`))
	ri := &evaluator.RewardInfo{Reward: 0.5}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := RewriteTau2Rewards(data, []*evaluator.RewardInfo{ri})
		if err == nil && !json.Valid(out) {
			t.Fatalf("invalid JSON from %q: %q", data, out)
		}
	})
}
