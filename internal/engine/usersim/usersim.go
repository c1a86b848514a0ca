// Package usersim simulates the user side of a conversation with a model:
//
//   - Simulator is τ²-bench's user simulator (src/tau2/user/user_simulator.py): a system
//     prompt made of the global simulation guidelines (read from the pulled
//     data) and the task's scenario in <scenario> tags; the conversation is
//     sent with roles flipped (the simulated user speaks as "assistant");
//     telecom users call their own phone tools, with requestor "user".
//   - Trait is τ-Trait's user simulator for telehealth (tau_trait/envs/user.py):
//     a different prompt and message flow, and user traits
//     (impatience, confusion, skeptical, incoherence at low, medium or high)
//     applied either by τ-Trait's hosted steering endpoint (faithful) or by a
//     prompt-based approximation on an ordinary chat model (ours; upstream
//     ignores traits for ordinary models).
//
// The orchestrator decides when the user stops (###STOP###, ###TRANSFER###,
// ###OUT-OF-SCOPE###; orchestrator.IsUserStop).
package usersim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Generator makes one model call (*llm.Client and the offline backbones).
type Generator interface {
	Generate(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Guideline file names in the data directory's user-simulator folder.
const (
	GuidelinesFile      = "simulation_guidelines.md"
	GuidelinesToolsFile = "simulation_guidelines_tools.md"
)

// Source is the upstream file (relative to src/tau2) holding the user
// simulator's system-prompt template, and the template's symbol.
const (
	Source         = "user/user_simulator.py"
	templateSymbol = "SYSTEM_PROMPT"
)

// personaPlaceholder is replaced by runtime persona text (none by default).
const personaPlaceholder = "<PERSONA_GUIDELINES>"

// Prompt is τ²-bench's user-simulator text, read from the pulled upstream
// files by LoadPrompt: the SYSTEM_PROMPT template of user_simulator.py and
// the two global guideline files.
type Prompt struct {
	// template has the fields global_user_sim_guidelines_with_persona and
	// instructions.
	template pyliteral.FString
	// Guidelines and GuidelinesTools are the guideline files (the latter
	// for users with tools).
	Guidelines, GuidelinesTools string
}

// NewPrompt builds a prompt from a SYSTEM_PROMPT-style template (a Python
// str.format template with the fields global_user_sim_guidelines_with_persona
// and instructions) and the two guideline texts.
func NewPrompt(template, guidelines, guidelinesTools string) (*Prompt, error) {
	t, err := pyliteral.ParseTemplate(template)
	if err == nil {
		err = t.Check("global_user_sim_guidelines_with_persona", "instructions")
	}
	if err != nil {
		return nil, err
	}
	return &Prompt{template: t, Guidelines: guidelines, GuidelinesTools: guidelinesTools}, nil
}

// LoadPrompt reads the user simulator's text from a data directory. A
// missing file or symbol is an error naming both.
func LoadPrompt(root string) (*Prompt, error) {
	path := data.Tau2Source(root, Source)
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("user simulator prompt: %w", err)
	}
	var p *Prompt
	tmpl, err := pyliteral.StringAssignment(src, templateSymbol)
	if err == nil {
		p, err = NewPrompt(tmpl, "", "")
	}
	if err != nil {
		return nil, fmt.Errorf("user simulator prompt: %s: %s: %w", path, templateSymbol, err)
	}
	if p.Guidelines, err = LoadGuidelines(root, false); err != nil {
		return nil, err
	}
	if p.GuidelinesTools, err = LoadGuidelines(root, true); err != nil {
		return nil, err
	}
	return p, nil
}

// System is the user simulator's system message as UserSimulator's
// system_prompt builds it: the guidelines (the tools variant when the user
// has tools) with the persona placeholder replaced, and the scenario,
// filled into SYSTEM_PROMPT.
func (p *Prompt) System(withTools bool, persona, scenario string) string {
	g := p.Guidelines
	if withTools {
		g = p.GuidelinesTools
	}
	if persona != "" {
		persona = "\n\n" + persona + "\n"
	}
	g = strings.ReplaceAll(g, personaPlaceholder, persona)
	s, _ := p.template.Format(map[string]string{"global_user_sim_guidelines_with_persona": g, "instructions": scenario})
	return s // fields were checked by LoadPrompt
}

// Texts returns every model-facing text of the prompt by name (for the
// run manifest's hashes).
func (p *Prompt) Texts() map[string]string {
	tmpl, _ := p.template.Format(map[string]string{"global_user_sim_guidelines_with_persona": "{global_user_sim_guidelines_with_persona}", "instructions": "{instructions}"})
	return map[string]string{"user_system_template": tmpl, "user_guidelines": p.Guidelines, "user_guidelines_tools": p.GuidelinesTools}
}

// LoadGuidelines reads τ²-bench's global simulation guidelines from a data
// directory: the tools variant when the user has tools.
func LoadGuidelines(root string, withTools bool) (string, error) {
	name := GuidelinesFile
	if withTools {
		name = GuidelinesToolsFile
	}
	path := filepath.Join(data.Tau2UserSim(root), name)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("user simulator guidelines: %w", err)
	}
	return string(b), nil
}

