package leaderboard

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/output/submit"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// leaderboardTrials is the number of trials behind the leaderboard's
// pass^1…pass^4.
const leaderboardTrials = 4

// Run is the user's runs of one agent, backbones and user trait, placed
// among the published entries: one result per domain.
type Run struct {
	Key metrics.Key // Domain empty
	// Label names the run in the Model column; Simulated marks an offline
	// backbone (gold, sim, replay: not a model's result).
	Label     string
	Simulated bool
	// Standard says whether its submission would be standard (upstream's
	// prompts, no offline backbone, NL assertions judged).
	Standard bool
	Domains  map[string]*RunDomain
}

// RunDomain is a run's result on one domain.
type RunDomain struct {
	Where string
	// Results are pass^k in percent (k up to the run's trials) and the
	// mean agent cost per simulation, as `report` computes them.
	Results submit.DomainResults
	// Differs says what differs from a standard leaderboard entry.
	Differs []string
	// userModel is the model of the user simulator.
	userModel string
}

// BaseTaskIDs gives the ids of a domain's base split (the leaderboard's
// task set).
type BaseTaskIDs func(domain string) ([]string, error)

// input is one loaded input with what its notes need.
type input struct {
	in    submit.Input
	desc  submit.Desc
	recs  []results.Record
	m     *results.Manifest
	plan  metrics.Plan
	where string
}

// LoadRuns reads the inputs (run directories, τ²-bench results files and
// folders of them, as submit prepare takes them) and groups them into
// runs: records of one agent, backbones and trait, per domain. A domain
// that is not on the leaderboard is an error.
func LoadRuns(args []string, base BaseTaskIDs) ([]*Run, error) {
	var ins []input
	for _, arg := range args {
		got, err := submit.Inputs(arg, nil)
		if err != nil {
			return nil, fmt.Errorf("leaderboard: %w", err)
		}
		for _, in := range got {
			d, err := submit.Describe(in)
			if err != nil {
				return nil, fmt.Errorf("leaderboard: %w", err)
			}
			x := input{in: in, desc: d, where: d.Where, m: in.Manifest}
			if in.Run != nil {
				x.recs, x.m = in.Run.Records, in.Run.Manifest
			} else if x.recs, err = results.FromTau2(in.File); err != nil {
				return nil, fmt.Errorf("leaderboard: %s: %w", in.Path, err)
			}
			if !slices.Contains(submit.Domains(), d.Domain) {
				return nil, fmt.Errorf("leaderboard: %s: domain %q is not on τ²-bench's leaderboard (%s)", d.Where, d.Domain, strings.Join(submit.Domains(), ", "))
			}
			x.plan = metrics.Plan{Trials: d.Trials}
			if x.m != nil {
				x.plan.TaskIDs = x.m.TaskIDs
			}
			ins = append(ins, x)
		}
	}
	var runs []*Run
	byKey := map[metrics.Key]*Run{}
	for _, x := range ins {
		plan := func(metrics.Key) metrics.Plan { return x.plan }
		for _, g := range metrics.Summarize(x.recs, metrics.Options{Plan: plan}) {
			k := g.Key
			k.Domain = ""
			r := byKey[k]
			if r == nil {
				r = &Run{Key: k, Standard: true, Domains: map[string]*RunDomain{}}
				byKey[k] = r
				runs = append(runs, r)
			}
			if prev := r.Domains[g.Domain]; prev != nil {
				return nil, fmt.Errorf("leaderboard: %s and %s are both %s runs of %s: give one", prev.Where, x.where, g.Domain, runName(k))
			}
			d, standard, simulated, err := x.domain(g, base)
			if err != nil {
				return nil, err
			}
			r.Domains[g.Domain] = d
			r.Standard = r.Standard && standard
			r.Simulated = r.Simulated || simulated
		}
	}
	for _, r := range runs {
		r.Label = runName(r.Key)
		if r.Simulated {
			r.Label += " (SIMULATED)"
		}
	}
	return runs, nil
}

func runName(k metrics.Key) string {
	s := k.Agent + " · " + k.Backbone
	if k.Trait != "" {
		s += " · " + k.Trait
	}
	return s
}

