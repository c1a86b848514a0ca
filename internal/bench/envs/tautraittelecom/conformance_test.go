package tautraittelecom

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestConformanceRecordings replays τ-Trait's recorded GPT-5 telecom runs
// (trajectories/gpt5_trajectories/*telecom*.json; the shared copy holds
// telecom_none.json, LEDGERBENCH_TAUTRAIT_TRAJECTORIES may point at all
// five): every tool call of every simulation against our environment, its
// output compared with the recorded one; the gold replay's data hash with
// the recorded gt_data_hash (recorded for tasks without outputs); and the
// reward of the converted trajectory with the recorded reward.
func TestConformanceRecordings(t *testing.T) {
	t.Parallel()
	files := datatest.TauTraitRecordingsOf(t, UpstreamEnv)
	d := loadDomain(t)
	ctx := context.Background()
	var sims, calls, callsSame, hashes, hashSame, rewardSame int
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := results.ParseV1(raw, results.V1Labels{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var hashInfo []struct {
			Info struct {
				RewardInfo *struct {
					Info struct {
						GTDataHash string `json:"gt_data_hash"`
					} `json:"info"`
				} `json:"reward_info"`
			} `json:"info"`
		}
		if err := json.Unmarshal(raw, &hashInfo); err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		for i, r := range recs {
			sims++
			if r.Domain != UpstreamEnv {
				t.Errorf("%s: domain %q; want the environment %s (from the policy heading)", name, r.Domain, UpstreamEnv)
			}
			task, err := d.Tasks().Find(r.TaskID)
			if err != nil {
				t.Fatal(err)
			}
			env := d.Env()
			for _, ex := range message.Exchanges(r.Messages) {
				got := envs.Respond(ctx, env, ex.Call).Content
				calls++
				if want := r.Messages[ex.Result].Content; got == want {
					callsSame++
				} else {
					t.Errorf("%s task %s: %s %s:\n got %.500q\nwant %.500q", name, r.TaskID, ex.Call.Name, ex.Call.Arguments, got, want)
				}
			}
			if ri := hashInfo[i].Info.RewardInfo; ri != nil && ri.Info.GTDataHash != "" {
				hashes++
				g, err := evaluator.GoldEnv(ctx, d, task)
				if err != nil {
					t.Fatal(err)
				}
				if h := g.(*tauv1.Env).DataHash(); h == ri.Info.GTDataHash {
					hashSame++
				} else {
					t.Errorf("%s task %s: gold data hash %s; recorded %s", name, r.TaskID, h, ri.Info.GTDataHash)
				}
			}
			info, err := evaluator.Evaluate(ctx, d, task, r.Messages, r.TerminationReason, evaluator.Options{})
			if err != nil {
				t.Errorf("%s task %s: %v", name, r.TaskID, err)
				continue
			}
			if info.Reward == r.Reward() {
				rewardSame++
			} else {
				t.Errorf("%s task %s: reward %v; recorded %v", name, r.TaskID, info.Reward, r.Reward())
			}
		}
	}
	t.Logf("%d files, %d simulations: tool outputs equal %d/%d; gold data hash equal %d/%d; reward equal %d/%d",
		len(files), sims, callsSame, calls, hashSame, hashes, rewardSame, sims)
}
