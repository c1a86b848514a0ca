package irma

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
)

// HelperMarker starts the system message of every helper request, so that
// scripted backbones can tell helper calls from agent turns (the offline
// backbones answer them with a fixed text; offline.HelperMarker has the same
// value).
const HelperMarker = "IRMA HELPER"

// FACTInstruction is the follow-up-question-acting paragraph added to the
// baseline instruction, and how to read the reformulated input block.
const FACTInstruction = `Before you act, make sure you know enough to act correctly. When the user's request is ambiguous, or a detail you need is missing (an identifier, a choice between options, a confirmation the policy asks for), ask the user a short follow-up question instead of guessing, and wait for the answer. Ask only for what you need. Call a tool once you have everything the call requires.

At the end of this message, a <reformulated_input> block restates the conversation for your next step: every user message so far (memory), the policy rules that apply now (constraints) and the tools that look relevant (tool suggestions). Helpers prepared the last two and can be wrong: the policy and the conversation itself always prevail.`

// SystemPrompt is the IRMA agent's system message: the baseline's
// (upstream's SYSTEM_PROMPT) with the FACT paragraph added to upstream's
// instruction.
func SystemPrompt(p *baseline.Prompt, policy string) string {
	return p.SystemWith(p.Instruction+"\n\n"+FACTInstruction, policy)
}

// Helper kinds, as written in the report.
const (
	KindConstraints = "constraints"
	KindTools       = "tools"
)

// constraintsSystem instructs the constraints helper.
const constraintsSystem = HelperMarker + ": " + KindConstraints + `
You help a customer service agent. You receive the agent's policy (below) and every message the user has sent so far (the latest last). Write a short checklist of the policy rules that apply to the user's request at this point: conditions the agent must verify, confirmations it must obtain, limits, and actions that are not allowed. One rule per line, starting with "- ", in a few plain words each. Include only rules that matter for this request, at most 10 lines. Do not answer the user and do not call tools.`

// toolsSystem instructs the tool-suggestion helper.
const toolsSystem = HelperMarker + ": " + KindTools + `
You help a customer service agent. You receive the agent's tools (below, JSON schemas, one per line) and every message the user has sent so far (the latest last). List the tools the agent is likely to need for the user's request, in the order it would use them, one per line as "- tool_name: reason", with a one-line reason each. Use only names from the given tools, at most 8 lines. Do not answer the user and do not call tools.`

// noOutput stands for a helper reply without text.
const noOutput = "(none)"

// renderTools writes each tool's schema as one JSON object per line,
// {"name":…,"description":…,"parameters":…}, in the agent's tool order.
// Parameters are written as they are when they fit on one line (the tool
// package makes them compact), else compacted; parameters that are not
// JSON are left out.
func renderTools(tools []tool.Info) string {
	size := 0
	for _, t := range tools {
		size += len(t.Name) + len(t.Description) + len(t.Parameters) + 48
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	for i, t := range tools {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(`{"name":`)
		writeString(b, t.Name)
		b.WriteString(`,"description":`)
		writeString(b, t.Description)
		if p := bytes.TrimSpace(t.Parameters); len(p) > 0 {
			mark := b.Len()
			b.WriteString(`,"parameters":`)
			if bytes.IndexByte(p, '\n') < 0 {
				b.Write(p)
			} else if err := json.Compact(b, p); err != nil {
				b.Truncate(mark)
			}
		}
		b.WriteByte('}')
	}
	return b.String()
}

// writeString writes s as a JSON string (without HTML escaping).
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

// writeUserMessages writes the user's messages verbatim, numbered from 1,
// oldest first.
func writeUserMessages(b *strings.Builder, memory []string) {
	for i, m := range memory {
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString("] ")
		b.WriteString(m)
		b.WriteByte('\n')
	}
}

// userRequest is the user's request as the helpers see it: every user
// message so far.
func userRequest(memory []string) string {
	var b strings.Builder
	b.WriteString("<user_messages>\n")
	writeUserMessages(&b, memory)
	b.WriteString("</user_messages>")
	return b.String()
}

// constraintsSystemFor is the constraints helper's system message: its
// instruction and the domain policy (built once per agent).
func constraintsSystemFor(policy string) string {
	return constraintsSystem + "\n\n<policy>\n" + policy + "\n</policy>"
}

// toolsSystemFor is the tool helper's system message: its instruction and
// the tool schemas rendered by renderTools (built once per agent).
func toolsSystemFor(tools string) string {
	return toolsSystem + "\n\n<tools>\n" + tools + "\n</tools>"
}

// helperMessages is a helper request: its system message (instruction and
// reference text) and the user's request.
func helperMessages(system string, memory []string) []message.Message {
	return []message.Message{
		{Role: message.System, Content: system},
		{Role: message.User, Content: userRequest(memory)},
	}
}

// Block renders the reformulated input that is appended to the agent's
// system message: memory (every user message, verbatim), the constraints
// helper's checklist and the tool helper's suggestions. It starts with a
// newline.
func Block(memory []string, constraints, tools string) string {
	var b strings.Builder
	b.Grow(256 + len(constraints) + len(tools) + 64*len(memory))
	b.WriteString("\n<reformulated_input>\n<memory>\nEvery user message so far, verbatim, oldest first:\n")
	writeUserMessages(&b, memory)
	b.WriteString("</memory>\n<constraints>\nPolicy rules that apply now (from a helper):\n")
	b.WriteString(orNone(constraints))
	b.WriteString("\n</constraints>\n<tool_suggestions>\nTools that look relevant (from a helper):\n")
	b.WriteString(orNone(tools))
	b.WriteString("\n</tool_suggestions>\n</reformulated_input>")
	return b.String()
}

func orNone(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return noOutput
	}
	return s
}
