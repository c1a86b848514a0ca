package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// encoder writes request bodies for one backbone. The body is built here,
// byte by byte, rather than by the SDK, so that every byte sent is ours:
// temperature 0 is sent (the SDK drops zero values), numbers keep float64
// precision, extra_body keys are merged, message content is null where
// upstream sends None, and the cache key is the hash of exactly the bytes
// sent. Output is deterministic: the same Request gives the same bytes.
type encoder struct {
	model               string
	temperature         *float64
	maxTokens           int
	maxCompletionTokens int
	reasoningEffort     string
	sendReasoning       bool
	extra               []extraField // sorted by key
}

type extraField struct {
	key string
	raw []byte
}

func newEncoder(b Backbone) (*encoder, error) {
	e := &encoder{
		model:               b.Model,
		temperature:         b.Temperature,
		maxTokens:           b.MaxTokens,
		maxCompletionTokens: b.MaxCompletionTokens,
		reasoningEffort:     b.ReasoningEffort,
		sendReasoning:       b.SendReasoning,
	}
	for _, k := range sortedKeys(b.ExtraBody) {
		raw, err := marshalNoHTML(b.ExtraBody[k])
		if err != nil {
			return nil, fmt.Errorf("extra_body.%s: %w", k, err)
		}
		e.extra = append(e.extra, extraField{k, raw})
	}
	return e, nil
}

