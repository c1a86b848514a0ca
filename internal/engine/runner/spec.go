// Package runner schedules simulations: every (task, trial) is a unit of
// work, units run concurrently under one global limit, and each finished
// record is appended to the run's results at once.
package runner

import (
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Spec describes one unit of work: what an agent or user maker needs to build
// the participants of one simulation.
type Spec struct {
	Domain envs.Domain
	Task   *tasks.Task
	Trial  int
	Seed   int64
}

// Makers build the participants of each simulation. They are called once per
// unit, concurrently; each returned participant belongs to one simulation.
type Makers struct {
	Agent func(Spec) (orchestrator.Agent, error)
	User  func(Spec) (orchestrator.User, error)
	// PromptHashes optionally names the prompts the makers use (e.g.
	// "agent_system", "user_system") with a hash of each, for the run's
	// manifest. Nil is fine.
	PromptHashes map[string]string
	// Prompts is results.PromptsUpstream when every text the participants
	// are shown is upstream's own, else results.PromptsModified ("" when
	// unknown).
	Prompts string
	// Greeting is the agent's fixed first message of every conversation
	// (orchestrator.Config.Greeting).
	Greeting string
	// Loop is the conversation loop of every simulation (nil: the one
	// Config.Sim names, by default τ²-bench's).
	Loop orchestrator.Loop
	// LoopName labels the loop for the manifest ("tau2", "tau-trait").
	LoopName string
}
