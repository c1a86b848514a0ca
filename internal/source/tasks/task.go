// Package tasks is the τ²-bench task model: the task schema, strict loading
// with errors that name the file, the task and the field, splits, and the
// selection flags every command shares.
package tasks

import (
	"encoding/json"
	"strings"
)

// RewardType is one component of the reward.
type RewardType string

const (
	RewardDB           RewardType = "DB"
	RewardEnvAssertion RewardType = "ENV_ASSERTION"
	RewardNLAssertion  RewardType = "NL_ASSERTION"
	RewardAction       RewardType = "ACTION"
	RewardCommunicate  RewardType = "COMMUNICATE"
)

// Valid reports whether r is a known reward type.
func (r RewardType) Valid() bool {
	switch r {
	case RewardDB, RewardEnvAssertion, RewardNLAssertion, RewardAction, RewardCommunicate:
		return true
	}
	return false
}

// Task is one benchmark task.
type Task struct {
	ID                 string              `json:"id"`
	Description        *Description        `json:"description,omitempty"`
	UserScenario       UserScenario        `json:"user_scenario"`
	Ticket             *string             `json:"ticket,omitempty"`
	InitialState       *InitialState       `json:"initial_state,omitempty"`
	EvaluationCriteria *EvaluationCriteria `json:"evaluation_criteria,omitempty"`
	Issues             json.RawMessage     `json:"issues,omitempty"`
	RequiredDocuments  []string            `json:"required_documents,omitempty"`
	UserTools          []string            `json:"user_tools,omitempty"`
	Annotations        json.RawMessage     `json:"annotations,omitempty"`
}

// Description documents a task; upstream ignores keys it does not know, and
// so do we.
type Description struct {
	Purpose          *string `json:"purpose"`
	RelevantPolicies *string `json:"relevant_policies"`
	Notes            *string `json:"notes"`
}

// UserScenario is what the simulated user knows and wants.
type UserScenario struct {
	Persona      *string      `json:"persona"`
	Instructions Instructions `json:"instructions"`
}

// Instructions are either free text or structured instructions.
type Instructions struct {
	Text       string
	Structured *StructuredInstructions
}

// StructuredInstructions are τ²-bench's structured user instructions.
type StructuredInstructions struct {
	Domain           string  `json:"domain"`
	ReasonForCall    string  `json:"reason_for_call"`
	KnownInfo        *string `json:"known_info"`
	UnknownInfo      *string `json:"unknown_info"`
	TaskInstructions string  `json:"task_instructions"`
}

// InitialState sets up the environment before the conversation.
type InitialState struct {
	InitializationData    *InitializationData `json:"initialization_data"`
	InitializationActions []EnvFunctionCall   `json:"initialization_actions"`
	// MessageHistory is kept as upstream wrote it; no shipped task uses it.
	MessageHistory []json.RawMessage `json:"message_history"`
}

// InitializationData patches the databases (recursive dict merge). Keys
// other than agent_data and user_data are ignored, as upstream's model
// (a plain pydantic BaseModel) ignores them: two banking_knowledge tasks
// put their data under such keys, and upstream applies none of it.
type InitializationData struct {
	AgentData json.RawMessage `json:"agent_data"`
	UserData  json.RawMessage `json:"user_data"`
}

// UnmarshalJSON reads agent_data and user_data and ignores other keys.
func (d *InitializationData) UnmarshalJSON(b []byte) error {
	var raw struct {
		AgentData json.RawMessage `json:"agent_data"`
		UserData  json.RawMessage `json:"user_data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*d = InitializationData(raw)
	return nil
}

// EnvFunctionCall calls an environment function by name on one side.
type EnvFunctionCall struct {
	EnvType   string          `json:"env_type"`
	FuncName  string          `json:"func_name"`
	Arguments json.RawMessage `json:"arguments"`
}

// EnvAssertion is an environment function that must return AssertValue.
type EnvAssertion struct {
	EnvType     string          `json:"env_type"`
	FuncName    string          `json:"func_name"`
	Arguments   json.RawMessage `json:"arguments"`
	AssertValue *bool           `json:"assert_value,omitempty"`
	Message     *string         `json:"message"`
}

// Expected is the value the assertion must return (default true).
func (a EnvAssertion) Expected() bool { return a.AssertValue == nil || *a.AssertValue }

// Action is a gold tool call.
type Action struct {
	ActionID    string          `json:"action_id"`
	Requestor   string          `json:"requestor,omitempty"`
	Name        string          `json:"name"`
	Arguments   json.RawMessage `json:"arguments"`
	Info        *string         `json:"info"`
	CompareArgs *[]string       `json:"compare_args,omitempty"`
}

// By returns the action's requestor ("assistant" by default).
func (a Action) By() string {
	if a.Requestor == "" {
		return "assistant"
	}
	return a.Requestor
}

// EvaluationCriteria say how a simulation is scored.
type EvaluationCriteria struct {
	Actions         []Action       `json:"actions"`
	EnvAssertions   []EnvAssertion `json:"env_assertions"`
	CommunicateInfo []string       `json:"communicate_info"`
	NLAssertions    []string       `json:"nl_assertions"`
	RewardBasis     []RewardType   `json:"reward_basis"`
}

// Basis returns the reward basis (default DB and COMMUNICATE).
func (c *EvaluationCriteria) Basis() []RewardType {
	if c == nil || c.RewardBasis == nil {
		return []RewardType{RewardDB, RewardCommunicate}
	}
	return c.RewardBasis
}

// HasBasis reports whether r is in the basis.
func (c *EvaluationCriteria) HasBasis(r RewardType) bool {
	for _, b := range c.Basis() {
		if b == r {
			return true
		}
	}
	return false
}

// GoldActions returns the gold actions (nil-safe).
func (t *Task) GoldActions() []Action {
	if t.EvaluationCriteria == nil {
		return nil
	}
	return t.EvaluationCriteria.Actions
}

// InitActions returns the initialization actions (nil-safe).
func (t *Task) InitActions() []EnvFunctionCall {
	if t.InitialState == nil {
		return nil
	}
	return t.InitialState.InitializationActions
}

// String renders the scenario as upstream's str(UserScenario) does; it is the
// scenario text of the user simulator's prompt.
func (s UserScenario) String() string {
	var b strings.Builder
	if s.Persona != nil {
		b.WriteString("Persona:\n")
		b.WriteString(indent(*s.Persona))
		b.WriteString("\n")
	}
	b.WriteString("Instructions:\n")
	b.WriteString(indent(s.Instructions.String()))
	return b.String()
}

// String renders instructions as upstream's str() does.
func (i Instructions) String() string {
	if i.Structured == nil {
		return i.Text
	}
	s := i.Structured
	var b strings.Builder
	b.WriteString("Domain: " + s.Domain + "\n")
	b.WriteString("Reason for call:\n" + indent(s.ReasonForCall) + "\n")
	if s.KnownInfo != nil {
		b.WriteString("Known info:\n" + indent(*s.KnownInfo) + "\n")
	}
	if s.UnknownInfo != nil {
		b.WriteString("Unknown info:\n" + indent(*s.UnknownInfo) + "\n")
	}
	b.WriteString("Task instructions:\n" + indent(s.TaskInstructions))
	return b.String()
}

// indent is Python's textwrap.indent(text, "\t"): lines that are blank or
// whitespace-only are not prefixed.
func indent(text string) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			b.WriteByte('\t')
		}
		b.WriteString(l)
	}
	return b.String()
}
