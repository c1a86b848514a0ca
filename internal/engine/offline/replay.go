package offline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
)

// Recording is a loaded τ²-bench results file (or τ-bench v1 / τ-Trait
// results list) for the replay backbone. It is immutable and shared by the
// simulations of a run.
type Recording struct {
	Path string
	sims map[recKey]*results.Tau2Simulation
	// trajs holds the trajectories of a v1 results list (replayv1.go).
	trajs map[recKey][]message.Message
	keys  []recKey
}

type recKey struct {
	task  string
	trial int
}

// LoadRecording reads a τ²-bench results file or a τ-bench v1 / τ-Trait
// results list.
func LoadRecording(path string) (*Recording, error) {
	if r, ok, err := loadV1Recording(path); ok || err != nil {
		return r, err
	}
	f, err := results.ReadTau2(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	r := &Recording{Path: path, sims: map[recKey]*results.Tau2Simulation{}}
	for i := range f.Simulations {
		s := &f.Simulations[i]
		k := recKey{s.TaskID, s.Trial}
		if _, dup := r.sims[k]; dup {
			continue // the first recording of a unit wins
		}
		r.sims[k] = s
		r.keys = append(r.keys, k)
	}
	if len(r.sims) == 0 {
		return nil, fmt.Errorf("replay: %s has no simulations", path)
	}
	return r, nil
}

// TaskIDs lists the recorded task ids in file order, without repeats.
func (r *Recording) TaskIDs() []string {
	var out []string
	for _, k := range r.keys {
		if !slices.Contains(out, k.task) {
			out = append(out, k.task)
		}
	}
	return out
}

// Simulation returns the recorded simulation of a task and trial.
func (r *Recording) Simulation(taskID string, trial int) (*results.Tau2Simulation, error) {
	if s, ok := r.sims[recKey{taskID, trial}]; ok {
		return s, nil
	}
	var trials []string
	for _, k := range r.keys {
		if k.task == taskID {
			trials = append(trials, fmt.Sprint(k.trial))
		}
	}
	if len(trials) == 0 {
		return nil, fmt.Errorf("replay %s: task %q was not recorded", r.Path, taskID)
	}
	return nil, fmt.Errorf("replay %s: task %q has no trial %d (recorded trials: %s)", r.Path, taskID, trial, strings.Join(trials, ", "))
}

// Player replays one side of a recorded simulation: each Generate returns
// the side's next recorded message (text and tool calls with their recorded
// ids), whatever the request (IRMA helper requests aside: see HelperMarker).
// The agent side skips the recorded greeting (a first assistant message
// without tool calls), which the orchestrator sends itself.
type Player struct {
	role message.Role
	path string

	mu   sync.Mutex
	msgs []message.Message
	next int
}

// ErrExhausted is returned when a side has no recorded turn left: the live
// conversation went further than the recording (an agent_error or
// user_error, not an infrastructure failure).
var ErrExhausted = errors.New("replay: no recorded turn left")

// Agent returns a player of the recorded assistant turns.
func (r *Recording) Agent(taskID string, trial int) (*Player, error) {
	return r.player(taskID, trial, message.Assistant)
}

// User returns a player of the recorded user turns.
func (r *Recording) User(taskID string, trial int) (*Player, error) {
	return r.player(taskID, trial, message.User)
}

func (r *Recording) player(taskID string, trial int, role message.Role) (*Player, error) {
	var traj []message.Message
	if t, ok := r.trajs[recKey{taskID, trial}]; ok {
		traj = t
	} else {
		s, err := r.Simulation(taskID, trial)
		if err != nil {
			return nil, err
		}
		traj = s.Trajectory()
	}
	p := &Player{role: role, path: r.Path}
	for i, m := range traj {
		if m.Role != role {
			continue
		}
		if i == 0 && role == message.Assistant && !m.IsToolCall() {
			continue
		}
		p.msgs = append(p.msgs, message.Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ReasoningContent: m.ReasoningContent})
	}
	return p, nil
}

// Len is the number of recorded turns.
func (p *Player) Len() int { return len(p.msgs) }

// Generate returns the next recorded turn (IRMA's helper requests get
// HelperReply and play no turn).
func (p *Player) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctxErr(ctx); err != nil {
		return llm.Response{}, err
	}
	if helperRequest(req) {
		return text(HelperReply), nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next >= len(p.msgs) {
		return llm.Response{}, fmt.Errorf("%w (%s side, %d turns recorded in %s)", ErrExhausted, p.role, len(p.msgs), p.path)
	}
	m := p.msgs[p.next]
	p.next++
	return reply(m), nil
}

// PlayerReport is what a player reports.
type PlayerReport struct {
	Backbone string `json:"backbone"`
	File     string `json:"file"`
	Recorded int    `json:"recorded_turns"`
	Played   int    `json:"played_turns"`
}

// Report returns the player's report.
func (p *Player) Report() any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return PlayerReport{Backbone: string(Replay), File: p.path, Recorded: len(p.msgs), Played: p.next}
}
