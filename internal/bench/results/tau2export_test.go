package results

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestTau2ImportExportRoundTrip loads each recorded τ²-bench run as records,
// exports them, and reads the export back: the records must survive.
func TestTau2ImportExportRoundTrip(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "*.json"))
	if len(files) == 0 {
		t.Skip("no recorded τ²-bench runs")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			f, err := ReadTau2(path)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := FromTau2(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(f.Simulations) {
				t.Fatalf("%d records from %d simulations", len(recs), len(f.Simulations))
			}
			meta, _ := f.Meta()
			if meta.Domain == "" || recs[0].Domain != meta.Domain || recs[0].Backbone == "" {
				t.Errorf("meta %+v; record domain %q backbone %q", meta, recs[0].Domain, recs[0].Backbone)
			}
			ts, err := f.Tau2Tasks(path)
			if err != nil {
				t.Fatalf("embedded tasks: %v", err)
			}
			m := &Manifest{HarnessVersion: "test", CreatedAt: f.Timestamp, Domain: meta.Domain, Agent: meta.Agent,
				Backbone: meta.Backbone, UserBackbone: meta.UserBackbone, Trials: meta.Trials, Seed: meta.Seed,
				MaxSteps: meta.MaxSteps, MaxErrors: meta.MaxErrors}
			out := filepath.Join(t.TempDir(), "results.json")
			if err := WriteTau2(out, m, recs, Tau2Env{Policy: meta.Policy, Tasks: ts}); err != nil {
				t.Fatal(err)
			}
			f2, err := ReadTau2(out)
			if err != nil {
				t.Fatal(err)
			}
			recs2, err := FromTau2(f2)
			if err != nil {
				t.Fatal(err)
			}
			if len(f2.Tasks) != len(f.Tasks) {
				t.Errorf("exported %d tasks; want %d", len(f2.Tasks), len(f.Tasks))
			}
			for i := range recs {
				a, b := recs[i], recs2[i]
				if a.TaskID != b.TaskID || a.Trial != b.Trial || a.Seed != b.Seed || a.Reward() != b.Reward() ||
					a.TerminationReason != b.TerminationReason || len(a.Messages) != len(b.Messages) ||
					a.AgentUsage != b.AgentUsage || a.AgentCost != b.AgentCost {
					t.Fatalf("simulation %d changed in the round trip:\n got %+v\nwant %+v", i, summary(b), summary(a))
				}
				for j := range a.Messages {
					ma, mb := a.Messages[j], b.Messages[j]
					if ma.Role != mb.Role || ma.Content != mb.Content || ma.ToolCallID != mb.ToolCallID || len(ma.ToolCalls) != len(mb.ToolCalls) {
						t.Fatalf("simulation %d message %d changed: %+v → %+v", i, j, ma, mb)
					}
				}
				ja, _ := json.Marshal(a.RewardInfo)
				jb, _ := json.Marshal(b.RewardInfo)
				if string(ja) != string(jb) {
					t.Fatalf("simulation %d reward info changed:\n%s\n%s", i, ja, jb)
				}
			}
		})
	}
}

func summary(r Record) map[string]any {
	return map[string]any{"task": r.TaskID, "trial": r.Trial, "seed": r.Seed, "reward": r.Reward(),
		"term": r.TerminationReason, "msgs": len(r.Messages), "usage": r.AgentUsage, "cost": r.AgentCost}
}

func TestTau2ExportShape(t *testing.T) {
	t.Parallel()
	recs := []Record{rec("a", 0, "user_stop")}
	m := &Manifest{HarnessVersion: "x", Domain: "retail", Agent: "baseline", Backbone: "gpt", Trials: 1,
		Backbones: map[string]json.RawMessage{"gpt": json.RawMessage(`{"temperature":0}`)}}
	b, err := Tau2Export(m, recs, Tau2Env{})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"timestamp", "info", "tasks", "simulations"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("export lacks %q", k)
		}
	}
	info := doc["info"].(map[string]any)
	if args := info["agent_info"].(map[string]any)["llm_args"].(map[string]any); args["temperature"] != 0.0 {
		t.Errorf("agent llm_args = %v; want temperature 0", args)
	}
	sim := doc["simulations"].([]any)[0].(map[string]any)
	msg := sim["messages"].([]any)[0].(map[string]any)
	for _, k := range []string{"role", "content", "tool_calls", "turn_idx", "timestamp", "cost", "usage", "raw_data"} {
		if _, ok := msg[k]; !ok {
			t.Errorf("exported message lacks %q", k)
		}
	}
}
