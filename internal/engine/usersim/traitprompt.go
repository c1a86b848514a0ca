package usersim

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// τ-Trait's user simulator source, inside the data directory, and the
// symbols its text is read from; V1UserFile is τ-bench v1's, whose
// LLMUserSimulationEnv τ-Trait's derives from.
const (
	TraitUserFile  = "tau_trait/envs/user.py"
	V1UserFile     = "tau_bench/envs/user.py"
	traitUserClass = "LLMUserSimulationEnv"
)

// TraitPrompts is the model-facing text of τ-Trait's LLM user simulator,
// extracted from upstream's user.py (LLMUserSimulationEnv): the system
// prompt template of build_system_prompt with the pieces it is filled from,
// and the agent greeting reset() puts first.
type TraitPrompts struct {
	// Template is the f-string build_system_prompt returns, with the fields
	// {instruction_display} and {forthcomingness}.
	Template string
	tmpl     pyliteral.FString // Template's parts and fields
	// InstructionPrefix and InstructionSuffix surround the instruction in
	// instruction_display ("" when there is no instruction).
	InstructionPrefix, InstructionSuffix string
	// Forthcoming is the ordinary forthcomingness rule; ForthcomingSteer the
	// one upstream uses with the steering endpoint.
	Forthcoming, ForthcomingSteer string
	// Greeting is the agent's first message as the user model sees it.
	Greeting string
	// V1 marks τ-bench v1's prompts: its template has no forthcomingness
	// field (the rule is written into it) and there is no steering.
	V1 bool
}

// LoadTraitPrompts reads the τ-Trait user's text from a data directory.
func LoadTraitPrompts(root string) (*TraitPrompts, error) {
	path := filepath.Join(root, data.TauTrait, filepath.FromSlash(TraitUserFile))
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("τ-Trait user simulator: %w", err)
	}
	p, err := ParseTraitPrompts(src)
	if err != nil {
		return nil, fmt.Errorf("τ-Trait user simulator: %s: %w", path, err)
	}
	return p, nil
}

// LoadV1Prompts reads τ-bench v1's LLM user's text from a data directory
// (tau-bench's user.py): the same shape as τ-Trait's, with the
// forthcomingness rule written into the template and no steering.
func LoadV1Prompts(root string) (*TraitPrompts, error) {
	path := filepath.Join(root, data.TauBench, filepath.FromSlash(V1UserFile))
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("τ-bench v1 user simulator: %w", err)
	}
	p, err := parseUserPrompts(src, true)
	if err != nil {
		return nil, fmt.Errorf("τ-bench v1 user simulator: %s: %w", path, err)
	}
	return p, nil
}

// ParseTraitPrompts extracts the text from τ-Trait's user.py source.
func ParseTraitPrompts(src []byte) (*TraitPrompts, error) { return parseUserPrompts(src, false) }

// parseUserPrompts reads LLMUserSimulationEnv's text from τ-Trait's user.py
// (v1 false) or τ-bench v1's.
func parseUserPrompts(src []byte, v1 bool) (*TraitPrompts, error) {
	sym := func(fn string) string { return traitUserClass + "." + fn }
	build, err := pyliteral.FuncStrings(src, traitUserClass, "build_system_prompt")
	if err != nil {
		return nil, err
	}
	var p TraitPrompts
	var display, forth, tmpl []pyliteral.StringLit
	for _, l := range build {
		switch l.Target {
		case "instruction_display":
			display = append(display, l)
		case "forthcomingness":
			forth = append(forth, l)
		case "return":
			tmpl = append(tmpl, l)
		}
	}
	// instruction_display = ("<prefix>" + instruction + "<suffix>") if instruction is not None else ""
	if len(display) != 3 || display[2].Value != "" {
		return nil, fmt.Errorf("%s: instruction_display: want the literals prefix, suffix and \"\", found %d", sym("build_system_prompt"), len(display))
	}
	p.InstructionPrefix, p.InstructionSuffix = display[0].Value, display[1].Value
	p.V1 = v1
	fields := []string{"instruction_display", "forthcomingness"}
	switch {
	case v1:
		if len(forth) != 0 {
			return nil, fmt.Errorf("%s: forthcomingness: τ-bench v1's prompt has no such variable, found %d assignments", sym("build_system_prompt"), len(forth))
		}
		fields = fields[:1]
	case len(forth) != 2:
		return nil, fmt.Errorf("%s: forthcomingness: want 2 assignments (ordinary, steer), found %d", sym("build_system_prompt"), len(forth))
	default:
		p.Forthcoming, p.ForthcomingSteer = forth[0].Value, forth[1].Value
	}
	if len(tmpl) != 1 || !tmpl[0].FString || !slices.Equal(tmpl[0].Fields, fields) {
		return nil, fmt.Errorf("%s: want one returned f-string with the fields %s", sym("build_system_prompt"), strings.Join(fields, " and "))
	}
	p.Template, p.tmpl = tmpl[0].Value, tmpl[0].Template()
	reset, err := pyliteral.FuncStrings(src, traitUserClass, "reset")
	if err != nil {
		return nil, err
	}
	// self.messages = [{"role": "system", ...}, {"role": "user", "content": "<greeting>"}]
	for i := 0; i+3 < len(reset); i++ {
		if reset[i].Value == "role" && reset[i+1].Value == "user" && reset[i+2].Value == "content" {
			p.Greeting = reset[i+3].Value
			break
		}
	}
	if p.Greeting == "" {
		return nil, fmt.Errorf("%s: no {\"role\": \"user\", \"content\": ...} message", sym("reset"))
	}
	return &p, nil
}

// System is build_system_prompt(instruction): the instruction block when
// instruction is not empty (upstream: not None), and the forthcomingness
// rule of steered or ordinary users.
func (p *TraitPrompts) System(instruction string, steered bool) string {
	display := ""
	if instruction != "" {
		display = p.InstructionPrefix + instruction + p.InstructionSuffix
	}
	forth := p.Forthcoming
	if steered {
		forth = p.ForthcomingSteer
	}
	values := map[string]string{"instruction_display": display, "forthcomingness": forth}
	if p.V1 {
		delete(values, "forthcomingness")
	}
	out, err := p.tmpl.Format(values)
	if err != nil {
		// ParseTraitPrompts checked the fields.
		panic(fmt.Sprintf("τ-Trait user prompt: %v", err))
	}
	return out
}