func marshalNoHTML(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func (e *encoder) overridden(key string) bool {
	for _, f := range e.extra {
		if f.key == key {
			return true
		}
	}
	return false
}

// sizeHint estimates the body size of req, to allocate it once.
func sizeHint(req *Request) int {
	n := 512
	for i := range req.Messages {
		m := &req.Messages[i]
		n += 64 + len(m.Content) + len(m.ReasoningContent) + len(m.ToolCallID)
		for _, tc := range m.ToolCalls {
			n += 96 + len(tc.ID) + len(tc.Name) + 2*len(tc.Arguments)
		}
	}
	for _, t := range req.Tools {
		n += 96 + len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return n + n/8
}

// encode appends the JSON body of req to buf.
func (e *encoder) encode(buf []byte, req *Request) ([]byte, error) {
	b := append(buf, `{"model":`...)
	b = appendString(b, e.model)
	b = append(b, `,"messages":[`...)
	for i := range req.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = e.message(b, &req.Messages[i], req.Dialect); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	b = append(b, ']')
	if len(req.Tools) > 0 {
		b = append(b, `,"tools":[`...)
		for i, t := range req.Tools {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"function","function":{"name":`...)
			b = appendString(b, t.Name)
			b = append(b, `,"description":`...)
			b = appendString(b, t.Description)
			b = append(b, `,"parameters":`...)
			if len(bytes.TrimSpace(t.Parameters)) == 0 {
				b = append(b, `{"type":"object","properties":{}}`...)
			} else {
				b = append(b, t.Parameters...)
			}
			b = append(b, "}}"...)
		}
		b = append(b, ']')
	}
	v1 := req.Dialect == DialectTauBenchV1
	switch tc := req.ToolChoice; {
	case len(req.Tools) == 0, v1 && tc == "":
		// Providers reject tool_choice without tools.
	case tc == "":
		b = append(b, `,"tool_choice":"auto"`...)
	case tc == "auto" || tc == "none" || tc == "required":
		b = append(b, `,"tool_choice":`...)
		b = appendString(b, tc)
	default:
		b = append(b, `,"tool_choice":{"type":"function","function":{"name":`...)
		b = appendString(b, tc)
		b = append(b, "}}"...)
	}
	temp := e.temperature
	if v1 || req.NoTemperature {
		temp = nil
	}
	if req.Temperature != nil {
		temp = req.Temperature
	}
	if temp != nil && !e.overridden("temperature") {
		b = append(b, `,"temperature":`...)
		b = pyjson.AppendFloat(b, *temp)
	}
	if req.Seed != nil && !e.overridden("seed") {
		b = append(b, `,"seed":`...)
		b = strconv.AppendInt(b, int64(*req.Seed), 10)
	}
	if e.maxTokens > 0 && !e.overridden("max_tokens") {
		b = append(b, `,"max_tokens":`...)
		b = strconv.AppendInt(b, int64(e.maxTokens), 10)
	}
	if e.maxCompletionTokens > 0 && !e.overridden("max_completion_tokens") {
		b = append(b, `,"max_completion_tokens":`...)
		b = strconv.AppendInt(b, int64(e.maxCompletionTokens), 10)
	}
	if e.reasoningEffort != "" && !e.overridden("reasoning_effort") {
		b = append(b, `,"reasoning_effort":`...)
		b = appendString(b, e.reasoningEffort)
	}
	for _, f := range e.extra {
		b = append(b, ',')
		b = appendString(b, f.key)
		b = append(b, ':')
		b = append(b, f.raw...)
	}
	return append(b, '}'), nil
}

// message appends one message as upstream's to_litellm_messages
// (src/tau2/utils/llm_utils.py) writes it: system and user {role, content};
// tool {role, content, tool_call_id}; assistant {role, content,
// tool_calls}, content null when a tool-calling message has no text,
// tool_calls null on a text message, each tool call {id, name, type,
// function {name, arguments}} with arguments as json.dumps writes them.
// DialectTauBenchV1 writes assistant messages as τ-Trait does (messageV1).
func (e *encoder) message(b []byte, m *message.Message, dialect Dialect) ([]byte, error) {
	switch m.Role {
	case message.System, message.User:
		// Upstream sends only the text of user messages, even when they
		// carry tool calls (the user simulator flips roles first).
		b = append(b, `{"role":`...)
		b = appendString(b, string(m.Role))
		b = append(b, `,"content":`...)
		b = appendString(b, m.Content)
		return append(b, '}'), nil
	case message.Tool:
		if dialect == DialectTauBenchV1 {
			// {"role": "tool", "tool_call_id", "name", "content"}, as
			// τ-bench v1's ToolCallingAgent appends it.
			b = append(b, `{"role":"tool","tool_call_id":`...)
			b = appendString(b, m.ToolCallID)
			b = append(b, `,"name":`...)
			b = appendString(b, m.Name)
			b = append(b, `,"content":`...)
			b = appendString(b, m.Content)
			return append(b, '}'), nil
		}
		b = append(b, `{"role":"tool","content":`...)
		b = appendString(b, m.Content)
		b = append(b, `,"tool_call_id":`...)
		b = appendString(b, m.ToolCallID)
		return append(b, '}'), nil
	case message.Assistant:
		if dialect == DialectTauBenchV1 {
			return e.messageV1(b, m), nil
		}
		b = append(b, `{"role":"assistant","content":`...)
		if m.Content == "" && len(m.ToolCalls) > 0 && !m.EmptyContent {
			b = append(b, "null"...)
		} else {
			b = appendString(b, m.Content)
		}
		if e.sendReasoning && m.ReasoningContent != "" {
			b = append(b, `,"reasoning_content":`...)
			b = appendString(b, m.ReasoningContent)
		}
		if len(m.ToolCalls) > 0 {
			var scratch []byte
			b = append(b, `,"tool_calls":[`...)
			for i := range m.ToolCalls {
				tc := &m.ToolCalls[i]
				if i > 0 {
					b = append(b, ',')
				}
				// Upstream's to_litellm_messages adds a top-level "name"
				// beside the function's.
				b = append(b, `{"id":`...)
				b = appendString(b, tc.ID)
				b = append(b, `,"name":`...)
				b = appendString(b, tc.Name)
				b = append(b, `,"type":"function","function":{"name":`...)
				b = appendString(b, tc.Name)
				b = append(b, `,"arguments":`...)
				b = appendArguments(b, tc.Arguments, &scratch)
				b = append(b, "}}"...)
			}
			b = append(b, ']')
		} else {
			// to_litellm_messages writes "tool_calls": None for a text
			// message, and it is sent as null.
			b = append(b, `,"tool_calls":null`...)
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("unknown role %q", m.Role)
}

// appendArguments appends the arguments text of a tool call as a JSON
// string. scratch is reused across the calls of one message.
func appendArguments(b []byte, raw json.RawMessage, scratch *[]byte) []byte {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] != '"' && json.Valid(t) {
		if out, ok := appendPyDumps((*scratch)[:0], t); ok {
			*scratch = out
			return appendString(b, string(out))
		}
	}
	return appendString(b, argumentsText(raw))
}

// appendPyDumps rewrites valid JSON the way json.dumps(json.loads(raw))
// writes it, in one pass without building a tree: separators ", " and ": ",
// ASCII-only strings, floats as Python's repr. It reports false for input it
// leaves to the general path (numbers that overflow, "-0"). Duplicate keys
// are written as they come (Python would keep only the last).
func appendPyDumps(b, raw []byte) ([]byte, bool) {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
		case ',':
			b = append(b, ',', ' ')
			i++
		case ':':
			b = append(b, ':', ' ')
			i++
		case '{', '}', '[', ']':
			b = append(b, c)
			i++
		case 't':
			b = append(b, "true"...)
			i += 4
		case 'f':
			b = append(b, "false"...)
			i += 5
		case 'n':
			b = append(b, "null"...)
			i += 4
		case '"':
			var ok bool
			if b, i, ok = appendPyString(b, raw, i); !ok {
				return b, false
			}
		default: // number
			j := i + 1
			for j < len(raw) && strings.IndexByte("0123456789+-.eE", raw[j]) >= 0 {
				j++
			}
			num := raw[i:j]
			if !bytes.ContainsAny(num, ".eE") {
				if bytes.Equal(num, []byte("-0")) {
					return b, false
				}
				b = append(b, num...)
			} else {
				f, err := strconv.ParseFloat(string(num), 64)
				if err != nil {
					return b, false
				}
				b = pyjson.AppendFloat(b, f)
			}
			i = j
		}
	}
	return b, true
}

// appendPyString re-escapes the JSON string starting at raw[i] the way
// Python's json.dumps (ensure_ascii) writes it and returns the index after it.
func appendPyString(b, raw []byte, i int) ([]byte, int, bool) {
	b = append(b, '"')
	i++
	for i < len(raw) {
		c := raw[i]
		switch {
		case c == '"':
			return append(b, '"'), i + 1, true
		case c == '\\':
			if i+1 >= len(raw) {
				return b, i, false
			}
			switch e := raw[i+1]; e {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				b = append(b, '\\', e)
				i += 2
			case '/':
				b = append(b, '/')
				i += 2
			case 'u':
				if i+6 > len(raw) {
					return b, i, false
				}
				u, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
				if err != nil {
					return b, i, false
				}
				b = appendPyUnit(b, rune(u))
				i += 6
			default:
				return b, i, false
			}
		case c < utf8.RuneSelf:
			b = appendPyUnit(b, rune(c))
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r >= 0x10000 {
				r1, r2 := utf16.EncodeRune(r)
				b = appendPyUnit(b, r1)
				b = appendPyUnit(b, r2)
			} else {
				b = appendPyUnit(b, r)
			}
			i += size
		}
	}
	return b, i, false
}

// appendPyUnit writes one UTF-16 code unit as json.dumps (ensure_ascii) does.
func appendPyUnit(b []byte, r rune) []byte {
	switch r {
	case '"':
		return append(b, '\\', '"')
	case '\\':
		return append(b, '\\', '\\')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	}
	if r >= 0x20 && r < 0x7f {
		return append(b, byte(r))
	}
	return append(b, '\\', 'u', hexDigits[(r>>12)&0xf], hexDigits[(r>>8)&0xf], hexDigits[(r>>4)&0xf], hexDigits[r&0xf])
}

// argumentsText is the arguments string sent back for a tool call: upstream
// sends json.dumps(arguments) of the parsed object, so valid JSON is written
// the way Python's json.dumps writes it. A JSON string is what Generate
// stores for malformed arguments: its raw text is sent back as it came.
func argumentsText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "{}"
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			return s
		}
	}
	v, err := pyjson.Decode(raw)
	if err != nil {
		return string(raw)
	}
	out, err := pyjson.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// messageV1 appends an assistant message as τ-bench v1's ToolCallingAgent
// sends its earlier replies back: the provider's message as litellm's
// model_dump() gives it — content (null with tool calls), role, tool_calls
// (null without), function_call null — with the arguments as the model
// wrote them. Provider extras the client does not keep (OpenAI's
// annotations) are not sent.
func (e *encoder) messageV1(b []byte, m *message.Message) []byte {
	b = append(b, `{"content":`...)
	if m.Content == "" && len(m.ToolCalls) > 0 && !m.EmptyContent {
		b = append(b, "null"...)
	} else {
		b = appendString(b, m.Content)
	}
	b = append(b, `,"role":"assistant"`...)
	if e.sendReasoning && m.ReasoningContent != "" {
		b = append(b, `,"reasoning_content":`...)
		b = appendString(b, m.ReasoningContent)
	}
	b = append(b, `,"tool_calls":`...)
	if len(m.ToolCalls) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range m.ToolCalls {
			tc := &m.ToolCalls[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"function":{"arguments":`...)
			b = appendString(b, argumentsAsWritten(tc.Arguments))
			b = append(b, `,"name":`...)
			b = appendString(b, tc.Name)
			b = append(b, `},"id":`...)
			b = appendString(b, tc.ID)
			b = append(b, `,"type":"function"}`...)
		}
		b = append(b, ']')
	}
	return append(b, `,"function_call":null}`...)
}

// argumentsAsWritten is the arguments text of a tool call as the model
// wrote it: ToolCall.Arguments holds valid JSON verbatim, or a JSON string
// holding malformed text (parseArguments).
func argumentsAsWritten(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '"' {
		var s string
		if err := json.Unmarshal(t, &s); err == nil {
			return s
		}
	}
	return string(raw)
}

// parseArguments turns the arguments text of a reply into ToolCall.Arguments:
// valid JSON as it came, blank as {}, anything else as a JSON string holding
// the raw text (ok false).
func parseArguments(s string) (json.RawMessage, bool) {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}"), true
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s), true
	}
	raw, _ := json.Marshal(s)
	return raw, false
}

// appendString writes a JSON string as Python's json.dumps does with
// ensure_ascii=False (the provider receives UTF-8).
func appendString(b []byte, s string) []byte {
	return pyjson.AppendString(b, s, false)
}

const hexDigits = "0123456789abcdef"

// stripThink splits "<think>reasoning</think>answer" (the opening tag may be
// missing when the chat template writes it) into answer and reasoning. The
// reasoning joins any the provider sent separately.
func stripThink(content, reasoning string) (string, string) {
	const closeTag = "</think>"
	i := strings.Index(content, closeTag)
	if i < 0 {
		return content, reasoning
	}
	think := strings.TrimSpace(content[:i])
	think = strings.TrimSpace(strings.TrimPrefix(think, "<think>"))
	answer := strings.TrimLeft(content[i+len(closeTag):], " \t\r\n")
	switch {
	case think == "":
	case reasoning == "":
		reasoning = think
	default:
		reasoning += "\n" + think
	}
	return answer, reasoning
}
