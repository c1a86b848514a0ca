// Package data locates and fetches the pinned upstream data: the manifest of
// files ledgerbench uses, the data directory, and `ledgerbench data pull`.
//
// A data directory has one folder per upstream repository, laid out like that
// repository: <dir>/tau2-bench/data/tau2/domains/airline/db.json,
// <dir>/tau-trait/tau_trait/envs/telehealth/wiki.md, and so on.
package data

import "path/filepath"

// Repository folder names inside a data directory.
const (
	Tau2     = "tau2-bench"
	TauTrait = "tau-trait"
	TauBench = "tau-bench" // τ-bench v1 (sierra-research/tau-bench)
)

// Tau2Domain is the folder of a τ²-bench domain's files.
func Tau2Domain(root, domain string) string {
	return filepath.Join(root, Tau2, "data", "tau2", "domains", domain)
}

// Tau2UserSim is the folder of τ²-bench's user-simulator guideline files.
func Tau2UserSim(root string) string {
	return filepath.Join(root, Tau2, "data", "tau2", "user_simulator")
}

// Telehealth is the folder of τ-Trait's telehealth files.
func Telehealth(root string) string {
	return filepath.Join(root, TauTrait, "tau_trait", "envs", "telehealth")
}

// TauTraitEnv is the folder of one of τ-Trait's environments
// (tau_trait/envs/<env>: airline, retail, …).
func TauTraitEnv(root, env string) string {
	return filepath.Join(root, TauTrait, "tau_trait", "envs", env)
}

// TauBenchEnv is the folder of one of τ-bench v1's environments
// (tau_bench/envs/<env>: airline, retail).
func TauBenchEnv(root, env string) string {
	return filepath.Join(root, TauBench, "tau_bench", "envs", env)
}

// Tau2Source is a pinned τ²-bench source file holding model-facing text,
// rel relative to the package root src/tau2 (e.g. "agent/llm_agent.py").
func Tau2Source(root, rel string) string {
	return filepath.Join(root, Tau2, "src", "tau2", filepath.FromSlash(rel))
}
