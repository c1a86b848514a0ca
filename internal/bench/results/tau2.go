package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// Tau2File is τ²-bench's results JSON ({timestamp, info, tasks, simulations}).
// Fields ledgerbench does not interpret are kept raw.
type Tau2File struct {
	Timestamp   string            `json:"timestamp"`
	Info        json.RawMessage   `json:"info"`
	Tasks       []json.RawMessage `json:"tasks"`
	Simulations []Tau2Simulation  `json:"simulations"`

	metaFile string   // directory format: its results.json
	simFiles []string // directory format: one file per simulation
}

// Tau2Simulation is one SimulationRun of a τ²-bench results file.
type Tau2Simulation struct {
	ID                string        `json:"id"`
	TaskID            string        `json:"task_id"`
	Timestamp         string        `json:"timestamp,omitempty"`
	StartTime         string        `json:"start_time,omitempty"`
	EndTime           string        `json:"end_time,omitempty"`
	Duration          float64       `json:"duration"`
	TerminationReason string        `json:"termination_reason"`
	AgentCost         *float64      `json:"agent_cost"`
	UserCost          *float64      `json:"user_cost"`
	RewardInfo        *Tau2Reward   `json:"reward_info"`
	Messages          []Tau2Message `json:"messages"`
	Trial             int           `json:"trial"`
	Seed              *int64        `json:"seed"`
}

// Tau2Reward is the part of RewardInfo ledgerbench reads from imports; the
// whole object is kept in Raw.
type Tau2Reward struct {
	Reward float64         `json:"reward"`
	Raw    json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw reward info.
func (r *Tau2Reward) UnmarshalJSON(data []byte) error {
	var p struct {
		Reward *float64 `json:"reward"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	if p.Reward != nil {
		r.Reward = *p.Reward
	}
	r.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON writes the raw reward info back.
func (r Tau2Reward) MarshalJSON() ([]byte, error) {
	if r.Raw != nil {
		return r.Raw, nil
	}
	return json.Marshal(map[string]float64{"reward": r.Reward})
}

// Tau2Message is a message as τ²-bench dumps it.
type Tau2Message struct {
	Role      string          `json:"role"`
	Content   *string         `json:"content"`
	ToolCalls []Tau2ToolCall  `json:"tool_calls"`
	ID        string          `json:"id,omitempty"` // tool messages: the call id
	Requestor string          `json:"requestor,omitempty"`
	Error     *bool           `json:"error,omitempty"`
	TurnIdx   *int            `json:"turn_idx"`
	Timestamp string          `json:"timestamp,omitempty"`
	Cost      *float64        `json:"cost,omitempty"`
	Usage     json.RawMessage `json:"usage,omitempty"`
	Reasoning *string         `json:"reasoning,omitempty"`
}

// Tau2ToolCall is a tool call as τ²-bench dumps it (arguments as an object).
type Tau2ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Requestor string          `json:"requestor"`
}

// ReadTau2 reads a τ²-bench results file: one JSON file, or upstream's
// directory format (Tau2DirPaths).
func ReadTau2(path string) (*Tau2File, error) {
	if meta, sims, ok := Tau2DirPaths(path); ok {
		return readTau2Dir(meta, sims)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var f Tau2File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not a τ²-bench results file: %w", path, errext.JSON(err))
	}
	if f.Simulations == nil {
		return nil, fmt.Errorf("%s: %w: a JSON object without a \"simulations\" list (want a run directory, a τ²-bench results JSON or a τ-bench v1 results list)", path, ErrNotResults)
	}
	return &f, nil
}

// ErrNotResults is wrapped by the readers' error for a JSON file that is
// not a results file (an object without simulations, a list of other
// objects).
var ErrNotResults = errors.New("not a results file")

// Message converts a recorded message to ours.
func (m Tau2Message) Message() message.Message {
	out := message.Message{Role: message.Role(m.Role), Timestamp: m.Timestamp}
	if m.Content != nil {
		out.Content = *m.Content
	}
	out.EmptyContent = m.Content != nil && *m.Content == "" && len(m.ToolCalls) > 0
	if m.TurnIdx != nil {
		out.TurnIdx = *m.TurnIdx
	}
	if m.Cost != nil {
		out.Cost = *m.Cost
	}
	if m.Reasoning != nil {
		out.ReasoningContent = *m.Reasoning
	}
	if len(m.Usage) > 0 && string(m.Usage) != "null" {
		// τ²-bench records prompt and completion tokens only: the cached
		// share of its files is unknown (a file that copies the provider's
		// cached count keeps it).
		if u, err := message.ParseUsage(m.Usage); err == nil {
			out.Usage = &u
		}
	}
	if m.Role == "tool" {
		out.ToolCallID = m.ID
		out.Requestor = message.Requestor(m.Requestor)
		if m.Error != nil {
			out.Error = *m.Error
		} else {
			// Some recordings omit the flag; upstream sets it exactly when
			// the content is an exception text.
			out.Error = strings.HasPrefix(out.Content, "Error: ")
		}
	}
	for _, tc := range m.ToolCalls {
		req := message.Requestor(tc.Requestor)
		if req == "" {
			req = message.Requestor(m.Role)
		}
		args := tc.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		out.ToolCalls = append(out.ToolCalls, message.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: args, Requestor: req})
	}
	return out
}

// Trajectory converts a recorded simulation's messages.
func (s Tau2Simulation) Trajectory() []message.Message {
	out := make([]message.Message, len(s.Messages))
	for i, m := range s.Messages {
		out[i] = m.Message()
	}
	return out
}
