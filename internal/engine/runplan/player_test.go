package runplan

import (
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
)

// TestSetPlayer: a person's side is recorded under the human backbone, and
// what cannot be played is refused.
func TestSetPlayer(t *testing.T) {
	t.Parallel()
	agent := func(runner.Spec) (orchestrator.Agent, error) { return nil, nil }
	user := func(runner.Spec) (orchestrator.User, error) { return nil, nil }
	tests := []struct {
		name                string
		opts                Options
		agent, backbone, ub string
		err                 string
	}{
		{name: "agent", opts: Options{Agent: "baseline", UserBackbone: "sim", Player: &Player{Role: agents.HumanAgent, Agent: agent}},
			agent: agents.HumanBackbone, backbone: agents.HumanBackbone, ub: "sim"},
		{name: "user", opts: Options{Agent: "ledger", Backbone: "gold", Player: &Player{Role: agents.HumanUser, User: user}},
			agent: "ledger", backbone: "gold", ub: agents.HumanBackbone},
		{name: "no player", opts: Options{Agent: "baseline", Backbone: "gold"}, agent: "baseline", backbone: "gold"},
		{name: "user in solo mode", opts: Options{Backbone: "gold", Solo: true, Player: &Player{Role: agents.HumanUser, User: user}}, err: "solo mode has no user"},
		{name: "unknown side", opts: Options{Player: &Player{Role: "judge"}}, err: `unknown side "judge"`},
		{name: "agent without its maker", opts: Options{Player: &Player{Role: agents.HumanAgent, User: user}}, err: "needs its maker"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			err := setPlayer(&o)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("setPlayer: %v; want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Agent != tc.agent || o.Backbone != tc.backbone || o.UserBackbone != tc.ub {
				t.Errorf("agent %s backbone %s user %s; want %s %s %s", o.Agent, o.Backbone, o.UserBackbone, tc.agent, tc.backbone, tc.ub)
			}
		})
	}
}

// TestDefaultUserForAPerson: a person playing the agent without a user
// backbone gets a usage error when there is no τ²-bench default user to
// give (the person's side has no backbone to lend); with one, see play's
// TestRunModelUser.
func TestDefaultUserForAPerson(t *testing.T) {
	t.Parallel()
	o := Options{Backbone: agents.HumanBackbone, BackbonesFile: "b.yaml", Inherit: func(string) bool { return false }}
	if _, err := applyUpstreamDefaults(&o, nil, nil, false); !errext.IsUsage(err) || !strings.Contains(err.Error(), "--user-backbone sim") {
		t.Errorf("no backbones file: %v; want a usage error naming --user-backbone sim", err)
	}
	if o.UserBackbone != "" {
		t.Errorf("user backbone %q; want none", o.UserBackbone)
	}
}
