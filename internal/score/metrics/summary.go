package metrics

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

// Key identifies a run group: the records of one domain, agent, agent
// backbone, user backbone and user trait.
type Key struct {
	Domain       string `json:"domain"`
	Agent        string `json:"agent"`
	Backbone     string `json:"backbone"`
	UserBackbone string `json:"user_backbone"`
	// Trait is the τ-Trait user's traits (results.Record.Trait), empty
	// without traits.
	Trait string `json:"trait,omitempty"`
}

// KeyOf returns a record's group key.
func KeyOf(r *results.Record) Key {
	return Key{Domain: r.Domain, Agent: r.Agent, Backbone: r.Backbone, UserBackbone: r.UserBackbone, Trait: r.Trait}
}

// TaskTrials is a task with its number of scored trials.
type TaskTrials struct {
	TaskID string `json:"task_id"`
	Trials int    `json:"trials"`
}

// PassK is pass^k for k = 1…K over a set of tasks.
type PassK struct {
	// K is the number of trials every task should have: the planned number
	// when known, else the most any task has.
	K int `json:"k"`
	// NumTasks is the number of tasks (including any without a scored
	// trial).
	NumTasks int `json:"-"`
	// Values[k-1] is pass^k: the mean of C(c,k)/C(n,k) over the tasks with
	// at least k scored trials.
	Values []float64 `json:"-"`
	// Tasks[k-1] is how many tasks Values[k-1] averages.
	Tasks []int `json:"-"`
	// Incomplete lists the tasks with fewer than K scored trials (failed
	// infrastructure, an interrupted run): they drop out of pass^k for the
	// k they lack, and reports name them.
	Incomplete []TaskTrials `json:"incomplete_tasks,omitempty"`
}

// At returns pass^k (0 when k is out of range).
func (p PassK) At(k int) float64 {
	if k < 1 || k > len(p.Values) {
		return 0
	}
	return p.Values[k-1]
}

// Complete reports whether pass^k averages every task.
func (p PassK) Complete(k int) bool {
	if k < 1 || k > len(p.Tasks) {
		return false
	}
	return p.Tasks[k-1] == p.NumTasks
}

func passK(counts map[string]TaskCounts, k int) PassK {
	p := PassK{K: k, NumTasks: len(counts)}
	for _, c := range counts {
		p.K = max(p.K, c.Trials)
	}
	list := make([]TaskCounts, 0, len(counts))
	for _, id := range sortedIDs(counts) {
		c := counts[id]
		list = append(list, c)
		if c.Trials < p.K {
			p.Incomplete = append(p.Incomplete, TaskTrials{TaskID: id, Trials: c.Trials})
		}
	}
	p.Values, p.Tasks = PassHatKs(list, p.K)
	return p
}

// Subset is pass^k over the environment-changing tasks (at least one gold
// write).
type Subset struct {
	// Tasks is the number of tasks in the subset; Known the number whose
	// membership is known (gold actions and tool kinds found).
	Tasks int `json:"tasks"`
	Known int `json:"known"`
	// Unknown lists tasks whose membership could not be decided.
	Unknown []string `json:"unknown_tasks,omitempty"`
	PassK
}

// Share is the subset's share of the tasks of known membership.
func (s Subset) Share() float64 { return ratio(float64(s.Tasks), float64(s.Known)) }

// ActionReliability is the share of gold actions matched.
type ActionReliability struct {
	// Simulations counts the scored simulations whose task has gold actions.
	Simulations  int `json:"simulations"`
	Gold         int `json:"gold"`
	Matched      int `json:"matched"`
	WriteGold    int `json:"write_gold"`
	WriteMatched int `json:"write_matched"`
}

// Share is matched / gold.
func (a ActionReliability) Share() float64 { return ratio(float64(a.Matched), float64(a.Gold)) }

// WriteShare is matched / gold over gold writes.
func (a ActionReliability) WriteShare() float64 {
	return ratio(float64(a.WriteMatched), float64(a.WriteGold))
}

// Adherence is policy adherence: the share of runs in which no executed write
// would be refused by the gate, over the runs that report gate verdicts.
type Adherence struct {
	Runs     int           `json:"runs"`
	Adherent int           `json:"adherent"`
	Verdicts VerdictCounts `json:"verdicts"`
}

