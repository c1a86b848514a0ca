// Package v1airline is τ-bench v1's airline environment
// (sierra-research/tau-bench, tau_bench/envs/airline) and τ-Trait's copy of
// it (collinear-ai/tau-trait, tau_trait/envs/airline), whose code is the
// same file for file: τ-Trait adds ten tasks to v1's fifty and two users to
// the data. One port serves both; the domains differ only in the data
// folder they load:
//
//	domain            upstream                            tasks
//	taubench-airline  tau-bench 59a200c, tau_bench/envs   test (50)
//	tautrait-airline  tau-trait 5855e28, tau_trait/envs   test (60)
//
// Both env.py files load only the test split (tasks_test.py's TASKS); the
// older tasks.py beside it is never imported and not offered.
//
// The tools work on the data as upstream's do, by duck typing (package
// pyops): outputs, the errors they return as strings, the exceptions
// Env.step turns into "Error: <text>" and every change to the data follow
// upstream's Python.
package v1airline

import (
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
)

// Domain names.
const (
	TauBenchName = "taubench-airline"
	TauTraitName = "tautrait-airline"
)

// TerminateTool ends the episode when called (env.terminate_tools).
const TerminateTool = "transfer_to_human_agents"

// Domain is a loaded airline environment.
type Domain struct {
	*tauv1.Domain
}

// config is the environment's description for one source.
func config(name string, src tauv1.Source) tauv1.Config {
	return tauv1.Config{
		Name:      name,
		Env:       "airline",
		Source:    src,
		Tables:    []string{"flights", "reservations", "users"},
		Splits:    []tauv1.Split{{Name: "test", File: "tasks_test.py", Symbol: "TASKS"}},
		Tools:     newTools(),
		Class:     "AirlineTools",
		Terminate: []string{TerminateTool},
	}
}

// Config is the environment's description for a domain name
// (TauTraitName or TauBenchName; any other name gets τ-bench v1's).
func Config(name string) tauv1.Config {
	if name == TauTraitName {
		return config(name, tauv1.TauTrait)
	}
	return config(name, tauv1.TauBench)
}

// LoadTauBench loads τ-bench v1's airline (taubench-airline).
func LoadTauBench(root string) (*Domain, error) { return load(root, TauBenchName, tauv1.TauBench) }

// LoadTauTrait loads τ-Trait's airline (tautrait-airline).
func LoadTauTrait(root string) (*Domain, error) { return load(root, TauTraitName, tauv1.TauTrait) }

func load(root, name string, src tauv1.Source) (*Domain, error) {
	d, err := tauv1.Load(root, config(name, src))
	if err != nil {
		return nil, err
	}
	return &Domain{Domain: d}, nil
}
