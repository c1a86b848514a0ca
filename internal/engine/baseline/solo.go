package baseline

// τ²-bench's solo agent (upstream's LLMSoloAgent, --agent llm_agent_solo):
// no user; one system message holding the solo instruction, the domain's
// solo policy and the task's ticket; the agent's tools, the user's tools
// and a `done` tool offered with tool_choice "required"; a reply that calls
// `done` becomes the stop message (content ###STOP###, no tool calls).
//
// Every model-facing text comes from the pulled llm_agent.py at load time:
// AGENT_SOLO_INSTRUCTION and SYSTEM_PROMPT_SOLO (module constants), the
// class constants STOP_FUNCTION_NAME and STOP_TOKEN, and the docstring of
// the `done` function add_stop_tool defines (the tool's description).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// AgentSource returns the path of the upstream file holding the agents'
// model-facing text in a data directory.
func AgentSource(root string) string {
	return filepath.Join(root, data.Tau2, "src", "tau2", "agent", "llm_agent.py")
}

// SoloToolChoice is the tool_choice of every solo request.
const SoloToolChoice = "required"

// doneParameters is the schema pydantic gives the parameters of a function
// without arguments (create_model("parameters").model_json_schema()).
const doneParameters = `{"properties":{},"title":"parameters","type":"object"}`

// Solo is the solo agent's text, extracted from upstream's llm_agent.py.
type Solo struct {
	// Instruction is AGENT_SOLO_INSTRUCTION with the stop function's name
	// filled in.
	Instruction string
	// Template is SYSTEM_PROMPT_SOLO.
	Template string
	// StopTool is the `done` tool; StopToken the stop message's content.
	StopTool  tool.Info
	StopToken string
}

// LoadSolo extracts the solo agent's text from the data directory's
// llm_agent.py. A missing file or symbol is an error naming both.
func LoadSolo(root string) (*Solo, error) {
	path := AgentSource(root)
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("solo agent prompt: %w", err)
	}
	s, err := ParseSolo(src)
	if err != nil {
		return nil, fmt.Errorf("solo agent prompt: %s: %w", path, err)
	}
	return s, nil
}

// ParseSolo extracts the solo agent's text from llm_agent.py's source.
func ParseSolo(src []byte) (*Solo, error) {
	instruction, err := moduleString(src, "AGENT_SOLO_INSTRUCTION")
	if err != nil {
		return nil, err
	}
	template, err := moduleString(src, "SYSTEM_PROMPT_SOLO")
	if err != nil {
		return nil, err
	}
	class, err := classBody(src, "LLMSoloAgent")
	if err != nil {
		return nil, err
	}
	stopName, err := classString(class, "LLMSoloAgent", "STOP_FUNCTION_NAME")
	if err != nil {
		return nil, err
	}
	stopToken, err := classString(class, "LLMSoloAgent", "STOP_TOKEN")
	if err != nil {
		return nil, err
	}
	doc, err := funcDocstring(class, stopName)
	if err != nil {
		return nil, err
	}
	instruction, err = pyFormat(instruction, map[string]string{"stop_function_name": stopName, "stop_token": stopToken})
	if err != nil {
		return nil, fmt.Errorf("AGENT_SOLO_INSTRUCTION: %w", err)
	}
	// Check the template's fields now, so a changed upstream file fails at
	// load time rather than at the first simulation.
	if _, err := pyFormat(template, map[string]string{"agent_instruction": "", "domain_policy": "", "ticket": ""}); err != nil {
		return nil, fmt.Errorf("SYSTEM_PROMPT_SOLO: %w", err)
	}
	return &Solo{
		Instruction: instruction,
		Template:    template,
		StopTool:    tool.Info{Name: stopName, Kind: tool.Generic, Description: doc, Parameters: []byte(doneParameters)},
		StopToken:   stopToken,
	}, nil
}

// SystemPrompt is the solo agent's system message for a policy and a
// ticket.
func (s *Solo) SystemPrompt(policy, ticket string) string {
	out, _ := pyFormat(s.Template, map[string]string{"agent_instruction": s.Instruction, "domain_policy": policy, "ticket": ticket})
	return out // the fields were checked at load time
}

// Tools returns the solo agent's tools: the given ones (the agent's, then
// the user's) followed by the stop tool, as add_stop_tool appends it.
func (s *Solo) Tools(tools []tool.Info) []tool.Info {
	out := make([]tool.Info, 0, len(tools)+1)
	return append(append(out, tools...), s.StopTool)
}

// Options returns baseline options turned into the solo agent's: the solo
// system prompt for the ticket, the tools plus the stop tool, and
// tool_choice "required". opts.Policy must be the solo policy and
// opts.Tools the agent's and the user's tools.
func (s *Solo) Options(opts Options, ticket string) Options {
	opts.SystemPrompt = s.SystemPrompt(opts.Policy, ticket)
	opts.Tools = s.Tools(opts.Tools)
	opts.ToolChoice = SoloToolChoice
	return opts
}

// ErrSoloText is the solo agent's failure on a reply without tool calls
// (upstream raises "LLMSoloAgent only supports tool calls."); the
// simulation ends with agent_error.
var ErrSoloText = errors.New("solo agent: the reply has no tool call")

// SoloAgent gives an agent built with Solo.Options (the baseline, or
// LedgerAgent around it) the solo agent's reply handling: a reply calling
// the stop tool becomes the stop message — content StopToken, no tool
// calls, whatever else it called — and a reply without tool calls is
// ErrSoloText. A reply already holding the stop token without tool calls
// (a recorded stop message played back by the replay backbone) is a stop
// message as it is.
type SoloAgent struct {
	inner orchestrator.Agent
	text  *Solo
}

