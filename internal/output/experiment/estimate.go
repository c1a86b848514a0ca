package experiment

import (
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// Typical is a simulation's token usage by role, as an estimate for a
// dry run's cost, and where the figures come from.
type Typical struct {
	Agent, User message.Usage
	Basis       string
}

// AssumedCacheShare is the share of prompt tokens a dry run's estimate
// assumes the provider serves from its prompt cache (priced at
// cached_input): the baseline agent's share was 92.5–97.4% on τ²-bench's
// four recorded runs replayed against OpenAI's documented caching rule
// (README, "Prompt caching and the ledger"), rounded down for providers
// that cache less. The dry run prints it.
const AssumedCacheShare = 0.9

// WithCacheShare returns u with share of its prompt tokens cached.
func WithCacheShare(u message.Usage, share float64) message.Usage {
	u.CachedTokens = int(float64(u.PromptTokens) * share)
	return u
}

// TypicalUsage returns the mean token usage of one simulation of domain,
// measured on τ²-bench's published trajectories (per-message usage of the
// agent's and the user simulator's calls; TestTypicalUsage recomputes the
// figures from the files). Domains without recorded usage borrow
// airline's, said in Basis. The judge's calls are not included (no
// trajectory records them; one call per simulation of a task with NL
// assertions).
func TypicalUsage(domain string) Typical {
	const (
		airline = "τ²-bench's airline trajectories (claude-sonnet-4-5 agent, gpt-4.1 user, 50 simulations)"
		telecom = "τ²-bench's telecom trajectories (gpt-4.1 agent and user, 40 simulations)"
	)
	air := Typical{
		Agent: message.Usage{PromptTokens: 76766, CompletionTokens: 3904},
		User:  message.Usage{PromptTokens: 6530, CompletionTokens: 232},
		Basis: "mean usage per simulation in " + airline,
	}
	switch domain {
	case "airline":
		return air
	case "telecom":
		return Typical{
			Agent: message.Usage{PromptTokens: 117525, CompletionTokens: 1128},
			User:  message.Usage{PromptTokens: 78392, CompletionTokens: 615},
			Basis: "mean usage per simulation in " + telecom,
		}
	}
	air.Basis = fmt.Sprintf("no recorded usage for %s: airline's figures, the mean usage per simulation in %s", domain, airline)
	return air
}
