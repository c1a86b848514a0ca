package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Request is one decoded chat completion request.
type Request struct {
	Model    string
	Messages []Message
	Tools    []Tool
	// ToolChoice is the raw tool_choice value (nil when absent).
	ToolChoice json.RawMessage
	// Temperature, Seed, MaxTokens and MaxCompletionTokens are nil when the
	// key is absent.
	Temperature         *float64
	Seed                *int
	MaxTokens           *int
	MaxCompletionTokens *int
	ReasoningEffort     string
	// Extra holds every other top-level key (extra_body fields).
	Extra map[string]json.RawMessage
	// Keys lists the top-level keys in the order they were sent.
	Keys []string
	// Body is the request body as received.
	Body []byte
	// Header is the request's headers (including Authorization).
	Header http.Header
	Path   string
	// Received is when the request arrived; OverLimit marks one answered
	// with a 429 for the server's Limits.
	Received  time.Time
	OverLimit bool
}

// Message is one request message.
type Message struct {
	Role string
	// Content is nil when the key is absent or null.
	Content          *string
	ReasoningContent string
	ToolCalls        []ToolCall
	ToolCallID       string
	// Keys lists the message's keys in the order they were sent.
	Keys []string
}

// Text is the content, "" when absent.
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// Tool is one tool definition of a request.
type Tool struct {
	Type        string
	Name        string
	Description string
	Parameters  json.RawMessage
}

// LastMessage is the request's last message (zero if none).
func (r *Request) LastMessage() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

type wireMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// decodeRequest decodes a body; on error the returned Request still carries
// the body.
func decodeRequest(body []byte) (Request, error) {
	req := Request{Body: body}
	keys, err := objectKeys(body)
	if err != nil {
		return req, err
	}
	req.Keys = keys
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return req, err
	}
	for k, v := range top {
		var err error
		switch k {
		case "model":
			err = json.Unmarshal(v, &req.Model)
		case "messages":
			var ms []json.RawMessage
			if err = json.Unmarshal(v, &ms); err == nil {
				req.Messages, err = decodeMessages(ms)
			}
		case "tools":
			var ts []wireTool
			if err = json.Unmarshal(v, &ts); err == nil {
				for _, t := range ts {
					req.Tools = append(req.Tools, Tool{Type: t.Type, Name: t.Function.Name,
						Description: t.Function.Description, Parameters: t.Function.Parameters})
				}
			}
		case "tool_choice":
			req.ToolChoice = v
		case "temperature":
			err = json.Unmarshal(v, &req.Temperature)
		case "seed":
			err = json.Unmarshal(v, &req.Seed)
		case "max_tokens":
			err = json.Unmarshal(v, &req.MaxTokens)
		case "max_completion_tokens":
			err = json.Unmarshal(v, &req.MaxCompletionTokens)
		case "reasoning_effort":
			err = json.Unmarshal(v, &req.ReasoningEffort)
		default:
			if req.Extra == nil {
				req.Extra = map[string]json.RawMessage{}
			}
			req.Extra[k] = v
		}
		if err != nil {
			return req, fmt.Errorf("%s: %w", k, err)
		}
	}
	return req, nil
}

func decodeMessages(raw []json.RawMessage) ([]Message, error) {
	out := make([]Message, 0, len(raw))
	for i, r := range raw {
		var w wireMessage
		if err := json.Unmarshal(r, &w); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		keys, err := objectKeys(r)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		m := Message{Role: w.Role, ReasoningContent: w.ReasoningContent, ToolCallID: w.ToolCallID, Keys: keys}
		if len(w.Content) > 0 && !bytes.Equal(w.Content, []byte("null")) {
			var s string
			if err := json.Unmarshal(w.Content, &s); err != nil {
				return nil, fmt.Errorf("message %d: content is not a string: %w", i, err)
			}
			m.Content = &s
		}
		for _, tc := range w.ToolCalls {
			if tc.Type != "function" {
				return nil, fmt.Errorf("message %d: tool call type %q", i, tc.Type)
			}
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		out = append(out, m)
	}
	return out, nil
}

// objectKeys lists the top-level keys of a JSON object in order.
func objectKeys(b []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
