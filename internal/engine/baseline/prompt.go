package baseline

import (
	"fmt"
	"os"

	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// OrchestratorSource is the upstream file (relative to src/tau2) holding
// the greeting; the agent's text is in AgentSource. Then the symbols.
const (
	OrchestratorSource = "orchestrator/orchestrator.py"

	instructionSymbol = "AGENT_INSTRUCTION"
	systemSymbol      = "SYSTEM_PROMPT"
	greetingSymbol    = "DEFAULT_FIRST_AGENT_MESSAGE"
)

// Prompt is the τ²-bench agent's model-facing text, read from the pulled
// upstream sources by LoadPrompt: LLMAgent's instruction and system-prompt
// template (llm_agent.py) and the orchestrator's fixed first agent message
// (orchestrator.py).
type Prompt struct {
	// Instruction is AGENT_INSTRUCTION.
	Instruction string
	// template is SYSTEM_PROMPT, with the fields agent_instruction and
	// domain_policy.
	template pyliteral.FString
	// Greeting is the content of DEFAULT_FIRST_AGENT_MESSAGE, the agent's
	// first message of every conversation (the orchestrator sends it).
	Greeting string
}

// NewPrompt builds a prompt from a SYSTEM_PROMPT-style template (a Python
// str.format template with the fields agent_instruction and domain_policy),
// the instruction and the greeting.
func NewPrompt(template, instruction, greeting string) (*Prompt, error) {
	t, err := pyliteral.ParseTemplate(template)
	if err == nil {
		err = t.Check("agent_instruction", "domain_policy")
	}
	if err != nil {
		return nil, err
	}
	return &Prompt{Instruction: instruction, template: t, Greeting: greeting}, nil
}

// LoadPrompt reads the agent's text from a data directory. A missing file
// or symbol is an error naming both.
func LoadPrompt(root string) (*Prompt, error) {
	agentPath := AgentSource(root)
	src, err := os.ReadFile(agentPath)
	if err != nil {
		return nil, fmt.Errorf("agent prompt: %w", err)
	}
	instruction, err := pyliteral.StringAssignment(src, instructionSymbol)
	if err != nil {
		return nil, fmt.Errorf("agent prompt: %s: %s: %w", agentPath, instructionSymbol, err)
	}
	var p *Prompt
	tmpl, err := pyliteral.StringAssignment(src, systemSymbol)
	if err == nil {
		p, err = NewPrompt(tmpl, instruction, "")
	}
	if err != nil {
		return nil, fmt.Errorf("agent prompt: %s: %s: %w", agentPath, systemSymbol, err)
	}
	orchPath := data.Tau2Source(root, OrchestratorSource)
	osrc, err := os.ReadFile(orchPath)
	if err != nil {
		return nil, fmt.Errorf("agent greeting: %w", err)
	}
	a, err := pyliteral.Assignment(osrc, func(n string) bool { return n == greetingSymbol })
	if err != nil {
		return nil, fmt.Errorf("agent greeting: %s: %s: %w", orchPath, greetingSymbol, err)
	}
	call, ok := a.Value.(*pyliteral.Call)
	var content any
	if ok && call.Kwargs != nil {
		content, ok = call.Kwargs.Get("content")
	}
	if p.Greeting, _ = content.(string); !ok || p.Greeting == "" {
		return nil, fmt.Errorf("agent greeting: %s: %s has no string content= argument", orchPath, greetingSymbol)
	}
	return p, nil
}

// System is the agent's system message for a domain policy:
// SYSTEM_PROMPT.format(domain_policy=policy, agent_instruction=Instruction).
func (p *Prompt) System(policy string) string {
	return p.SystemWith(p.Instruction, policy)
}

// SystemWith fills SYSTEM_PROMPT with another instruction (agents that
// extend the baseline's instruction, e.g. IRMA).
func (p *Prompt) SystemWith(instruction, policy string) string {
	s, _ := p.template.Format(map[string]string{"agent_instruction": instruction, "domain_policy": policy})
	return s // fields were checked by LoadPrompt
}

// Texts returns every model-facing text of the prompt by name (for the
// run manifest's hashes).
func (p *Prompt) Texts() map[string]string {
	tmpl, _ := p.template.Format(map[string]string{"agent_instruction": "{agent_instruction}", "domain_policy": "{domain_policy}"})
	return map[string]string{"agent_instruction": p.Instruction, "agent_system_template": tmpl, "agent_greeting": p.Greeting}
}
