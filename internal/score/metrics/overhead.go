package metrics

import "github.com/ledgerbench/ledgerbench/internal/bench/results"

// Pair is a group of one agent and the baseline group it is compared with:
// same domain, backbone, user backbone and trait.
type Pair struct {
	Base, Other Summary
}

// Match pairs every group of agent other with the group of agent base that
// shares its domain, backbone and user backbone. Groups without a partner are
// left out.
func Match(sums []Summary, base, other string) []Pair {
	type k4 struct{ d, b, u, t string }
	bases := map[k4]Summary{}
	for _, s := range sums {
		if s.Agent == base {
			bases[k4{s.Domain, s.Backbone, s.UserBackbone, s.Trait}] = s
		}
	}
	var out []Pair
	for _, s := range sums {
		if s.Agent != other {
			continue
		}
		if b, ok := bases[k4{s.Domain, s.Backbone, s.UserBackbone, s.Trait}]; ok {
			out = append(out, Pair{Base: b, Other: s})
		}
	}
	return out
}

// Overhead is what an agent costs relative to its baseline, as fractions
// (0.531 = 53.1% more): per-simulation agent prompt tokens, all agent tokens,
// agent model calls and agent cost. Per-simulation means are summed over the
// pairs before dividing, so every domain weighs by its own size of run.
// A quantity the baseline never used (zero, or nothing recorded) has no
// relative overhead: nil.
type Overhead struct {
	Pairs        int      `json:"pairs"`
	PromptTokens *float64 `json:"prompt_tokens"`
	Tokens       *float64 `json:"tokens"`
	Calls        *float64 `json:"calls"`
	Cost         *float64 `json:"cost"`
}

// UsageOverhead computes the overhead of the Other groups over the Base
// groups of pairs. Quantities the baseline never used (zero) give nil.
func UsageOverhead(pairs []Pair) Overhead {
	var bp, op, bt, ot, bc, oc, bm, om float64
	usage, cost := true, true // some simulation of each side of every pair has it known
	for _, p := range pairs {
		b, o := p.Base.Cost, p.Other.Cost
		add := func(sum *float64, c Cost, field string, x float64, known *bool) {
			m, ok := c.Mean(field, x)
			*sum += m
			*known = *known && ok
		}
		add(&bp, b, results.UnknownAgentUsage, float64(b.Agent.PromptTokens), &usage)
		add(&op, o, results.UnknownAgentUsage, float64(o.Agent.PromptTokens), &usage)
		add(&bt, b, results.UnknownAgentUsage, float64(b.Agent.Total()), &usage)
		add(&ot, o, results.UnknownAgentUsage, float64(o.Agent.Total()), &usage)
		add(&bc, b, results.UnknownAgentUsage, float64(b.AgentCalls), &usage)
		add(&oc, o, results.UnknownAgentUsage, float64(o.AgentCalls), &usage)
		add(&bm, b, results.UnknownAgentCost, b.AgentCost, &cost)
		add(&om, o, results.UnknownAgentCost, o.AgentCost, &cost)
	}
	rel := func(known bool, o, b float64) *float64 {
		if !known || b == 0 {
			return nil
		}
		x := o/b - 1
		return &x
	}
	return Overhead{Pairs: len(pairs), PromptTokens: rel(usage, op, bp), Tokens: rel(usage, ot, bt), Calls: rel(usage, oc, bc), Cost: rel(cost, om, bm)}
}
