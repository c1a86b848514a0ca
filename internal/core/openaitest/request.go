package openaitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
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
// the body. The body is checked once (json.Valid), then split in one pass
// (pyjson.Object) and each key's value decoded on its own: the fake decodes
// every request of every test, so this is a hot path of the test suites.
func decodeRequest(body []byte) (Request, error) {
	req := Request{Body: body}
	if err := checkObject(body); err != nil {
		return req, err
	}
	err := pyjson.Object(body, func(k string, v []byte) error {
		req.Keys = append(req.Keys, k)
		var err error
		switch k {
		case "model":
			err = json.Unmarshal(v, &req.Model)
		case "messages":
			req.Messages, err = decodeMessages(v)
		case "tools":
			var ts []wireTool
			if err = json.Unmarshal(v, &ts); err == nil {
				req.Tools = nil
				for _, t := range ts {
					req.Tools = append(req.Tools, Tool{Type: t.Type, Name: t.Function.Name,
						Description: t.Function.Description, Parameters: t.Function.Parameters})
				}
			}
		case "tool_choice":
			req.ToolChoice = json.RawMessage(v)
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
			return fmt.Errorf("%s: %w", k, err)
		}
		return nil
	})
	return req, err
}

// decodeMessages decodes the messages array of a valid body.
func decodeMessages(raw []byte) ([]Message, error) {
	out := []Message{}
	err := pyjson.Array(raw, func(i int, r []byte) error {
		var w wireMessage
		if err := json.Unmarshal(r, &w); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		keys, err := keysOf(r)
		if err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		m := Message{Role: w.Role, ReasoningContent: w.ReasoningContent, ToolCallID: w.ToolCallID, Keys: keys}
		if len(w.Content) > 0 && !bytes.Equal(w.Content, []byte("null")) {
			var s string
			if err := json.Unmarshal(w.Content, &s); err != nil {
				return fmt.Errorf("message %d: content is not a string: %w", i, err)
			}
			m.Content = &s
		}
		for _, tc := range w.ToolCalls {
			if tc.Type != "function" {
				return fmt.Errorf("message %d: tool call type %q", i, tc.Type)
			}
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkObject reports whether b is valid JSON holding an object.
func checkObject(b []byte) error {
	if !json.Valid(b) {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		return errors.New("invalid JSON")
	}
	if b = bytes.TrimLeft(b, " \t\r\n"); len(b) == 0 || b[0] != '{' {
		return errors.New("not a JSON object")
	}
	return nil
}

// objectKeys lists the top-level keys of a JSON object in order.
func objectKeys(b []byte) ([]string, error) {
	if err := checkObject(b); err != nil {
		return nil, err
	}
	return keysOf(b)
}

// keysOf is objectKeys for a value already known to be valid JSON.
func keysOf(b []byte) ([]string, error) {
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	var keys []string
	err := pyjson.Object(b, func(k string, _ []byte) error {
		keys = append(keys, k)
		return nil
	})
	return keys, err
}
