package experiment

import (
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestTypicalUsage recomputes the dry run's typical usage from τ²-bench's
// published trajectories: the mean, over their simulations, of the usage
// their agent and user messages record.
func TestTypicalUsage(t *testing.T) {
	t.Parallel()
	root := datatest.Trajectories(t)
	for _, tc := range []struct{ domain, file string }{
		{"airline", "claude-sonnet-4-5_airline_default_gpt4.1_1trials.json"},
		{"telecom", "gpt-4.1_telecom_default_gpt-4.1_1trials.json"},
	} {
		f, err := results.ReadTau2(filepath.Join(root, "sierra-research+tau2-bench", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := results.FromTau2(f)
		if err != nil {
			t.Fatal(err)
		}
		var sum Typical
		for _, r := range recs {
			sum.Agent = sum.Agent.Add(r.AgentUsage)
			sum.User = sum.User.Add(r.UserUsage)
		}
		n := len(recs)
		got := TypicalUsage(tc.domain)
		for _, c := range []struct {
			what      string
			have, sum int
		}{
			{"agent prompt", got.Agent.PromptTokens, sum.Agent.PromptTokens},
			{"agent completion", got.Agent.CompletionTokens, sum.Agent.CompletionTokens},
			{"user prompt", got.User.PromptTokens, sum.User.PromptTokens},
			{"user completion", got.User.CompletionTokens, sum.User.CompletionTokens},
		} {
			if c.have != c.sum/n {
				t.Errorf("%s %s tokens: %d; the %d trajectories' mean is %d", tc.domain, c.what, c.have, n, c.sum/n)
			}
		}
	}
	if b := TypicalUsage("retail").Basis; b == TypicalUsage("airline").Basis {
		t.Errorf("retail's basis %q does not say it borrows airline's figures", b)
	}
}
