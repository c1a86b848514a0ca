// Package tautraittelecom is τ-Trait's own telecom domain
// (collinear-ai/tau-trait, tau_trait/envs/telecom), named tautrait-telecom:
// a τ-bench v1 style, single-control environment (package tauv1) in which an
// agent looks up customers, manages their services, devices and billing,
// troubleshoots devices and files support tickets, with 18 tools over five
// tables. It is unrelated to τ²-bench's dual-control telecom domain.
//
// The tools work on the data as upstream's do, by duck typing (package
// pyops): outputs, the errors they return as strings, the exceptions
// Env.step turns into "Error: <text>" (Python's binding, KeyError,
// TypeError, AttributeError and ValueError texts) and every change to the
// data follow upstream's Python.
//
// What upstream's own code does, kept as it is:
//   - tasks_dev.py defines its list as TASKS_TEST, so upstream's dev split
//     raises ImportError: dev is not offered; the file's eight tasks are the
//     split dev-misnamed.
//   - env.py's terminate tool (transfer_to_human_support) is not among the
//     tools: calling it is an "Unknown action", and no tool ends the episode
//     (Env.step looks at terminate_tools only for names in its tools map).
//   - gold actions that name retired tools (manage_devices,
//     check_network_status) answer "Unknown action …"; others pass
//     arguments the tools do not take and fail with Python's TypeError.
package tautraittelecom

import (
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// Name is the domain's name.
const Name = "tautrait-telecom"

// UpstreamEnv is the domain's environment upstream (tau_trait/envs/telecom,
// run.py's --env telecom).
const UpstreamEnv = "telecom"

// TerminateTool is env.py's terminate tool, which the environment does not
// have (see the package documentation).
const TerminateTool = "transfer_to_human_support"

// DevUnavailable says why upstream's dev split is not offered.
const DevUnavailable = "upstream's tasks_dev.py defines TASKS_TEST, not TASKS_DEV, so upstream's dev split raises ImportError; its 8 tasks are the split dev-misnamed"

// Domain is the loaded telecom environment.
type Domain struct {
	*tauv1.Domain
}

// splits are test (the default, 18 tasks) and train (1), which env.py
// loads, and tasks_dev.py's list under the name it has (dev-misnamed).
func splits() []tauv1.Split {
	return []tauv1.Split{
		{Name: "test", File: "tasks_test.py", Symbol: "TASKS_TEST"},
		{Name: "train", File: "tasks_train.py", Symbol: "TASKS_TRAIN"},
		{Name: "dev-misnamed", File: "tasks_dev.py", Symbol: "TASKS_TEST"},
	}
}

// Config is the domain's tauv1 configuration; st holds the troubleshooting
// answers the tools give (loadSteps).
func Config(st *steps) tauv1.Config {
	return tauv1.Config{
		Name:   Name,
		Env:    UpstreamEnv,
		Source: tauv1.TauTrait,
		Tables: []string{"customers", "services", "devices", "billing", "support_tickets"},
		Splits: splits(),
		Tools:  newTools(st),
		Class:  "TelecomTools",
		// env.py's terminate_tools names a tool the environment lacks:
		// nothing terminates.
	}
}

// Load reads the domain's files under a data directory: the data tables,
// wiki.md (the agent's system prompt), rules.py, the task lists and each
// tool's get_info() and the troubleshooting answers from tools/*.py. A
// missing or malformed file is an error naming it; nothing is half-loaded.
func Load(root string) (*Domain, error) {
	st, err := loadSteps(data.TauTraitEnv(root, UpstreamEnv))
	if err != nil {
		return nil, err
	}
	d, err := tauv1.Load(root, Config(&st))
	if err != nil {
		return nil, err
	}
	d.Tasks().Unavailable = map[string]string{"dev": DevUnavailable}
	return &Domain{Domain: d}, nil
}
