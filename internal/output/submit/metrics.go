package submit

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// Metrics is what upstream's compute_metrics (tau2/metrics/agent_metrics.py)
// yields that a submission reports, computed from a τ²-bench results file.
type Metrics struct {
	Domain string
	// PassHatKs[k-1] is pass^k as a fraction for k = 1…K, K being the
	// file's num_trials lowered to the fewest scored trials any task has.
	PassHatKs []float64
	// AvgAgentCost is the mean agent cost over scored simulations (nil when
	// no simulation has one, upstream's NaN).
	AvgAgentCost *float64
	// Simulations and Tasks count the scored simulations and their tasks;
	// Infrastructure the simulations left out.
	Simulations, Tasks, Infrastructure int
	// RetrievalConfig is the file's retrieval_config (banking_knowledge).
	RetrievalConfig string
}

// Compute computes a file's metrics as upstream does: infrastructure errors
// are left out; a simulation succeeds when its reward is within 1e-6 of 1;
// pass^k averages C(c,k)/C(n,k) over the tasks with scored simulations, for
// k up to the fewest simulations of a task (and at most num_trials).
//
// pass^k is the exact mean rounded once (upstream's pandas mean sums in an
// order that depends on a sort; the two agree to the last bit or two); the
// cost is summed pairwise in file order as numpy does.
func Compute(f *results.Tau2File) (Metrics, error) {
	meta, err := f.Meta()
	if err != nil {
		return Metrics{}, err
	}
	m := Metrics{Domain: meta.Domain, RetrievalConfig: meta.RetrievalConfig}
	zero := 0.0
	if len(f.Simulations) == 0 {
		m.AvgAgentCost = &zero
		return m, nil
	}
	counts := map[string]*metrics.TaskCounts{}
	var costs []float64
	for _, s := range f.Simulations {
		if s.TerminationReason == string(evaluator.InfrastructureError) {
			m.Infrastructure++
			continue
		}
		m.Simulations++
		c := counts[s.TaskID]
		if c == nil {
			c = &metrics.TaskCounts{}
			counts[s.TaskID] = c
		}
		c.Trials++
		if s.RewardInfo != nil && len(s.RewardInfo.Raw) > 0 && string(s.RewardInfo.Raw) != "null" && evaluator.Success(s.RewardInfo.Reward) {
			c.Successes++
		}
		if s.AgentCost != nil {
			costs = append(costs, *s.AgentCost)
		}
	}
	m.Tasks = len(counts)
	if m.Simulations == 0 {
		m.AvgAgentCost = &zero
		return m, nil
	}
	if len(costs) > 0 {
		avg := pairwiseSum(costs) / float64(len(costs))
		m.AvgAgentCost = &avg
	}
	maxK := meta.Trials
	for _, c := range counts {
		maxK = min(maxK, c.Trials)
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for k := 1; k <= maxK; k++ {
		sum := new(big.Rat)
		for _, id := range ids {
			c := counts[id]
			num := new(big.Int).Binomial(int64(c.Successes), int64(k))
			if c.Successes < k {
				num.SetInt64(0)
			}
			sum.Add(sum, new(big.Rat).SetFrac(num, new(big.Int).Binomial(int64(c.Trials), int64(k))))
		}
		mean, _ := sum.Quo(sum, new(big.Rat).SetInt64(int64(len(ids)))).Float64()
		m.PassHatKs = append(m.PassHatKs, mean)
	}
	return m, nil
}

// Results are the metrics as a submission's DomainResults (percentages).
func (m Metrics) Results() *DomainResults {
	d := &DomainResults{}
	if m.Domain == "banking_knowledge" && m.RetrievalConfig != "" {
		rc := m.RetrievalConfig
		d.RetrievalConfig = &rc // upstream's prepare_submission copies info.retrieval_config
	}
	for k := 1; k <= 4 && k <= len(m.PassHatKs); k++ {
		v := m.PassHatKs[k-1] * 100
		switch k {
		case 1:
			d.Pass1 = &v
		case 2:
			d.Pass2 = &v
		case 3:
			d.Pass3 = &v
		case 4:
			d.Pass4 = &v
		}
	}
	if m.AvgAgentCost != nil {
		c := *m.AvgAgentCost
		d.Cost = &c
	}
	return d
}

// pairwiseSum adds xs as numpy's pairwise summation does (blocks of up to
// 128 values summed with eight accumulators, larger arrays split in halves).
func pairwiseSum(xs []float64) float64 {
	n := len(xs)
	switch {
	case n < 8:
		res := 0.0
		for _, x := range xs {
			res += x
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], xs[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += xs[i+j]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += xs[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(xs[:n2]) + pairwiseSum(xs[n2:])
	}
}

// runInfo is the part of a results file's info the submission checks compare.
type runInfo struct {
	AgentInfo struct {
		LLM     *string         `json:"llm"`
		LLMArgs json.RawMessage `json:"llm_args"`
	} `json:"agent_info"`
	UserInfo struct {
		LLM     *string         `json:"llm"`
		LLMArgs json.RawMessage `json:"llm_args"`
	} `json:"user_info"`
}

// settings returns the agent and user settings of a file in canonical JSON
// (upstream compares their dict hash).
func settings(f *results.Tau2File) (string, error) {
	var in runInfo
	if err := json.Unmarshal(f.Info, &in); err != nil {
		return "", fmt.Errorf("results info: %w", err)
	}
	canon := func(raw json.RawMessage) any {
		var v any
		if len(raw) > 0 {
			_ = json.Unmarshal(raw, &v)
		}
		return v
	}
	b, err := json.Marshal(map[string]any{
		"llm_agent": in.AgentInfo.LLM, "llm_args_agent": canon(in.AgentInfo.LLMArgs),
		"llm_user": in.UserInfo.LLM, "llm_args_user": canon(in.UserInfo.LLMArgs),
	})
	return string(b), err
}
