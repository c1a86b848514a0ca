package usersim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestTraitPromptsFromSource extracts the τ-Trait user's text from the pulled
// user.py and checks how System assembles it, against the source text read
// here at test time.
func TestTraitPromptsFromSource(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	p, err := LoadTraitPrompts(root)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, data.TauTrait, TraitUserFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for name, s := range map[string]string{"template": p.Template, "forthcoming": p.Forthcoming, "steer": p.ForthcomingSteer, "greeting": p.Greeting} {
		if s == "" || !strings.Contains(text, s) {
			t.Errorf("%s %q is not in user.py", name, s)
		}
	}
	if p.InstructionPrefix != "\n\nInstruction: " || p.InstructionSuffix != "\n" {
		t.Errorf("instruction display %q + … + %q", p.InstructionPrefix, p.InstructionSuffix)
	}
	if p.Forthcoming == p.ForthcomingSteer {
		t.Error("the steer rule equals the ordinary one")
	}
	head, _, _ := strings.Cut(p.Template, "{instruction_display}")
	instr := "\n        Your name is Ada.\n    "
	tests := []struct {
		instr   string
		steered bool
		want    string
	}{
		{instr, false, head + p.InstructionPrefix + instr + p.InstructionSuffix},
		{"", false, head},
	}
	for _, tc := range tests {
		got := p.System(tc.instr, tc.steered)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("System(%q) starts %q; want %q", tc.instr, got[:min(len(got), 80)], tc.want)
		}
		if !strings.Contains(got, "- "+p.Forthcoming+"\n") || strings.Contains(got, "{") {
			t.Errorf("System(%q) = %q: rule not filled in", tc.instr, got)
		}
	}
	if got := p.System(instr, true); !strings.Contains(got, "- "+p.ForthcomingSteer+"\n") {
		t.Errorf("steered prompt lacks the steer rule: %q", got)
	}
}

func TestParseTraitPromptsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, src, want string }{
		{"no class", "def build_system_prompt(self):\n    return ''\n", "LLMUserSimulationEnv.build_system_prompt"},
		{"no template fields", `class LLMUserSimulationEnv:
    def build_system_prompt(self, instruction):
        instruction_display = ("a" + instruction + "b") if instruction is not None else ""
        forthcomingness = "x"
        if self.steering_method:
            forthcomingness = "y"
        return f"""only {instruction_display}"""
`, "fields instruction_display and forthcomingness"},
		{"no greeting", `class LLMUserSimulationEnv:
    def build_system_prompt(self, instruction):
        instruction_display = ("a" + instruction + "b") if instruction is not None else ""
        forthcomingness = "x"
        if self.steering_method:
            forthcomingness = "y"
        return f"""{instruction_display} {forthcomingness}"""
    def reset(self, instruction=None):
        self.messages = []
`, "LLMUserSimulationEnv.reset"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTraitPrompts([]byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// TestV1PromptsFromSource extracts τ-bench v1's user text from the pulled
// user.py: the same template as τ-Trait's with the ordinary forthcomingness
// rule written in and no final newline, and the same greeting.
func TestV1PromptsFromSource(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	v1, err := LoadV1Prompts(root)
	if err != nil {
		t.Skipf("no τ-bench v1 user.py: %v", err)
	}
	trait, err := LoadTraitPrompts(root)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, data.TauBench, V1UserFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), v1.Template) || v1.Greeting != trait.Greeting || !v1.V1 {
		t.Errorf("v1 prompts %+v", v1)
	}
	instr := "\n        Your name is Ada.\n    "
	got, want := v1.System(instr, false), strings.TrimSuffix(trait.System(instr, false), "\n")
	if got != want {
		t.Errorf("v1 system prompt\n%q\nwant τ-Trait's without its final newline\n%q", got, want)
	}
	if got := v1.System("", false); strings.Contains(got, "Instruction:") {
		t.Errorf("no instruction: %q", got)
	}
}