// domain is one group's result and what differs from a standard entry.
func (x input) domain(g metrics.Summary, base BaseTaskIDs) (*RunDomain, bool, bool, error) {
	d := &RunDomain{Where: x.where, userModel: backboneModel(x.m, g.UserBackbone)}
	for k := 1; k <= min(leaderboardTrials, g.PassK.K); k++ {
		if g.PassK.Tasks[k-1] == 0 {
			continue
		}
		v := 100 * g.PassK.At(k)
		switch k {
		case 1:
			d.Results.Pass1 = &v
		case 2:
			d.Results.Pass2 = &v
		case 3:
			d.Results.Pass3 = &v
		case 4:
			d.Results.Pass4 = &v
		}
	}
	if c, ok := g.Cost.Mean(results.UnknownAgentCost, g.Cost.AgentCost); ok {
		d.Results.Cost = &c
	}
	why, err := submit.NonStandard(x.in)
	if err != nil {
		return nil, false, false, fmt.Errorf("leaderboard: %s: %w", x.where, err)
	}
	simulated := g.Simulated > 0 || isOffline(g.Backbone) || isOffline(g.UserBackbone)
	if simulated {
		d.Differs = append(d.Differs, "SIMULATED: an offline backbone, not a model's result")
	}
	d.Differs = append(d.Differs, why...)
	standard := len(why) == 0
	if x.desc.Prompts != results.PromptsUpstream {
		standard = false
		switch {
		case x.desc.NoManifest:
			d.Differs = append(d.Differs, "prompts not recorded (a τ²-bench results file without a ledgerbench manifest)")
		case x.desc.Prompts == "":
			d.Differs = append(d.Differs, "prompts not recorded")
		default:
			d.Differs = append(d.Differs, fmt.Sprintf("agent %s: prompts %s", g.Agent, x.desc.Prompts))
		}
	}
	if n := x.desc.Trials; n < leaderboardTrials {
		d.Differs = append(d.Differs, fmt.Sprintf("%d trial(s) a task (the leaderboard's pass^1…pass^4 take %d)", n, leaderboardTrials))
	}
	if len(g.Incomplete) > 0 {
		d.Differs = append(d.Differs, fmt.Sprintf("%d task(s) with fewer than %d scored trials", len(g.Incomplete), g.PassK.K))
	}
	if g.Infrastructure > 0 {
		d.Differs = append(d.Differs, fmt.Sprintf("%d infrastructure error(s) left out", g.Infrastructure))
	}
	if base != nil {
		ids, err := base(g.Domain)
		if err != nil {
			return nil, false, false, fmt.Errorf("leaderboard: %s: %w", x.where, err)
		}
		ran := x.desc.TaskIDs
		missing, extra := 0, 0
		for _, id := range ids {
			if !slices.Contains(ran, id) {
				missing++
			}
		}
		for _, id := range ran {
			if !slices.Contains(ids, id) {
				extra++
			}
		}
		if missing > 0 || extra > 0 {
			s := fmt.Sprintf("%d of the %d base tasks", len(ran)-extra, len(ids))
			if extra > 0 {
				s += fmt.Sprintf(" and %d others", extra)
			}
			if x.desc.Split != "" && x.desc.Split != "base" {
				s += " (split " + x.desc.Split + ")"
			}
			d.Differs = append(d.Differs, s)
		}
	}
	if g.Domain == "banking_knowledge" {
		rc := ""
		if x.m != nil {
			rc = x.m.RetrievalConfig
		} else if meta, err := x.in.File.Meta(); err == nil {
			rc = meta.RetrievalConfig
		}
		if rc != "" {
			d.Results.RetrievalConfig = &rc
			d.Differs = append(d.Differs, "retrieval "+rc)
		}
	}
	if m := x.m; m != nil {
		if m.Solo {
			d.Differs = append(d.Differs, "solo mode (no user simulator)")
		}
		if m.Traits != "" {
			d.Differs = append(d.Differs, "user traits "+m.Traits)
		}
		if len(m.ModifiedData) > 0 {
			d.Differs = append(d.Differs, fmt.Sprintf("%d modified data file(s)", len(m.ModifiedData)))
		}
		if m.EnforceProtocol {
			d.Differs = append(d.Differs, "--enforce-communication-protocol")
		}
	}
	return d, standard, simulated, nil
}

func isOffline(b string) bool {
	_, ok, _ := offline.Parse(b)
	return ok
}

// backboneModel is the model a backbone named (its settings in the run's
// manifest), else the name itself (a results file records the model).
func backboneModel(m *results.Manifest, name string) string {
	if m == nil {
		return name
	}
	var s struct {
		Model string `json:"model"`
	}
	if raw, ok := m.Backbones[name]; ok && json.Unmarshal(raw, &s) == nil && s.Model != "" {
		return s.Model
	}
	return name
}