// Share is adherent / runs.
func (a Adherence) Share() float64 { return ratio(float64(a.Adherent), float64(a.Runs)) }

// Cost is token and cost accounting over simulations (infrastructure
// failures included: they were paid for).
type Cost struct {
	Simulations int           `json:"simulations"`
	AgentCalls  int           `json:"agent_calls"`
	UserCalls   int           `json:"user_calls"`
	Agent       message.Usage `json:"agent_usage"`
	User        message.Usage `json:"user_usage"`
	Judge       message.Usage `json:"judge_usage"`
	AgentCost   float64       `json:"agent_cost"`
	UserCost    float64       `json:"user_cost"`
	JudgeCost   float64       `json:"judge_cost"`
	// Unknown counts, by record field (results.Unknown*), the simulations
	// whose value is not known (no price, not recorded): they add 0 to the
	// sums above, which then hold the known part only.
	Unknown map[string]int `json:"unknown,omitempty"`
	// Unjudged counts the simulations whose NL assertions were not judged
	// (--no-judge): the judge they needed was never asked, so the judge's
	// usage and cost of a full evaluation are not there (nothing was spent).
	Unjudged int `json:"unjudged,omitempty"`
}

// Mean is x, a sum over the simulations, per simulation; false when there
// is none or some simulation has field (results.Unknown*) unknown.
func (c Cost) Mean(field string, x float64) (float64, bool) {
	if c.Simulations == 0 || c.Unknown[field] > 0 {
		return 0, false
	}
	return x / float64(c.Simulations), true
}

// Merge adds another account to c.
func (c *Cost) Merge(o Cost) {
	c.Simulations += o.Simulations
	c.AgentCalls += o.AgentCalls
	c.UserCalls += o.UserCalls
	c.Agent = c.Agent.Add(o.Agent)
	c.User = c.User.Add(o.User)
	c.Judge = c.Judge.Add(o.Judge)
	c.AgentCost += o.AgentCost
	c.UserCost += o.UserCost
	c.JudgeCost += o.JudgeCost
	for f, n := range o.Unknown {
		c.unknown(f, n)
	}
	c.Unjudged += o.Unjudged
}

func (c *Cost) unknown(field string, n int) {
	if c.Unknown == nil {
		c.Unknown = map[string]int{}
	}
	c.Unknown[field] += n
}

// Add accounts for one simulation.
func (c *Cost) Add(r *results.Record) {
	for _, f := range r.Unknown {
		c.unknown(f, 1)
	}
	if r.RewardInfo.NLUnjudged() {
		c.Unjudged++
	}
	c.Simulations++
	c.AgentCalls += r.AgentCalls
	c.UserCalls += r.UserCalls
	c.Agent = c.Agent.Add(r.AgentUsage)
	c.User = c.User.Add(r.UserUsage)
	ju, jc := r.JudgeUsage, r.JudgeCost
	if ju == (message.Usage{}) && jc == 0 && r.RewardInfo != nil {
		if r.RewardInfo.JudgeUsage != nil {
			ju = *r.RewardInfo.JudgeUsage
		}
		jc = r.RewardInfo.JudgeCost
	}
	c.Judge = c.Judge.Add(ju)
	c.AgentCost += r.AgentCost
	c.UserCost += r.UserCost
	c.JudgeCost += jc
}

// Total is the cost of agent, user and judge; TotalKnown reports whether
// every simulation's cost of every role is known.
func (c Cost) Total() float64 { return c.AgentCost + c.UserCost + c.JudgeCost }

// TotalKnown reports whether Total holds every simulation's whole cost.
func (c Cost) TotalKnown() bool {
	return c.Unknown[results.UnknownAgentCost] == 0 && c.Unknown[results.UnknownUserCost] == 0 && c.Unknown[results.UnknownJudgeCost] == 0
}

// CachedShare is the share of a role's prompt tokens u (c.Agent, c.User,
// c.Judge) served from the provider's prompt cache; false when a
// simulation's usage of the role (field, results.Unknown*Usage) is unknown,
// a call did not report its cached count, or there were no prompt tokens.
func (c Cost) CachedShare(field string, u message.Usage) (float64, bool) {
	if c.Unknown[field] > 0 {
		return 0, false
	}
	return u.CachedShare()
}

