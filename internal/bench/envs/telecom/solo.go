package telecom

import (
	"path/filepath"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// Solo is the telecom domain in τ²-bench's solo mode (get_environment with
// solo_mode=True): the policy is main_policy_solo.md with the tech-support
// manual (upstream's manual solo path is tech_support_manual.md itself) or
// tech_support_workflow_solo.md; the agent holds its 13 tools and the
// user's 30 phone tools; environments route the agent's phone-tool calls to
// the phone (envs.SoloEnv). The domain name stays "telecom" or
// "telecom-workflow", as upstream's.
//
// Solo embeds the normal domain, so the LedgerAgent policy (Route,
// GatePredicates) and the audit hooks are the normal domain's.
type Solo struct {
	*Domain
	policy string
	tools  []tool.Info
}

var _ envs.SoloDomain = (*Solo)(nil)

// LoadSolo loads the telecom domain in solo mode with the given
// tech-support policy.
func LoadSolo(root string, p Policy) (*Solo, error) {
	d, err := LoadPolicy(root, p)
	if err != nil {
		return nil, err
	}
	dir := data.Tau2Domain(root, Name)
	tech := "tech_support_manual.md"
	if p == Workflow {
		tech = "tech_support_workflow_solo.md"
	}
	main, err := readText(filepath.Join(dir, "main_policy_solo.md"))
	if err != nil {
		return nil, err
	}
	techText, err := readText(filepath.Join(dir, tech))
	if err != nil {
		return nil, err
	}
	if err := d.Describe(); err != nil {
		return nil, err
	}
	return &Solo{Domain: d, policy: composePolicy(main, techText),
		tools: slices.Concat(d.AgentTools(), d.UserTools())}, nil
}

// Policy is the solo policy.
func (s *Solo) Policy() string { return s.policy }

// AgentTools are the agent's tools followed by the user's.
func (s *Solo) AgentTools() []tool.Info { return s.tools }

// NewEnv returns a fresh simulation state with solo routing.
func (s *Solo) NewEnv() envs.Env { return envs.SoloEnv(s.Domain.newEnv(), s.Domain.UserTools()) }

// Base returns the normal-mode domain.
func (s *Solo) Base() envs.Domain { return s.Domain }