// UserTools returns the tools of a task's simulated user: the domain's user
// tools, restricted to task.UserTools when the task names them (upstream's
// get_user_tools(include=...)); nil when there are none.
func UserTools(all []tool.Info, task *tasks.Task) []tool.Info {
	if len(all) == 0 {
		return nil
	}
	if task == nil || task.UserTools == nil {
		return all
	}
	var out []tool.Info
	for _, t := range all {
		for _, n := range task.UserTools {
			if t.Name == n {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// Options configure a τ²-bench user simulator.
type Options struct {
	// System is the system message (Prompt.System).
	System string
	// Tools are the user's own tools (telecom); nil for none.
	Tools []tool.Info
	// Seed is sent with every call; nil sends none.
	Seed *int
	// Temperature overrides the backbone's (upstream: 0.0, which
	// backbones.yaml sets); nil keeps it.
	Temperature *float64
}

// Simulator is one conversation's τ²-bench user simulator.
type Simulator struct {
	gen    Generator
	system message.Message
	tools  []tool.Info
	seed   *int
	temp   *float64

	// msgs is the user's view in original roles: agent text messages, the
	// user's own messages, and the results of the user's tool calls.
	msgs []message.Message
	// flipped is the request's conversation: msgs with roles flipped,
	// kept in step with msgs.
	flipped []message.Message

	mu  sync.Mutex
	rep Report
}

// Report is what a user simulator adds to a simulation record (UserInfo).
type Report struct {
	Implementation string        `json:"implementation"`
	ModelCalls     int           `json:"model_calls"`
	Usage          message.Usage `json:"usage"`
	Cost           float64       `json:"cost"`
	CachedCalls    int           `json:"cached_calls,omitempty"`
	// Traits and TraitMode describe a τ-Trait user (see Trait).
	Traits    Traits    `json:"traits,omitempty"`
	TraitMode TraitMode `json:"trait_mode,omitempty"`
	// Note explains how traits were applied.
	Note string `json:"note,omitempty"`
	// Backbone is the generator's own report when it has one.
	Backbone any `json:"backbone,omitempty"`
}

// New returns a τ²-bench user simulator over gen.
func New(gen Generator, opts Options) *Simulator {
	sys := message.Message{Role: message.System, Content: opts.System}
	s := &Simulator{gen: gen, system: sys, tools: opts.Tools, seed: opts.Seed, temp: opts.Temperature,
		rep: Report{Implementation: "user_simulator"}}
	s.flipped = append(make([]message.Message, 0, 32), sys)
	return s
}

// SystemMessage returns the system prompt.
func (s *Simulator) SystemMessage() string { return s.system.Content }

// Messages returns the user's state in original roles (read-only).
func (s *Simulator) Messages() []message.Message { return s.msgs }

// Next answers the agent's text message (or the results of the user's own
// tool calls) with one model call.
func (s *Simulator) Next(ctx context.Context, incoming []message.Message) (message.Message, error) {
	for _, m := range incoming {
		s.observe(m)
	}
	req := llm.Request{Messages: s.flipped, Tools: s.tools, Seed: s.seed, Temperature: s.temp}
	resp, err := s.gen.Generate(ctx, req)
	if err != nil {
		return message.Message{}, llm.Failed("user simulator", err)
	}
	s.mu.Lock()
	s.rep.count(resp)
	s.mu.Unlock()
	out := userMessage(resp)
	s.msgs = append(s.msgs, out)
	s.flipped = append(s.flipped, flip(out))
	return out, nil
}

// observe adds one incoming message to the state. Empty agent messages are
// skipped; the agent's tool calls and their results never reach the user.
func (s *Simulator) observe(m message.Message) {
	switch m.Role {
	case message.Tool:
		if m.Requestor != message.ByUser {
			return
		}
	case message.Assistant:
		if !m.HasText() {
			return
		}
		m.ToolCalls = nil
	default:
		return
	}
	s.msgs = append(s.msgs, m)
	s.flipped = append(s.flipped, flip(m))
}

// flip converts a message of the user's state to the role the user model
// sees: its own messages as assistant, the agent's text as user, its tool
// results as tool.
func flip(m message.Message) message.Message {
	switch m.Role {
	case message.User:
		return message.Message{Role: message.Assistant, Content: m.Content, EmptyContent: m.EmptyContent, ToolCalls: m.ToolCalls, ReasoningContent: m.ReasoningContent}
	case message.Assistant:
		return message.Message{Role: message.User, Content: m.Content}
	case message.Tool:
		return message.Message{Role: message.Tool, Content: m.Content, ToolCallID: m.ToolCallID}
	}
	return m
}

// userMessage turns a reply into the user's message: role user, tool calls
// requested by the user.
func userMessage(resp llm.Response) message.Message {
	m := resp.Message
	m.Role = message.User
	if len(m.ToolCalls) > 0 {
		calls := make([]message.ToolCall, len(m.ToolCalls))
		copy(calls, m.ToolCalls)
		for i := range calls {
			calls[i].Requestor = message.ByUser
		}
		m.ToolCalls = calls
	}
	if m.Usage == nil {
		u := resp.Usage
		m.Usage = &u
		m.Cost = resp.Cost
	}
	return m
}

// count accounts one model call that returned resp (the caller holds the
// simulator's lock).
func (r *Report) count(resp llm.Response) {
	r.ModelCalls++
	r.Usage = r.Usage.Add(resp.Usage)
	r.Cost += resp.Cost
	if resp.Cached {
		r.CachedCalls++
	}
}

// ModelCalls is the number of model calls made so far.
func (s *Simulator) ModelCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rep.ModelCalls
}

// Report returns the simulator's report (orchestrator.Reporter).
func (s *Simulator) Report() any {
	s.mu.Lock()
	r := s.rep
	s.mu.Unlock()
	if g, ok := s.gen.(interface{ Report() any }); ok {
		r.Backbone = g.Report()
	}
	return r
}

var (
	_ orchestrator.User     = (*Simulator)(nil)
	_ orchestrator.Reporter = (*Simulator)(nil)
)
