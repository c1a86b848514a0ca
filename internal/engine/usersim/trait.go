package usersim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
)

// traitNames are τ-Trait's trait keys (known.Traits), in the order its
// example files use; traitLevels the accepted values.
var (
	traitNames  = known.Traits()
	traitLevels = [...]string{"low", "medium", "high"}
)

// TraitNames returns τ-Trait's trait keys: impatience, confusion, skeptical
// (not "skepticism"), incoherence.
func TraitNames() []string { return slices.Clone(traitNames) }

// TraitLevels returns the accepted trait levels: low, medium, high.
func TraitLevels() []string { return slices.Clone(traitLevels[:]) }

// Traits is a τ-Trait trait dictionary (trait name → level). Absent traits
// are not applied. It encodes as a JSON object in TraitNames order.
type Traits map[string]string

// ParseTraits reads traits from a JSON object ({"impatience":"high",...},
// upstream's --trait-dict file content) or a list "impatience=high,
// confusion=low". An empty string gives no traits.
func ParseTraits(s string) (Traits, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	t := Traits{}
	if strings.HasPrefix(s, "{") {
		if err := json.Unmarshal([]byte(s), &t); err != nil {
			return nil, fmt.Errorf("traits: %w", err)
		}
	} else {
		for _, part := range strings.Split(s, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok {
				return nil, fmt.Errorf("traits: %q is not name=level", part)
			}
			t[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// Validate reports unknown trait names and levels.
func (t Traits) Validate() error {
	var errs []error
	for _, k := range t.names() {
		if !slices.Contains(traitNames, k) {
			errs = append(errs, fmt.Errorf("traits: unknown trait %q (known: %s)", k, strings.Join(traitNames, ", ")))
		}
		if !slices.Contains(traitLevels[:], t[k]) {
			errs = append(errs, fmt.Errorf("traits: %s: level %q is not one of %s", k, t[k], strings.Join(traitLevels[:], ", ")))
		}
	}
	return errors.Join(errs...)
}

// names lists the traits set: known ones in TraitNames order, then others
// sorted.
func (t Traits) names() []string {
	var out, rest []string
	for _, k := range traitNames {
		if _, ok := t[k]; ok {
			out = append(out, k)
		}
	}
	for k := range t {
		if !slices.Contains(traitNames, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// MarshalJSON writes the traits in TraitNames order (the order of τ-Trait's
// example trait files), so request bodies are deterministic.
func (t Traits) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("null"), nil
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range t.names() {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(t[k])
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// String is the traits as name=level pairs.
func (t Traits) String() string {
	var parts []string
	for _, k := range t.names() {
		parts = append(parts, k+"="+t[k])
	}
	return strings.Join(parts, ",")
}

// TraitMode says how a τ-Trait user applies its traits.
type TraitMode string

const (
	// TraitSteer sends every turn to τ-Trait's hosted steering endpoint,
	// which applies the traits to its own model (faithful to τ-Trait's
	// "--user-model-provider steer").
	TraitSteer TraitMode = "steer"
	// TraitPrompt describes the traits in the system prompt of an ordinary
	// chat model. This is ledgerbench's approximation, not τ-Trait's method:
	// upstream ignores traits for ordinary models, and its paper treats
	// prompt-based personas as the weaker baseline.
	TraitPrompt TraitMode = "prompt-approximation"
	// TraitIgnore runs an ordinary chat model without traits, as upstream
	// does for every provider other than steer.
	TraitIgnore TraitMode = "ignore"
)

// TraitModes are the ways a τ-Trait user can apply its traits.
func TraitModes() []string {
	return []string{string(TraitSteer), string(TraitPrompt), string(TraitIgnore)}
}

// TraitLabel is the trait label of a run's records and report groups
// (results.Record.Trait): the traits as name=level pairs in a fixed order,
// marked "(ignored)" when the mode ignores them; "" without traits. traits
// is --traits' text (a list or a JSON object); text that does not parse is
// kept as it is.
func TraitLabel(traits string, mode TraitMode) string {
	if strings.TrimSpace(traits) == "" {
		return ""
	}
	label := strings.TrimSpace(traits)
	if t, err := ParseTraits(traits); err == nil {
		if len(t) == 0 {
			return ""
		}
		label = t.String()
	}
	if mode == TraitIgnore {
		label += " (ignored)"
	}
	return label
}

// NoteIgnored documents upstream's behaviour for reports.
const NoteIgnored = "τ-Trait applies traits only through its steering endpoint; with an ordinary chat model upstream prints the trait dict and ignores it"

// TraitSystemPrompt is the τ-Trait user's system prompt: upstream's
// build_system_prompt (text from user.py, see TraitPrompts) with the
// instruction when there is one; steered selects the forthcomingness rule
// upstream uses with the steering endpoint. traits, when not nil, adds the
// prompt-based approximation's trait section (TraitPrompt mode only; ours).
func TraitSystemPrompt(p *TraitPrompts, instruction string, steered bool, traits Traits) string {
	out := p.System(instruction, steered)
	if len(traits) > 0 {
		out += traitSection(traits)
	}
	return out
}

// traitDescriptions are the prompt-approximation's wording of each trait
// level. They are ours; τ-Trait has no prompt text for traits.
var traitDescriptions = map[string][3]string{
	"impatience": {
		"You are mostly patient, though you like things to move along.",
		"You are somewhat impatient: you dislike long explanations and repeated questions, and you say so now and then.",
		"You are very impatient: you want the problem solved right away, you complain about every delay or repeated question, and you keep your answers short and curt.",
	},
	"confusion": {
		"Now and then you are a little unsure about details, but you mostly follow the agent.",
		"You are often confused: you misread some of the agent's questions, mix up details, and ask for things to be explained again.",
		"You are very confused: you frequently misunderstand the agent, mix up dates, names and steps, and need things repeated and simplified before you can answer.",
	},
	"skeptical": {
		"You accept most of what the agent says, with an occasional question.",
		"You are skeptical: you question the agent's statements and suggestions and want reasons before you agree.",
		"You are very skeptical: you doubt almost everything the agent says, challenge its claims, ask for proof or justification, and are slow to agree to anything.",
	},
	"incoherence": {
		"Your messages are mostly clear, with an occasional loose end.",
		"Your messages are sometimes disorganised: you jump between topics, leave sentences unfinished or add details that do not matter.",
		"Your messages are very disorganised: you ramble, switch topics mid-sentence, contradict yourself in small ways and bury the relevant facts among irrelevant ones.",
	},
}

func traitSection(t Traits) string {
	var b strings.Builder
	b.WriteString("\nPersonality traits (stay in character with them in every message, while still following the rules above):\n")
	for _, k := range t.names() {
		d, ok := traitDescriptions[k]
		lvl := slices.Index(traitLevels[:], t[k])
		if !ok || lvl < 0 {
			continue
		}
		fmt.Fprintf(&b, "- %s (%s): %s\n", k, t[k], d[lvl])
	}
	return b.String()
}

// Steerer generates a user turn through τ-Trait's steering endpoint
// (*SteerClient).
type Steerer interface {
	Steer(ctx context.Context, traits Traits, msgs []message.Message) (SteerResponse, error)
}

// TraitOptions configure a τ-Trait user simulator.
type TraitOptions struct {
	// Prompts is upstream's text (LoadTraitPrompts); required.
	Prompts *TraitPrompts
	// Instruction is the task's instruction, passed verbatim as upstream.
	Instruction string
	// Traits are the user's traits (nil: none).
	Traits Traits
	// Mode selects how traits are applied. With a Steerer it must be
	// TraitSteer or empty; with a Generator, TraitPrompt, TraitIgnore or
	// empty (empty means TraitPrompt when traits are set).
	Mode TraitMode
	// Seed is sent with every chat-model call (upstream sends none); nil
	// sends none.
	Seed *int
	// Temperature is sent with chat-model calls when set. Upstream sends
	// none, and by default neither does this user: the backbone's own
	// temperature is not sent either (llm.DialectTauBenchV1).
	Temperature *float64
}

// Trait is one conversation's τ-Trait user simulator (or, with τ-bench v1's
// prompts, v1's LLMUserSimulationEnv, which it derives from: the same
// message flow and request, its own system prompt, no traits). Its message flow is
// upstream's: system prompt, the agent's greeting (upstream's text) as a
// user message, then the simulated user's replies as assistant messages and
// the agent's replies (respond contents, verbatim) as user messages. It has
// no tools.
type Trait struct {
	gen      Generator
	steer    Steerer
	traits   Traits
	mode     TraitMode
	seed     *int
	temp     *float64
	greeting string
	msgs     []message.Message // the request conversation (already flipped)

	mu  sync.Mutex
	rep Report
}

// NewTrait returns a τ-Trait user over a chat model (gen) or the steering
// endpoint (steer); exactly one must be non-nil.
func NewTrait(gen Generator, steer Steerer, opts TraitOptions) (*Trait, error) {
	if (gen == nil) == (steer == nil) {
		return nil, errors.New("τ-Trait user: need exactly one of a chat model and a steering endpoint")
	}
	if opts.Prompts == nil {
		return nil, errors.New("τ-Trait user: no prompts (LoadTraitPrompts)")
	}
	if err := opts.Traits.Validate(); err != nil {
		return nil, err
	}
	mode := opts.Mode
	switch {
	case steer != nil && (mode == "" || mode == TraitSteer):
		mode = TraitSteer
	case steer != nil:
		return nil, fmt.Errorf("τ-Trait user: trait mode %q needs a chat model, not the steering endpoint", mode)
	case mode == "" && len(opts.Traits) > 0:
		mode = TraitPrompt
	case mode == "":
		mode = TraitIgnore
	case mode != TraitPrompt && mode != TraitIgnore:
		return nil, fmt.Errorf("τ-Trait user: trait mode %q needs the steering endpoint (chat models allow %s or %s)", mode, TraitPrompt, TraitIgnore)
	}
	var section Traits
	if mode == TraitPrompt {
		section = opts.Traits
	}
	sys := TraitSystemPrompt(opts.Prompts, opts.Instruction, mode == TraitSteer, section)
	impl := results.TauTraitUser
	if opts.Prompts.V1 {
		if steer != nil || len(opts.Traits) > 0 {
			return nil, errors.New("τ-bench v1 user: no traits and no steering endpoint (τ-Trait's user has them)")
		}
		impl = "tau_bench_user"
	}
	t := &Trait{gen: gen, steer: steer, traits: opts.Traits, mode: mode, seed: opts.Seed, temp: opts.Temperature,
		greeting: opts.Prompts.Greeting,
		rep:      Report{Implementation: impl, Traits: opts.Traits, TraitMode: mode}}
	switch {
	case mode == TraitPrompt:
		t.rep.Note = "traits approximated by prompting an ordinary chat model (not τ-Trait's steering); " + NoteIgnored
	case mode == TraitIgnore && len(opts.Traits) > 0:
		t.rep.Note = "traits ignored, as upstream: " + NoteIgnored
	}
	t.msgs = append(make([]message.Message, 0, 32), message.Message{Role: message.System, Content: sys})
	return t, nil
}

// SystemMessage returns the system prompt.
func (t *Trait) SystemMessage() string { return t.msgs[0].Content }

// Messages returns the request conversation (roles as sent).
func (t *Trait) Messages() []message.Message { return t.msgs }

// Next answers the agent's reply. The first call may get no message (the
// τ-Trait loop: the user speaks first, to upstream's greeting) or the
// orchestrator's greeting; either way the user model sees upstream's.
func (t *Trait) Next(ctx context.Context, incoming []message.Message) (message.Message, error) {
	if len(t.msgs) == 1 {
		t.msgs = append(t.msgs, message.Message{Role: message.User, Content: t.greeting})
		if len(incoming) > 0 && incoming[0].Role == message.Assistant && !incoming[0].IsToolCall() {
			incoming = incoming[1:] // the orchestrator's greeting
		}
	}
	for _, m := range incoming {
		if m.Role == message.Assistant && !m.IsToolCall() {
			t.msgs = append(t.msgs, message.Message{Role: message.User, Content: m.Content})
		}
	}
	var out message.Message
	if t.steer != nil {
		r, err := t.steer.Steer(ctx, t.traits, t.msgs)
		if err != nil {
			return message.Message{}, llm.Failed("user simulator", err)
		}
		t.mu.Lock()
		t.rep.ModelCalls++
		t.mu.Unlock()
		out = message.Message{Role: message.User, Content: r.Content, Usage: &message.Usage{}}
	} else {
		resp, err := t.gen.Generate(ctx, llm.Request{Messages: t.msgs, Seed: t.seed, Temperature: t.temp, Dialect: llm.DialectTauBenchV1})
		if err != nil {
			return message.Message{}, llm.Failed("user simulator", err)
		}
		t.mu.Lock()
		t.rep.count(resp)
		t.mu.Unlock()
		out = userMessage(resp)
		out.ToolCalls = nil // the τ-Trait user has no tools
	}
	t.msgs = append(t.msgs, message.Message{Role: message.Assistant, Content: out.Content})
	return out, nil
}

// ModelCalls is the number of generations so far.
func (t *Trait) ModelCalls() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rep.ModelCalls
}

// Report returns the simulator's report (orchestrator.Reporter).
func (t *Trait) Report() any {
	t.mu.Lock()
	r := t.rep
	t.mu.Unlock()
	if g, ok := t.gen.(interface{ Report() any }); ok && t.gen != nil {
		r.Backbone = g.Report()
	}
	return r
}

var (
	_ orchestrator.User     = (*Trait)(nil)
	_ orchestrator.Reporter = (*Trait)(nil)
)
