// Package v1retail is τ-bench v1's retail environment
// (sierra-research/tau-bench, tau_bench/envs/retail) and τ-Trait's copy of
// it (collinear-ai/tau-trait, tau_trait/envs/retail), whose code is the same
// file for file: τ-Trait adds five test tasks to v1's 115 and two users to
// the data. One port serves both; the domains differ only in the data
// folder they load:
//
//	domain           upstream                            tasks
//	taubench-retail  tau-bench 59a200c, tau_bench/envs   test (115), dev (20), train (500)
//	tautrait-retail  tau-trait 5855e28, tau_trait/envs   test (120), dev (20), train (500)
//
// The splits are those env.py imports (tasks_<split>.py's TASKS_<SPLIT>);
// the older tasks.py beside them is never imported and not offered.
//
// The tools work on the data as upstream's do, by duck typing (package
// pyops): outputs, the errors they return as strings, the exceptions
// Env.step turns into "Error: <text>" and every change to the data follow
// upstream's Python.
package v1retail

import (
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
)

// Domain names.
const (
	TauBenchName = "taubench-retail"
	TauTraitName = "tautrait-retail"
)

// TerminateTool ends the episode when called (env.terminate_tools).
const TerminateTool = "transfer_to_human_agents"

// Domain is a loaded retail environment.
type Domain struct {
	*tauv1.Domain
	pol *policy // the ledger policy, built on first use (policy.go)
}

func config(name string, src tauv1.Source) tauv1.Config {
	return tauv1.Config{
		Name:   name,
		Env:    "retail",
		Source: src,
		Tables: []string{"orders", "products", "users"},
		Splits: []tauv1.Split{
			{Name: "test", File: "tasks_test.py", Symbol: "TASKS_TEST"},
			{Name: "train", File: "tasks_train.py", Symbol: "TASKS_TRAIN"},
			{Name: "dev", File: "tasks_dev.py", Symbol: "TASKS_DEV"},
		},
		Tools:     newTools(),
		Class:     "RetailTools",
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

// LoadTauBench loads τ-bench v1's retail (taubench-retail).
func LoadTauBench(root string) (*Domain, error) { return load(root, TauBenchName, tauv1.TauBench) }

// LoadTauTrait loads τ-Trait's retail (tautrait-retail).
func LoadTauTrait(root string) (*Domain, error) { return load(root, TauTraitName, tauv1.TauTrait) }

func load(root, name string, src tauv1.Source) (*Domain, error) {
	d, err := tauv1.Load(root, config(name, src))
	if err != nil {
		return nil, err
	}
	return &Domain{Domain: d, pol: &policy{}}, nil
}
