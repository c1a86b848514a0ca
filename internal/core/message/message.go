// Package message defines the conversation records shared by environments,
// agents, user simulators, the evaluator and the results files. The types are
// our own and small; the LLM client converts them at its edge, so transcripts
// and golden files survive SDK changes.
package message

import (
	"encoding/json"
	"strings"
)

// Role names who produced a message.
type Role string

const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
	Tool      Role = "tool"
)

// Requestor names which side asked for a tool call: the agent ("assistant")
// or the simulated user ("user", telecom only).
type Requestor string

const (
	ByAssistant Requestor = "assistant"
	ByUser      Requestor = "user"
)

// ToolCall is one function call proposed by a participant.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Requestor Requestor       `json:"requestor,omitempty"`
}

// Usage counts the tokens one model call consumed (or, summed, several).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
	// CachedTokens are the prompt tokens the provider served from its
	// prompt cache (part of PromptTokens).
	CachedTokens int `json:"cached_tokens,omitempty"`
	// CacheUnknown counts the calls whose usage reported no cached count
	// (ParseUsage): CachedTokens then holds the known part only and the
	// cached share is unknown. Records written before the field existed
	// read as known.
	CacheUnknown int `json:"cache_unknown,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		ReasoningTokens:  u.ReasoningTokens + o.ReasoningTokens,
		CachedTokens:     u.CachedTokens + o.CachedTokens,
		CacheUnknown:     u.CacheUnknown + o.CacheUnknown,
	}
}

// CachedShare is the share of the prompt tokens served from the provider's
// cache; false when some call did not report it, or there were no prompt
// tokens.
func (u Usage) CachedShare() (float64, bool) {
	if u.CacheUnknown > 0 || u.PromptTokens <= 0 {
		return 0, false
	}
	return float64(min(u.CachedTokens, u.PromptTokens)) / float64(u.PromptTokens), true
}

// Total is prompt plus completion tokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Message is one entry of a trajectory. Assistant and user messages carry text
// and/or tool calls; tool messages carry the result of one call.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// EmptyContent marks a tool-calling message whose provider sent
	// content "" rather than null: upstream keeps the value it got and
	// sends "" back on later turns (null otherwise).
	EmptyContent bool `json:"empty_content,omitempty"`
	// ToolCalls is set on assistant and user messages that call tools.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID, Requestor and Error are set on tool messages; Name, the
	// tool's name, on those τ-Trait's loop forms (upstream sends it).
	ToolCallID string    `json:"tool_call_id,omitempty"`
	Name       string    `json:"name,omitempty"`
	Requestor  Requestor `json:"requestor,omitempty"`
	Error      bool      `json:"error,omitempty"`
	// ReasoningContent is the provider's reasoning text (Kimi, GLM, DeepSeek),
	// kept so it can be sent back on later turns.
	ReasoningContent string `json:"reasoning_content,omitempty"`
	// Usage and Cost are set on messages produced by a model call.
	Usage *Usage  `json:"usage,omitempty"`
	Cost  float64 `json:"cost,omitempty"`
	// TurnIdx is the message's position in the trajectory.
	TurnIdx int `json:"turn_idx"`
	// Timestamp is an RFC 3339 time, informational only.
	Timestamp string `json:"timestamp,omitempty"`
}

// HasText reports whether the message has non-blank text, the way upstream
// decides whether a participant message "has content".
func (m Message) HasText() bool { return strings.TrimSpace(m.Content) != "" }

// IsToolCall reports whether the message calls at least one tool.
func (m Message) IsToolCall() bool { return len(m.ToolCalls) > 0 }