// NewSoloAgent wraps inner.
func NewSoloAgent(inner orchestrator.Agent, text *Solo) *SoloAgent {
	return &SoloAgent{inner: inner, text: text}
}

// Next plays one solo turn.
func (a *SoloAgent) Next(ctx context.Context, incoming []message.Message) (message.Message, error) {
	msg, err := a.inner.Next(ctx, incoming)
	if err != nil {
		return msg, err
	}
	for _, tc := range msg.ToolCalls {
		if tc.Name == a.text.StopTool.Name {
			msg.Content = a.text.StopToken
			msg.ToolCalls = nil
			return msg, nil
		}
	}
	if !msg.IsToolCall() && !a.IsStop(msg) {
		return message.Message{}, fmt.Errorf("%w (content %.200q)", ErrSoloText, msg.Content)
	}
	return msg, nil
}

// IsStop reports whether m is the stop message (upstream's is_stop: the
// stop token in the content).
func (a *SoloAgent) IsStop(m message.Message) bool {
	return strings.Contains(m.Content, a.text.StopToken)
}

// ModelCalls forwards the inner agent's count.
func (a *SoloAgent) ModelCalls() int {
	if c, ok := a.inner.(interface{ ModelCalls() int }); ok {
		return c.ModelCalls()
	}
	return 0
}

// Report forwards the inner agent's report.
func (a *SoloAgent) Report() any {
	if r, ok := a.inner.(orchestrator.Reporter); ok {
		return r.Report()
	}
	return nil
}

var (
	_ orchestrator.Agent    = (*SoloAgent)(nil)
	_ orchestrator.Stopper  = (*SoloAgent)(nil)
	_ orchestrator.Reporter = (*SoloAgent)(nil)
)

// moduleString is a module-level string constant of a Python source.
func moduleString(src []byte, name string) (string, error) {
	v, err := pyliteral.StringAssignment(src, name)
	if err != nil {
		return "", fmt.Errorf("symbol %s: %w", name, err)
	}
	return v, nil
}

// classBody returns the source of a top-level class: from its class line to
// the next top-level statement (a line starting at column 1 with a name or
// a decorator).
func classBody(src []byte, name string) ([]byte, error) {
	head := regexp.MustCompile(`(?m)^class ` + regexp.QuoteMeta(name) + `\b`)
	loc := head.FindIndex(src)
	if loc == nil {
		return nil, fmt.Errorf("symbol %s: class not found", name)
	}
	body := src[loc[0]:]
	lines := bytes.SplitAfter(body, []byte("\n"))
	n := len(lines[0])
	for _, l := range lines[1:] {
		if len(l) > 0 && (l[0] == '_' || l[0] == '@' || unicode.IsLetter(rune(l[0]))) {
			break
		}
		n += len(l)
	}
	return body[:n], nil
}

// classString is a class-level string constant (NAME = "literal" on its
// own line in the class body).
func classString(class []byte, className, name string) (string, error) {
	re := regexp.MustCompile(`(?m)^[ \t]+` + regexp.QuoteMeta(name) + `[ \t]*=[ \t]*(.+)$`)
	m := re.FindSubmatch(class)
	if m == nil {
		return "", fmt.Errorf("symbol %s.%s: not found", className, name)
	}
	v, err := pyliteral.ParseExpr(m[1])
	if err != nil {
		return "", fmt.Errorf("symbol %s.%s: %w", className, name, err)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("symbol %s.%s: not a string (%T)", className, name, v)
	}
	return s, nil
}

// funcDocstring is the one-line docstring of a function defined in src
// (def NAME(...): followed by a string literal), as upstream's Tool uses
// it for the description: docstring_parser's short description, which for
// a one-line docstring is the stripped text.
func funcDocstring(src []byte, name string) (string, error) {
	def := regexp.MustCompile(`(?m)^[ \t]*def ` + regexp.QuoteMeta(name) + `\([^)]*\)[^:\n]*:[ \t]*\n`)
	loc := def.FindIndex(src)
	if loc == nil {
		return "", fmt.Errorf("symbol %s: function not found", name)
	}
	rest := bytes.TrimLeft(src[loc[1]:], " \t\r\n")
	quote := ""
	for _, q := range []string{`"""`, `'''`} {
		if bytes.HasPrefix(rest, []byte(q)) {
			quote = q
		}
	}
	if quote == "" {
		return "", fmt.Errorf("symbol %s: no docstring", name)
	}
	end := bytes.Index(rest[3:], []byte(quote))
	if end < 0 {
		return "", fmt.Errorf("symbol %s: unterminated docstring", name)
	}
	v, err := pyliteral.ParseExpr(rest[:end+6])
	if err != nil {
		return "", fmt.Errorf("symbol %s: docstring: %w", name, err)
	}
	doc := strings.TrimSpace(v.(string))
	if doc == "" || strings.Contains(doc, "\n") {
		return "", fmt.Errorf("symbol %s: docstring is not one line (only one-line docstrings are supported)", name)
	}
	return doc, nil
}

// pyFormat is Python's str.format with named fields only: {name} is
// replaced, {{ and }} are literal braces; an unknown field or any other
// format syntax is an error.
func pyFormat(tmpl string, fields map[string]string) (string, error) {
	f, err := pyliteral.ParseTemplate(tmpl)
	if err != nil {
		return "", err
	}
	return f.Format(fields)
}