// PerSim divides a quantity by the number of simulations.
func (c Cost) PerSim(x float64) float64 { return ratio(x, float64(c.Simulations)) }

// Summary is everything reported about one run group.
type Summary struct {
	Key
	// Records counts every record read; Scored those that count for pass^k
	// (infrastructure failures and duplicates of a (task, trial) left out).
	Records        int `json:"records"`
	Scored         int `json:"scored"`
	Infrastructure int `json:"infrastructure_errors"`
	Duplicates     int `json:"duplicates"`
	// Simulated counts records of the offline sim backbone.
	Simulated int `json:"simulated"`
	// NLUnjudged counts scored simulations whose NL assertions were not
	// judged (--no-judge): their rewards omit NL_ASSERTION.
	NLUnjudged int `json:"nl_unjudged"`
	Tasks      int `json:"tasks"`
	Successes  int `json:"successes"`
	// AvgReward is the mean reward over scored simulations.
	AvgReward float64 `json:"avg_reward"`
	PassK
	Write     Subset            `json:"write_subset"`
	Actions   ActionReliability `json:"action_reliability"`
	Adherence Adherence         `json:"policy_adherence"`
	Cost      Cost              `json:"cost"`
	// Failed counts scored failures; Errors files them (and infrastructure
	// failures) by category.
	Failed int              `json:"failed"`
	Errors map[Category]int `json:"errors"`
}

// ErrorShare is a category's share of the scored failures.
func (s Summary) ErrorShare(c Category) float64 {
	return ratio(float64(s.Errors[c]), float64(s.Failed))
}

// Options tune Summarize.
type Options struct {
	// Catalog gives tasks' gold actions and tools' kinds; nil uses only what
	// records carry.
	Catalog Catalog
	// Plan returns what a group was meant to run (from its run manifest);
	// nil, or a zero Plan, means only the records say.
	Plan func(Key) Plan
	// Superseded are attempts a re-run replaced (infrastructure errors
	// re-run on resume): they count in their group's cost, nowhere else.
	Superseded []results.Record
}

// Plan is what a run was meant to cover: the number of trials per task
// (0: the most any task has) and the task ids (tasks without any record are
// then named as lacking trials).
type Plan struct {
	Trials  int
	TaskIDs []string
}

