// Package review is τ²-bench's LLM conversation review (src/tau2/evaluator/reviewer.py):
// a model reads a recorded simulation and lists the errors the agent and the
// user simulator made ("full" mode, review_llm_judge.py, followed by the
// authentication classifier of auth_classifier.py) or the user simulator's
// alone ("user" mode, review_llm_judge_user_only.py). Prompts are upstream's,
// read from the pulled sources at load time (LoadPrompts); the conversation is
// rendered as upstream's MarkdownDisplay does; requests carry the messages
// and no sampling parameters, as upstream's generate() calls do.
//
// Results are data beside the run (File, reviews.jsonl) under upstream's field
// names (review, user_only_review, auth_classification); a failed review call is
// an infrastructure error recorded as such, never an empty review.
//
// Upstream's hallucination reviewer (hallucination_reviewer.py) and the
// full-duplex variants apply to tick-based (voice) simulations only; text
// runs, the only kind ledgerbench records, never use them.
package review

import (
	"fmt"
	"os"

	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// The upstream files (relative to src/tau2) holding the prompts, each as the
// module-level strings SYSTEM_PROMPT and USER_PROMPT.
const (
	FullSource = "evaluator/review_llm_judge.py"
	UserSource = "evaluator/review_llm_judge_user_only.py"
	AuthSource = "evaluator/auth_classifier.py"
)

// Prompts are the reviewer's texts. FullSystem and AuthSystem are sent as
// written (upstream does not format them: their doubled braces stay
// doubled); the others are str.format templates.
type Prompts struct {
	FullSystem string
	FullUser   pyliteral.FString // policy, simulation_guidelines, user_instructions, example_action_trajectory, natural_language_assertions, conversation
	UserSystem pyliteral.FString // user_guidelines
	UserUser   pyliteral.FString // user_instructions, conversation
	AuthSystem string
	AuthUser   pyliteral.FString // conversation
}

// LoadPrompts reads the prompts from a data directory. A missing file or
// string, or a template whose fields differ from upstream's format call,
// is an error naming the file and the string.
func LoadPrompts(root string) (*Prompts, error) {
	var p Prompts
	steps := []struct {
		file, name string
		raw        *string
		tmpl       *pyliteral.FString
		fields     []string
	}{
		{FullSource, "SYSTEM_PROMPT", &p.FullSystem, nil, nil},
		{FullSource, "USER_PROMPT", nil, &p.FullUser, []string{"policy", "simulation_guidelines", "user_instructions", "example_action_trajectory", "natural_language_assertions", "conversation"}},
		{UserSource, "SYSTEM_PROMPT", nil, &p.UserSystem, []string{"user_guidelines"}},
		{UserSource, "USER_PROMPT", nil, &p.UserUser, []string{"user_instructions", "conversation"}},
		{AuthSource, "SYSTEM_PROMPT", &p.AuthSystem, nil, nil},
		{AuthSource, "USER_PROMPT", nil, &p.AuthUser, []string{"conversation"}},
	}
	srcs := map[string][]byte{}
	for _, st := range steps {
		path := data.Tau2Source(root, st.file)
		src, ok := srcs[st.file]
		if !ok {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("review prompt: %w", err)
			}
			src, srcs[st.file] = b, b
		}
		s, err := pyliteral.StringAssignment(src, st.name)
		if err != nil {
			return nil, fmt.Errorf("review prompt: %s: %s: %w", path, st.name, err)
		}
		if st.raw != nil {
			*st.raw = s
			continue
		}
		t, err := pyliteral.ParseTemplate(s)
		if err == nil {
			err = t.Check(st.fields...)
		}
		if err == nil && len(t.Fields) != len(st.fields) {
			err = fmt.Errorf("fields %v (want each of %v once)", t.Fields, st.fields)
		}
		if err != nil {
			return nil, fmt.Errorf("review prompt: %s: %s: %w", path, st.name, err)
		}
		*st.tmpl = t
	}
	return &p, nil
}

// Texts returns every model-facing text by name, templates with their
// fields in braces (for a manifest's hashes).
func (p *Prompts) Texts() map[string]string {
	return map[string]string{
		"review_full_system": p.FullSystem,
		"review_full_user":   template(p.FullUser),
		"review_user_system": template(p.UserSystem),
		"review_user_user":   template(p.UserUser),
		"review_auth_system": p.AuthSystem,
		"review_auth_user":   template(p.AuthUser),
	}
}

func template(f pyliteral.FString) string {
	vals := map[string]string{}
	for _, n := range f.Fields {
		vals[n] = "{" + n + "}"
	}
	s, _ := f.Format(vals)
	return s
}

func format(f pyliteral.FString, vals map[string]string) string {
	s, _ := f.Format(vals) // fields were checked by LoadPrompts
	return s
}
