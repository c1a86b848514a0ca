package runplan

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
)

// TestFillFromManifest: a continued run takes what the caller left to it
// from the manifest, and keeps what the caller set.
func TestFillFromManifest(t *testing.T) {
	t.Parallel()
	m := &results.Manifest{Domain: "retail", Agent: "ledger", Backbone: "gpt-4.1", UserBackbone: "u", JudgeBackbone: "j",
		Split: "test", TaskIDs: []string{"1", "2"}, Trials: 3, Seed: 9, MaxSteps: 50, MaxErrors: 5, Timeout: "1m0s",
		Shard: "1/2", UserStyle: "tau2", Loop: "tau2", BackbonesFile: "/abs/b.yaml"}
	tests := []struct {
		name  string
		given []string // settings the caller set
		check func(t *testing.T, o Options)
	}{
		{"everything inherited", nil, func(t *testing.T, o Options) {
			if o.Domain != "retail" || o.Agent != "ledger" || o.Backbone != "gpt-4.1" || o.UserBackbone != "u" || o.JudgeBackbone != "j" ||
				o.Split != "test" || !slices.Equal(o.TaskIDs, m.TaskIDs) || o.Trials != 3 || o.Seed != 9 || o.MaxSteps != 50 ||
				o.MaxErrors != 5 || o.Timeout != time.Minute || o.Shard != "1/2" || o.UserStyle != "tau2" || o.Loop != "tau2" || o.BackbonesFile != "/abs/b.yaml" {
				t.Errorf("options %+v", o)
			}
		}},
		{"trials given", []string{"trials"}, func(t *testing.T, o Options) {
			if o.Trials != 8 || o.Seed != 9 {
				t.Errorf("trials %d seed %d; want the caller's 8, the manifest's 9", o.Trials, o.Seed)
			}
		}},
		{"limit given keeps the caller's selection", []string{"limit"}, func(t *testing.T, o Options) {
			if o.TaskIDs != nil {
				t.Errorf("task ids %v; want none (the caller's --limit selects)", o.TaskIDs)
			}
		}},
		{"nothing inherited", []string{"domain", "agent", "backbone", "user-backbone", "judge-backbone", "no-judge", "split", "task-ids", "limit", "trials",
			"seed", "max-steps", "max-errors", "timeout", "shard", "user-style", "traits", "trait-mode", "solo", "loop", "backbones"}, func(t *testing.T, o Options) {
			if o.Domain != "" || o.Backbone != "" || o.Trials != 8 || o.BackbonesFile != "backbones.yaml" || o.Timeout != 0 {
				t.Errorf("options %+v; want the caller's", o)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Trials: 8, BackbonesFile: "backbones.yaml",
				Inherit: func(s string) bool { return !slices.Contains(tc.given, s) }}
			fillFromManifest(&o, m)
			tc.check(t, o)
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := Options{Domain: "retail", Backbone: "sim", Trials: 1, Concurrency: 1, MaxSteps: 1, MaxErrors: 1}
	tests := []struct {
		name string
		edit func(o *Options)
		want string // "" = valid
	}{
		{"valid", func(*Options) {}, ""},
		{"no domain", func(o *Options) { o.Domain = "" }, "--domain is required"},
		{"no backbone", func(o *Options) { o.Backbone = "" }, "--backbone is required"},
		{"judge and no judge", func(o *Options) { o.NoJudge, o.JudgeBackbone = true, "j" }, "exclude each other"},
		{"solo with a user", func(o *Options) { o.Solo, o.UserBackbone = true, "u" }, "--solo runs without a user: drop --user-backbone"},
		{"solo with traits", func(o *Options) { o.Solo, o.Traits, o.TraitMode = true, "impatience=high", "ignore" }, "--solo runs without a user: drop --traits, --trait-mode"},
		{"trait mode without traits", func(o *Options) { o.TraitMode = "ignore" }, "--trait-mode ignore needs --traits"},
		{"dummy user without solo", func(o *Options) { o.UserBackbone = results.DummyUserImplementation }, "pass --solo"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.edit(&o)
			err := validate(&o)
			if tc.want == "" {
				if err != nil {
					t.Errorf("validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errext.IsUsage(err) {
				t.Errorf("validate: %v; want a usage error saying %q", err, tc.want)
			}
		})
	}
}

func TestCheckResume(t *testing.T) {
	t.Parallel()
	old := &results.Manifest{Domain: "retail", Trials: 2, TrialSeeds: []int64{1, 2}, Defaults: []string{"user-backbone x"}}
	tests := []struct {
		name string
		cur  results.Manifest
		want string // "" = continuable
	}{
		{"same", results.Manifest{Domain: "retail", Trials: 2, TrialSeeds: []int64{1, 2}, Defaults: []string{"user-backbone x"}}, ""},
		{"more trials", results.Manifest{Domain: "retail", Trials: 3, TrialSeeds: []int64{1, 2, 3}, Defaults: []string{"user-backbone x"}}, ""},
		{"defaults worded anew", results.Manifest{Domain: "retail", Trials: 2, TrialSeeds: []int64{1, 2}, Defaults: []string{"user-backbone x", "judge-backbone j"}}, ""},
		{"fewer trials", results.Manifest{Domain: "retail", Trials: 1, TrialSeeds: []int64{1}}, "cannot shrink"},
		{"other seeds", results.Manifest{Domain: "retail", Trials: 3, TrialSeeds: []int64{5, 6, 7}}, "trial_seeds"},
		{"other domain", results.Manifest{Domain: "airline", Trials: 2, TrialSeeds: []int64{1, 2}}, "domain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkResume(old, &tc.cur)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("checkResume: %v; want %q", err, tc.want)
			}
		})
	}
}
