package runplan

import (
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
)

func config(t *testing.T, text string) *llm.Config {
	t.Helper()
	cfg, err := llm.Decode(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The user simulator and the judge default as
// `tau2 run`'s (gpt-4.1-2025-04-14 at temperature 0), each default said;
// judge: of the backbones file is the judge whatever the agent's backbone.
func TestUpstreamDefaults(t *testing.T) {
	t.Parallel()
	const upstream = `
backbones:
  fake: {base_url: "http://x/v1", model: fake-model, temperature: 0.7}
  gpt-4.1: {base_url: "http://x/v1", model: gpt-4.1-2025-04-14, temperature: 0}
`
	withJudge := config(t, "judge: fake\n"+upstream)
	noUpstream := config(t, "judge: fake\nbackbones:\n  fake: {base_url: \"http://x/v1\", model: fake-model}\n")
	bare := config(t, upstream)
	tests := []struct {
		name       string
		opts       Options
		cfg        *llm.Config
		needsJudge bool
		user       string
		judge      string
		defaults   []string // substrings, one per default line
	}{
		{"offline, no file", Options{Backbone: "sim"}, nil, true, "", "", nil},
		{"gold, no file", Options{Backbone: "gold"}, nil, true, "", "", nil},
		{"replay, no NL task", Options{Backbone: "replay:x.json"}, withJudge, false, "", "", nil},
		{"sim with judge: and an NL task", Options{Backbone: "sim:stale=0.1"}, withJudge, true, "", "fake",
			[]string{"judge-backbone fake (judge: of b.yaml; NOT τ²-bench's default judge"}},
		{"model agent", Options{Backbone: "fake"}, withJudge, false, "gpt-4.1", "fake",
			[]string{"user-backbone gpt-4.1 (τ²-bench's default user simulator", "judge-backbone fake (judge: of b.yaml"}},
		{"model agent, no judge: in the file", Options{Backbone: "fake"}, bare, false, "gpt-4.1", "gpt-4.1",
			[]string{"user-backbone gpt-4.1", "judge-backbone gpt-4.1 (no judge: in b.yaml; τ²-bench's default NL-assertion judge"}},
		{"no upstream model in the file", Options{Backbone: "fake"}, noUpstream, false, "fake", "fake",
			[]string{"user-backbone fake: the agent's, NOT τ²-bench's default", "judge-backbone fake"}},
		{"no file", Options{Backbone: "fake"}, nil, false, "fake", "", []string{"NOT τ²-bench's default"}},
		{"named", Options{Backbone: "fake", UserBackbone: "fake", JudgeBackbone: "gpt-4.1"}, withJudge, true, "fake", "gpt-4.1", nil},
		{"--no-judge", Options{Backbone: "sim", NoJudge: true}, withJudge, true, "", "", nil},
		{"solo", Options{Backbone: "fake", Solo: true}, bare, false, "", "gpt-4.1", []string{"judge-backbone gpt-4.1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.BackbonesFile = "b.yaml"
			opts.Inherit = func(string) bool { return false }
			d, err := applyUpstreamDefaults(&opts, tc.cfg, nil, tc.needsJudge)
			if err != nil {
				t.Fatal(err)
			}
			if opts.UserBackbone != tc.user || opts.JudgeBackbone != tc.judge {
				t.Errorf("user %q judge %q; want %q, %q", opts.UserBackbone, opts.JudgeBackbone, tc.user, tc.judge)
			}
			if len(d) != len(tc.defaults) {
				t.Fatalf("defaults %q; want %d lines like %q", d, len(tc.defaults), tc.defaults)
			}
			for i, want := range tc.defaults {
				if !strings.Contains(d[i], want) {
					t.Errorf("default %d = %q; want it to say %q", i, d[i], want)
				}
			}
		})
	}
}