// Summarize groups records by Key and computes every metric per group.
// Groups are sorted by domain, backbone, user backbone and agent.
func Summarize(recs []results.Record, opts Options) []Summary {
	gi := NewGoldIndex(opts.Catalog, recs)
	type unit struct {
		task  string
		trial int
	}
	type group struct {
		s      Summary
		seen   map[unit]bool
		counts map[string]TaskCounts
		reward float64
	}
	groups := map[Key]*group{}
	var order []Key
	get := func(k Key) *group {
		g := groups[k]
		if g == nil {
			g = &group{s: Summary{Key: k, Errors: map[Category]int{}}, seen: map[unit]bool{}, counts: map[string]TaskCounts{}}
			groups[k] = g
			order = append(order, k)
		}
		return g
	}
	// Scored records first, so an infrastructure failure that was re-run
	// never shadows the re-run.
	idx := make([]int, 0, len(recs))
	for i := range recs {
		if !recs[i].Infrastructure() {
			idx = append(idx, i)
		}
	}
	for i := range recs {
		if recs[i].Infrastructure() {
			idx = append(idx, i)
		}
	}
	for _, i := range idx {
		r := &recs[i]
		key := KeyOf(r)
		g := get(key)
		g.s.Records++
		if r.Simulated {
			g.s.Simulated++
		}
		if _, ok := g.counts[r.TaskID]; !ok {
			g.counts[r.TaskID] = TaskCounts{}
		}
		kind := func(req message.Requestor, name string) tool.Kind { return gi.Kind(r.Domain, req, name) }
		gold := gi.Gold(r.Domain, r.TaskID)
		if r.Infrastructure() {
			g.s.Cost.Add(r)
			g.s.Infrastructure++
			g.s.Errors[Infrastructure]++
			continue
		}
		u := unit{r.TaskID, r.Trial}
		if g.seen[u] {
			// The same unit read twice (one file given twice, two files
			// labelled alike): counted once in every table, costs too.
			g.s.Duplicates++
			continue
		}
		g.s.Cost.Add(r)
		g.seen[u] = true
		g.s.Scored++
		g.reward += r.Reward()
		if r.RewardInfo.NLUnjudged() {
			g.s.NLUnjudged++
		}
		c := g.counts[r.TaskID]
		c.Trials++
		if r.Success() {
			c.Successes++
			g.s.Successes++
		} else {
			g.s.Failed++
			g.s.Errors[Classify(r, gold, kind).Category]++
		}
		g.counts[r.TaskID] = c
		addActions(&g.s.Actions, r, gold, kind)
		if verdicts, ok := GateVerdicts(r); ok {
			g.s.Adherence.Runs++
			for _, v := range verdicts {
				g.s.Adherence.Verdicts.add(v)
			}
			if len(violations(r, verdicts)) == 0 {
				g.s.Adherence.Adherent++
			}
		}
	}
	for i := range opts.Superseded {
		get(KeyOf(&opts.Superseded[i])).s.Cost.Add(&opts.Superseded[i])
	}
	out := make([]Summary, 0, len(order))
	for _, k := range order {
		g := groups[k]
		s := g.s
		s.Tasks = len(g.counts)
		s.AvgReward = ratio(g.reward, float64(s.Scored))
		var plan Plan
		if opts.Plan != nil {
			plan = opts.Plan(k)
		}
		for _, id := range plan.TaskIDs {
			if _, ok := g.counts[id]; !ok {
				g.counts[id] = TaskCounts{}
			}
		}
		s.Tasks = len(g.counts)
		s.PassK = passK(g.counts, plan.Trials)
		write := map[string]TaskCounts{}
		for _, id := range sortedIDs(g.counts) {
			w, known := gi.Gold(k.Domain, id).HasWrite()
			if !known {
				s.Write.Unknown = append(s.Write.Unknown, id)
				continue
			}
			s.Write.Known++
			if w {
				write[id] = g.counts[id]
			}
		}
		s.Write.Tasks = len(write)
		s.Write.PassK = passK(write, s.PassK.K)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		return cmp.Or(cmp.Compare(a.Domain, b.Domain), cmp.Compare(a.Backbone, b.Backbone),
			cmp.Compare(a.UserBackbone, b.UserBackbone), cmp.Compare(a.Trait, b.Trait), cmp.Compare(a.Agent, b.Agent))
	})
	return out
}

// addActions accounts for a scored simulation's gold actions: from the
// evaluator's action checks when present, else by matching the trajectory.
func addActions(a *ActionReliability, r *results.Record, gold Gold, kind func(message.Requestor, string) tool.Kind) {
	if ri := r.RewardInfo; ri != nil && len(ri.ActionChecks) > 0 {
		a.Simulations++
		for _, c := range ri.ActionChecks {
			k := tool.Kind(c.ToolType)
			if k == "" {
				k = kind(message.Requestor(c.Action.By()), c.Action.Name)
			}
			write := k == tool.Write
			a.Gold++
			if write {
				a.WriteGold++
			}
			if c.ActionMatch {
				a.Matched++
				if write {
					a.WriteMatched++
				}
			}
		}
		return
	}
	if !gold.Known || len(gold.Actions) == 0 {
		return
	}
	a.Simulations++
	for i, m := range matchedActions(calls(r.Messages), gold.Actions) {
		write := gold.Actions[i].Kind == tool.Write
		a.Gold++
		if write {
			a.WriteGold++
		}
		if m {
			a.Matched++
			if write {
				a.WriteMatched++
			}
		}
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// sortedIDs returns map keys in task order: numerically when both ids are
// integers, else as strings.
func sortedIDs[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, CompareTaskIDs)
	return ids
}

// CompareTaskIDs orders task ids numerically when both are integers, else
// as strings (integers first).
func CompareTaskIDs(a, b string) int {
	ai, aerr := strconv.Atoi(a)
	bi, berr := strconv.Atoi(b)
	switch {
	case aerr == nil && berr == nil:
		return cmp.Compare(ai, bi)
	case aerr == nil:
		return -1
	case berr == nil:
		return 1
	}
	return cmp.Compare(a, b)
}
