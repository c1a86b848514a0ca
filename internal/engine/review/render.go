package review

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Conversation renders messages as upstream's MarkdownDisplay.display_messages
// (src/tau2/utils/display.py): each message a block, blocks apart by a blank
// line. A block is "[TURN i] **role**:" then the text when there is any, then
// each tool call as "**Tool Call**: name" and its arguments in a json code
// fence (json.dumps indent=2); a tool message's block is "**tool**:" (or
// "**tool (Error)**:"), the requestor line, and the content in a code fence.
func Conversation(msgs []message.Message) string {
	var b strings.Builder
	for i := range msgs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		writeMessage(&b, &msgs[i])
	}
	return b.String()
}

func writeMessage(b *strings.Builder, m *message.Message) {
	b.WriteString("[TURN ")
	b.WriteString(strconv.Itoa(m.TurnIdx))
	b.WriteString("] ")
	switch m.Role {
	case message.Tool:
		b.WriteString("**tool")
		if m.Error {
			b.WriteString(" (Error)")
		}
		b.WriteString("**:\n")
		// Upstream's spelling, a fact of the prompt.
		b.WriteString("Reponse to: ")
		b.WriteString(string(requestor(m)))
		if m.Content != "" {
			b.WriteString("\n```\n")
			b.WriteString(m.Content)
			b.WriteString("\n```")
		}
	default: // assistant, user, system
		b.WriteString("**")
		b.WriteString(string(m.Role))
		b.WriteString("**:")
		if m.Content != "" {
			b.WriteByte('\n')
			b.WriteString(m.Content)
		}
		if m.Role == message.System {
			return
		}
		for _, tc := range m.ToolCalls {
			b.WriteString("\n**Tool Call**: ")
			b.WriteString(tc.Name)
			b.WriteString("\n```json\n")
			b.WriteString(indentJSON(tc.Arguments))
			b.WriteString("\n```")
		}
	}
}

// requestor is a tool message's requestor ("assistant" when unset, as
// upstream's default).
func requestor(m *message.Message) message.Requestor {
	if m.Requestor == "" {
		return message.ByAssistant
	}
	return m.Requestor
}

// indentJSON is json.dumps(value, indent=2) of a JSON value; text that does
// not decode (a malformed argument string kept raw) is dumped as a string.
func indentJSON(raw json.RawMessage) string {
	v, err := pyjson.Decode(raw)
	if err != nil {
		v = string(raw)
	}
	out, err := pyjson.MarshalOptions(v, pyjson.Options{Indent: 2})
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// UserVisible is the part of a trajectory the user simulator saw, as
// upstream's UserOnlyReviewer.make_user_visible_trajectory keeps it: user
// messages, tool messages answering the user, and assistant messages, a
// tool-calling one without its calls and only when it has content (a null
// content drops it; "" keeps it).
func UserVisible(msgs []message.Message) []message.Message {
	var out []message.Message
	for _, m := range msgs {
		switch m.Role {
		case message.User:
			out = append(out, m)
		case message.Tool:
			if m.Requestor == message.ByUser {
				out = append(out, m)
			}
		case message.Assistant:
			if m.IsToolCall() {
				if m.Content == "" && !m.EmptyContent {
					continue
				}
				m.ToolCalls = nil
			}
			out = append(out, m)
		}
	}
	return out
}

// Actions renders a task's gold actions as upstream's
// MarkdownDisplay.display_actions: the model dump of each action (action_id,
// requestor, name, arguments, info, compare_args) as a json.dumps(indent=2)
// list in a json code fence.
func Actions(actions []tasks.Action) string {
	list := make([]any, len(actions))
	for i, a := range actions {
		d := &pyjson.Dict{}
		d.Set("action_id", a.ActionID)
		d.Set("requestor", a.By())
		d.Set("name", a.Name)
		var args any = &pyjson.Dict{}
		if len(a.Arguments) > 0 {
			if v, err := pyjson.Decode(a.Arguments); err == nil {
				args = v
			}
		}
		d.Set("arguments", args)
		if a.Info != nil {
			d.Set("info", *a.Info)
		} else {
			d.Set("info", nil)
		}
		if a.CompareArgs != nil {
			cs := make([]any, len(*a.CompareArgs))
			for j, c := range *a.CompareArgs {
				cs[j] = c
			}
			d.Set("compare_args", cs)
		} else {
			d.Set("compare_args", nil)
		}
		list[i] = d
	}
	out, err := pyjson.MarshalOptions(list, pyjson.Options{Indent: 2})
	if err != nil {
		out = []byte("[]")
	}
	return "```json\n" + string(out) + "\n```"
}

// assertions is upstream's `nl_assertions or ""` formatted with str(): the
// Python list's repr, or "" for none.
func assertions(c *tasks.EvaluationCriteria) string {
	if c == nil || len(c.NLAssertions) == 0 {
		return ""
	}
	return pyjson.Repr(c.NLAssertions)
}

// Tau2Messages are a recorded τ²-bench simulation's messages as upstream's
// reviewer reads them: the import's (results.Tau2Simulation.Trajectory), but
// a tool message's error flag as recorded, false when the recording omits it
// (upstream's default; the import infers it from the text for scoring).
func Tau2Messages(s results.Tau2Simulation) []message.Message {
	msgs := s.Trajectory()
	for i, m := range s.Messages {
		if msgs[i].Role == message.Tool {
			msgs[i].Error = m.Error != nil && *m.Error
		}
	}
	return msgs
}
