// Package judge evaluates τ²-bench's natural-language assertions with a
// model (NLAssertionsEvaluator in src/tau2/evaluator/evaluator_nl_assertions.py): one call, no tools, whose system prompt asks for
// a JSON verdict per expected outcome and whose user prompt is the
// conversation as "role: content" lines followed by the expected outcomes as
// a Python list. Both are upstream's text, read from the pulled
// evaluator_nl_assertions.py (LoadPrompt).
package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// Generator makes one model call (*llm.Client).
type Generator interface {
	Generate(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Source is the upstream file (relative to src/tau2) holding the judge's
// prompts: two local strings of NLAssertionsEvaluator.evaluate_nl_assertions.
const (
	Source       = "evaluator/evaluator_nl_assertions.py"
	sourceFunc   = "evaluate_nl_assertions"
	systemSymbol = "system_prompt"
	userSymbol   = "user_prompt"
)

// Prompt is the judge's text, read from the pulled upstream source by
// LoadPrompt: the system prompt as written (indentation and surrounding
// newlines included: upstream sends it so) and the user prompt's f-string
// template with the fields trajectory_str and nl_assertions.
type Prompt struct {
	System string
	User   pyliteral.FString
}

// LoadPrompt reads the judge's prompts from a data directory. A missing
// file or symbol is an error naming both.
func LoadPrompt(root string) (*Prompt, error) {
	path := data.Tau2Source(root, Source)
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("judge prompt: %w", err)
	}
	sys, err := pyliteral.LocalString(src, sourceFunc, systemSymbol)
	if err != nil {
		return nil, fmt.Errorf("judge prompt: %s: %s.%s: %w", path, sourceFunc, systemSymbol, err)
	}
	if len(sys.Fields) != 0 {
		return nil, fmt.Errorf("judge prompt: %s: %s.%s: unexpected fields %v", path, sourceFunc, systemSymbol, sys.Fields)
	}
	user, err := pyliteral.LocalString(src, sourceFunc, userSymbol)
	if err != nil {
		return nil, fmt.Errorf("judge prompt: %s: %s.%s: %w", path, sourceFunc, userSymbol, err)
	}
	if err := user.Check("trajectory_str", "nl_assertions"); err != nil {
		return nil, fmt.Errorf("judge prompt: %s: %s.%s: %w", path, sourceFunc, userSymbol, err)
	}
	return &Prompt{System: sys.Parts[0], User: user}, nil
}

// UserPrompt renders the conversation and the expected outcomes into the
// user prompt as upstream's f-string does: trajectory_str is one
// "role: content" line per message (content None when a message has no
// text, as Python prints it) and nl_assertions the Python repr of the list.
func (p *Prompt) UserPrompt(traj []message.Message, assertions []string) string {
	var b strings.Builder
	for i, m := range traj {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(string(m.Role))
		b.WriteString(": ")
		if m.Content == "" && !m.EmptyContent && m.Role != message.Tool {
			b.WriteString("None")
		} else {
			b.WriteString(m.Content)
		}
	}
	s, _ := p.User.Format(map[string]string{"trajectory_str": b.String(), "nl_assertions": pyjson.Repr(assertions)})
	return s // fields were checked by LoadPrompt
}

// Request is the judge's request for a trajectory: system and user
// message, no tools, the temperature override.
func (p *Prompt) Request(traj []message.Message, assertions []string, temp *float64) llm.Request {
	return llm.Request{
		Messages: []message.Message{
			{Role: message.System, Content: p.System},
			{Role: message.User, Content: p.UserPrompt(traj, assertions)},
		},
		Temperature: temp,
	}
}

// Texts returns every model-facing text of the prompt by name (for the
// run manifest's hashes).
func (p *Prompt) Texts() map[string]string {
	u, _ := p.User.Format(map[string]string{"trajectory_str": "{trajectory_str}", "nl_assertions": "{nl_assertions}"})
	return map[string]string{"judge_system": p.System, "judge_user_template": u}
}

// Options configure a judge.
type Options struct {
	// Temperature overrides the backbone's (upstream judges at 0.0, which
	// the judge backbone in backbones.yaml sets); nil keeps it.
	Temperature *float64
}

// Judge is an evaluator.Judge over a model. It is safe for concurrent use
// when its Generator is.
type Judge struct {
	gen    Generator
	prompt *Prompt
	opts   Options
}

// New returns a judge over gen with upstream's prompt (LoadPrompt).
func New(gen Generator, prompt *Prompt, opts Options) *Judge {
	return &Judge{gen: gen, prompt: prompt, opts: opts}
}

// ErrMalformed is wrapped when the judge's reply is not the JSON verdict
// asked for. It is a judge error, not an infrastructure failure.
var ErrMalformed = errors.New("judge: malformed reply")

// JudgeNL makes the one judge call. Backbone failures wrap
// fault.ErrInfrastructure (llm.Failed); a reply that does not parse wraps
// ErrMalformed. Usage and cost are returned with the verdicts.
func (j *Judge) JudgeNL(ctx context.Context, traj []message.Message, assertions []string) (evaluator.JudgeResult, error) {
	req := j.prompt.Request(traj, assertions, j.opts.Temperature)
	resp, err := j.gen.Generate(ctx, req)
	if err != nil {
		return evaluator.JudgeResult{}, llm.Failed("judge", err)
	}
	checks, err := Parse(resp.Message.Content)
	res := evaluator.JudgeResult{Checks: checks, Usage: resp.Usage, Cost: resp.Cost}
	if err != nil {
		return res, err
	}
	return res, nil
}

// Parse reads a judge reply: a JSON object {"results": [{expectedOutcome,
// reasoning, metExpectation}]}, possibly inside a Markdown code fence or
// surrounded by prose. metExpectation may be a boolean or the string "true"
// or "false". A reply without a "results" list is malformed (upstream would
// silently score it as all met). An empty list gives no checks.
func Parse(reply string) ([]evaluator.NLCheck, error) {
	raw, err := extractObject(reply)
	if err != nil {
		return nil, err
	}
	var top struct {
		Results *[]json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("%w: %v: %.200q", ErrMalformed, err, reply)
	}
	if top.Results == nil {
		return nil, fmt.Errorf("%w: no \"results\" list: %.200q", ErrMalformed, reply)
	}
	out := make([]evaluator.NLCheck, 0, len(*top.Results))
	for i, r := range *top.Results {
		var item struct {
			ExpectedOutcome *string         `json:"expectedOutcome"`
			Reasoning       json.RawMessage `json:"reasoning"`
			MetExpectation  json.RawMessage `json:"metExpectation"`
		}
		if err := json.Unmarshal(r, &item); err != nil {
			return nil, fmt.Errorf("%w: result %d: %v", ErrMalformed, i, err)
		}
		if item.ExpectedOutcome == nil {
			return nil, fmt.Errorf("%w: result %d: no expectedOutcome", ErrMalformed, i)
		}
		met, err := parseBool(item.MetExpectation)
		if err != nil {
			return nil, fmt.Errorf("%w: result %d: metExpectation: %v", ErrMalformed, i, err)
		}
		out = append(out, evaluator.NLCheck{NLAssertion: *item.ExpectedOutcome, Met: met, Justification: text(item.Reasoning)})
	}
	return out, nil
}

// extractObject finds the JSON object of a reply: the whole reply, the body
// of a code fence, or the span from the first '{' to the last '}'.
func extractObject(reply string) ([]byte, error) {
	s := strings.TrimSpace(reply)
	if s == "" {
		return nil, fmt.Errorf("%w: empty reply", ErrMalformed)
	}
	if json.Valid([]byte(s)) {
		return []byte(s), nil
	}
	if i := strings.Index(s, "```"); i >= 0 {
		body := s[i+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.Contains(body[:nl], "{") {
			body = body[nl+1:] // drop the fence's language tag
		}
		if j := strings.Index(body, "```"); j >= 0 {
			body = body[:j]
		}
		if b := bytes.TrimSpace([]byte(body)); json.Valid(b) {
			return b, nil
		}
	}
	if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i {
		if b := []byte(s[i : j+1]); json.Valid(b) {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: no JSON object in %.200q", ErrMalformed, reply)
}

func parseBool(raw json.RawMessage) (bool, error) {
	switch s := strings.TrimSpace(string(raw)); strings.ToLower(s) {
	case "true", `"true"`:
		return true, nil
	case "false", `"false"`:
		return false, nil
	case "":
		return false, errors.New("missing")
	default:
		return false, fmt.Errorf("%.50s is not a boolean", s)
	}
}

// text returns a JSON string's value, or the raw JSON of anything else.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

var _ evaluator.Judge = (*Judge)(nil)
