package submit

import (
	"fmt"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
)

// A standard submission is a model evaluated with τ²-bench's benchmark
// side: its user simulator and its evaluation. Runs on an offline backbone
// (gold, sim, replay:FILE: a scripted agent or user, not a model) or whose
// NL assertions were not judged (--no-judge) never are; upstream's schema
// admits them only as custom entries ("custom modifies … user simulation
// … or evaluation").

// nonStandard lists why runs of these backbones and records are never a
// standard submission (none when they may be). --no-judge counts where it
// left a reward without its NL verdict (a domain without NL assertions,
// airline, is evaluated as upstream evaluates it either way), so a run and
// its results file are judged alike.
func nonStandard(agent, user string, simulated bool, recs []results.Record) []string {
	var why []string
	for _, b := range []struct{ role, name, what string }{
		{"agent backbone", agent, "a scripted agent, not a model"},
		{"user backbone", user, "a scripted user, not τ²-bench's user simulator"},
	} {
		if ob, ok, _ := offline.Parse(b.name); ok {
			why = append(why, fmt.Sprintf("%s %s is offline (%s: %s)", b.role, b.name, ob.Kind, b.what))
		}
	}
	if simulated && len(why) == 0 {
		why = append(why, "its records are simulated (the offline sim backbone)")
	}
	unjudged := 0
	for i := range recs {
		if recs[i].RewardInfo.NLUnjudged() {
			unjudged++
		}
	}
	if unjudged > 0 {
		why = append(why, fmt.Sprintf("NL assertions not judged in %d simulations (--no-judge): their rewards omit NL_ASSERTION", unjudged))
	}
	return why
}

// NonStandard lists why an input is never a standard submission (an
// offline backbone, NL assertions not judged); none when it may be one.
func NonStandard(in Input) ([]string, error) {
	if in.Run != nil {
		m := in.Run.Manifest
		simulated := false
		for i := range in.Records {
			simulated = simulated || in.Records[i].Simulated
		}
		return nonStandard(m.Backbone, m.UserBackbone, simulated, in.Records), nil
	}
	return fileNonStandard(in.File)
}

// fileNonStandard is nonStandard for a τ²-bench results file: its agent and
// user models, ledgerbench's simulated mark and its rewards.
func fileNonStandard(f *results.Tau2File) ([]string, error) {
	meta, err := f.Meta()
	if err != nil {
		return nil, err
	}
	recs, err := results.FromTau2(f)
	if err != nil {
		return nil, err
	}
	return nonStandard(meta.Backbone, meta.UserBackbone, meta.Simulated, recs), nil
}

// verifyFile runs upstream's verify_trajectories checks (public mode) on one
// results file, as tau2 submit prepare runs them before writing and tau2
// submit validate after: the format check (the file loads), the tasks check
// (every task of the domain's base split, unchanged, and no other) and the
// trial-count check (every task num_trials times). It returns the file
// (nil when it does not load) and the checks, File set to name.
func verifyFile(path, name string, base BaseTasks) (*results.Tau2File, []Check) {
	check := func(what string, err error) Check {
		c := Check{Name: what, File: name, OK: err == nil}
		if err != nil {
			c.Detail = err.Error()
		}
		return c
	}
	f, err := results.ReadTau2(path)
	var meta results.Tau2Meta
	if err == nil {
		meta, err = f.Meta()
	}
	if err != nil {
		return nil, []Check{check("format", err)}
	}
	return f, []Check{check("format", nil), check("tasks", checkTasks(f, meta.Domain, base)), check("trial counts", checkTrials(f, meta.Domain, meta.Trials))}
}

// failed joins the failed checks ("file: name: detail; …").
func failed(checks []Check) string {
	var parts []string
	for _, c := range checks {
		if !c.OK {
			parts = append(parts, fmt.Sprintf("%s: %s: %s", c.File, c.Name, c.Detail))
		}
	}
	return strings.Join(parts, "; ")
}
