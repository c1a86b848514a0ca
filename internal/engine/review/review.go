package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Mode is upstream's ReviewMode.
type Mode string

const (
	// Full reviews agent and user errors and classifies authentication.
	Full Mode = "full"
	// User reviews the user simulator's errors only.
	User Mode = "user"
)

// ParseMode reads a --mode value.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Full, User:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown review mode %q (have: full, user)", s)
}

// Input is what a review reads of one simulation: the policy the agent
// followed, the user simulator's global guidelines, the task and the
// recorded messages.
type Input struct {
	Policy     string
	Guidelines string
	Task       *tasks.Task
	Messages   []message.Message
}

// FullRequest is upstream's ConversationReviewer request: the system prompt
// as written and the user prompt filled with the policy, the guidelines, the
// task's user scenario, gold actions and NL assertions and the conversation.
func (p *Prompts) FullRequest(in Input) llm.Request {
	var actions []tasks.Action
	if in.Task.EvaluationCriteria != nil {
		actions = in.Task.EvaluationCriteria.Actions
	}
	user := format(p.FullUser, map[string]string{
		"policy":                      in.Policy,
		"simulation_guidelines":       in.Guidelines,
		"user_instructions":           in.Task.UserScenario.String(),
		"example_action_trajectory":   Actions(actions),
		"natural_language_assertions": assertions(in.Task.EvaluationCriteria),
		"conversation":                Conversation(in.Messages),
	})
	return request(p.FullSystem, user)
}

// UserRequest is upstream's UserOnlyReviewer request: the guidelines in the
// system prompt, the user scenario and the user-visible conversation in the
// user prompt.
func (p *Prompts) UserRequest(in Input) llm.Request {
	sys := format(p.UserSystem, map[string]string{"user_guidelines": in.Guidelines})
	user := format(p.UserUser, map[string]string{
		"user_instructions": in.Task.UserScenario.String(),
		"conversation":      Conversation(UserVisible(in.Messages)),
	})
	return request(sys, user)
}

// AuthRequest is upstream's AuthenticationClassifier request over the
// whole conversation.
func (p *Prompts) AuthRequest(msgs []message.Message) llm.Request {
	return request(p.AuthSystem, format(p.AuthUser, map[string]string{"conversation": Conversation(msgs)}))
}

func request(system, user string) llm.Request {
	return llm.Request{
		Messages:      []message.Message{{Role: message.System, Content: system}, {Role: message.User, Content: user}},
		NoTemperature: true,
	}
}

// Generator makes one model call (*llm.Client).
type Generator interface {
	Generate(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Outcome is one simulation's review, under upstream's SimulationRun field
// names: Review and AuthClassification in full mode, UserOnlyReview in user
// mode. Usage sums the calls made.
type Outcome struct {
	Review             *Review             `json:"review,omitempty"`
	UserOnlyReview     *UserOnlyReview     `json:"user_only_review,omitempty"`
	AuthClassification *AuthClassification `json:"auth_classification,omitempty"`
	Usage              message.Usage       `json:"usage"`
}

// Reviewer reviews simulations over a model. It is safe for concurrent use
// when its Generator is.
type Reviewer struct {
	gen     Generator
	prompts *Prompts
	priced  bool
}

// New returns a reviewer over gen. priced says the backbone has a price:
// without one each result's cost is null (unknown, never $0).
func New(gen Generator, prompts *Prompts, priced bool) *Reviewer {
	return &Reviewer{gen: gen, prompts: prompts, priced: priced}
}

// Review makes mode's calls for one simulation (full: the review, then the
// authentication classification; user: the user-only review). A failed call
// is returned as an error wrapping fault.ErrInfrastructure (llm.Failed): the
// caller records it, never an empty review. A reply that does not parse is a
// review like upstream's: one error of source "unknown" saying why.
func (r *Reviewer) Review(ctx context.Context, mode Mode, in Input) (Outcome, error) {
	var out Outcome
	switch mode {
	case Full:
		resp, err := r.gen.Generate(ctx, r.prompts.FullRequest(in))
		if err != nil {
			return out, llm.Failed("review", err)
		}
		rev := ParseReview(resp.Message.Content)
		rev.Cost = r.cost(resp)
		out.Review = &rev
		out.Usage = out.Usage.Add(resp.Usage)
		resp, err = r.gen.Generate(ctx, r.prompts.AuthRequest(in.Messages))
		if err != nil {
			return out, llm.Failed("auth classification", err)
		}
		auth := ParseAuth(resp.Message.Content)
		auth.Cost = r.cost(resp)
		out.AuthClassification = &auth
		out.Usage = out.Usage.Add(resp.Usage)
	case User:
		resp, err := r.gen.Generate(ctx, r.prompts.UserRequest(in))
		if err != nil {
			return out, llm.Failed("user-only review", err)
		}
		rev := ParseUserOnly(resp.Message.Content)
		rev.Cost = r.cost(resp)
		out.UserOnlyReview = &rev
		out.Usage = out.Usage.Add(resp.Usage)
	default:
		return out, fmt.Errorf("review: unknown mode %q", mode)
	}
	return out, nil
}

// cost is a call's cost, nil when the backbone has no price (upstream's
// None when litellm cannot price the model).
func (r *Reviewer) cost(resp llm.Response) *float64 {
	if !r.priced {
		return nil
	}
	c := resp.Cost
	return &c
}

// ReviewError is upstream's ReviewError.
type ReviewError struct {
	Source          string   `json:"source"`
	ErrorType       *string  `json:"error_type"`
	ErrorTags       []string `json:"error_tags"`
	Severity        *string  `json:"severity"`
	TurnIdx         *int     `json:"turn_idx"`
	TickStart       *int     `json:"tick_start"`
	TickEnd         *int     `json:"tick_end"`
	Reasoning       string   `json:"reasoning"`
	CorrectBehavior *string  `json:"correct_behavior"`
}

// Review is upstream's Review (full mode).
type Review struct {
	Summary           string        `json:"summary"`
	AgentError        bool          `json:"agent_error"`
	UserError         bool          `json:"user_error"`
	CriticalUserError bool          `json:"critical_user_error"`
	HasErrors         bool          `json:"has_errors"`
	Errors            []ReviewError `json:"errors"`
	Cost              *float64      `json:"cost"`
}

// UserOnlyReviewError is upstream's UserOnlyReviewError.
type UserOnlyReviewError struct {
	TurnIdx         *int     `json:"turn_idx"`
	TickStart       *int     `json:"tick_start"`
	TickEnd         *int     `json:"tick_end"`
	ErrorType       string   `json:"error_type"`
	ErrorTags       []string `json:"error_tags"`
	Severity        *string  `json:"severity"`
	Reasoning       string   `json:"reasoning"`
	UserMessage     *string  `json:"user_message"`
	CorrectBehavior *string  `json:"correct_behavior"`
}

// UserOnlyReview is upstream's UserOnlyReview (user mode).
type UserOnlyReview struct {
	Summary           string                `json:"summary"`
	UserError         bool                  `json:"user_error"`
	CriticalUserError bool                  `json:"critical_user_error"`
	HasErrors         bool                  `json:"has_errors"`
	Errors            []UserOnlyReviewError `json:"errors"`
	Cost              *float64              `json:"cost"`
}

// AuthClassification is upstream's AuthenticationClassification.
type AuthClassification struct {
	Status    string   `json:"status"`
	Reasoning string   `json:"reasoning"`
	Cost      *float64 `json:"cost"`
}

// Authentication statuses.
const (
	AuthSucceeded = "succeeded"
	AuthFailed    = "failed"
	AuthNotNeeded = "not_needed"
)

var fence = regexp.MustCompile("```(?:json)?\\s*([\\s\\S]*?)```")

// extractJSON is upstream's extract_json_from_llm_response: the first code
// fence's body, else the span from the first '{' to the last '}', else the
// reply.
func extractJSON(reply string) string {
	if m := fence.FindStringSubmatch(reply); m != nil {
		return strings.TrimSpace(m[1])
	}
	i, j := strings.IndexByte(reply, '{'), strings.LastIndexByte(reply, '}')
	if i >= 0 && j > i {
		return reply[i : j+1]
	}
	return reply
}

// errMalformed is wrapped in a parse failure's reasoning.
var errMalformed = errors.New("malformed review reply")

// rawError is one entry of a reply's errors list, leniently typed.
type rawError struct {
	Source          json.RawMessage `json:"source"`
	ErrorType       json.RawMessage `json:"error_type"`
	ErrorTags       json.RawMessage `json:"error_tags"`
	Severity        json.RawMessage `json:"severity"`
	TurnIdx         json.RawMessage `json:"turn_idx"`
	TickStart       json.RawMessage `json:"tick_start"`
	TickEnd         json.RawMessage `json:"tick_end"`
	Reasoning       json.RawMessage `json:"reasoning"`
	CorrectBehavior json.RawMessage `json:"correct_behavior"`
	UserMessage     json.RawMessage `json:"user_message"`
}

type rawReply struct {
	Summary json.RawMessage `json:"summary"`
	Errors  json.RawMessage `json:"errors"`
}

func decodeReply(reply string) (summary string, errs []rawError, err error) {
	var top rawReply
	if err := json.Unmarshal([]byte(extractJSON(reply)), &top); err != nil {
		return "", nil, fmt.Errorf("%w: %v", errMalformed, err)
	}
	if summary, err = optString(top.Summary, ""); err != nil {
		return "", nil, fmt.Errorf("%w: summary: %v", errMalformed, err)
	}
	if isNull(top.Errors) {
		return summary, nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(top.Errors, &items); err != nil {
		return "", nil, fmt.Errorf("%w: errors: %v", errMalformed, err)
	}
	for i, it := range items {
		var e rawError
		// Upstream reads each entry with dict.get: anything but an object
		// (null included) fails the parse.
		if len(it) == 0 || it[0] != '{' {
			return "", nil, fmt.Errorf("%w: error %d is not an object: %s", errMalformed, i, it)
		}
		if err := json.Unmarshal(it, &e); err != nil {
			return "", nil, fmt.Errorf("%w: error %d: %v", errMalformed, i, err)
		}
		errs = append(errs, e)
	}
	return summary, errs, nil
}

// ParseReview reads a full review reply as upstream's _parse_review_response:
// source "user" or "agent" (any case; else "unknown"), a severity kept only
// when it is one the source may have, error_tags a list (a lone string
// becomes one), the flags computed from the errors. A reply that does not
// parse gives a review with one "unknown" error whose reasoning says why and
// quotes the reply.
func ParseReview(reply string) Review {
	summary, errs, err := decodeErrors(reply, rawError.review)
	if err != nil {
		return Review{Errors: []ReviewError{{Source: "unknown", ErrorTags: []string{}, Reasoning: failure(err, reply)}}}
	}
	rev := Review{Summary: summary, Errors: errs, HasErrors: len(errs) > 0}
	if rev.Errors == nil {
		rev.Errors = []ReviewError{}
	}
	for _, e := range errs {
		switch e.Source {
		case "agent":
			rev.AgentError = true
		case "user":
			rev.UserError = true
			rev.CriticalUserError = rev.CriticalUserError || critical(e.Severity)
		}
	}
	return rev
}

// ParseUserOnly reads a user-only review reply as upstream's
// _parse_user_only_review_response (error_type defaults to content_error).
// Upstream's record type admits only minor or critical while its prompt asks
// for critical_helped or critical_hindered, so upstream turns such a reply
// into a parse failure; ledgerbench keeps the prompt's severities.
func ParseUserOnly(reply string) UserOnlyReview {
	summary, errs, err := decodeErrors(reply, rawError.userOnly)
	if err != nil {
		m1 := -1
		return UserOnlyReview{Errors: []UserOnlyReviewError{{TurnIdx: &m1, ErrorType: "content_error", ErrorTags: []string{}, Reasoning: failure(err, reply)}}}
	}
	rev := UserOnlyReview{Summary: summary, Errors: errs, HasErrors: len(errs) > 0, UserError: len(errs) > 0}
	if rev.Errors == nil {
		rev.Errors = []UserOnlyReviewError{}
	}
	for _, e := range errs {
		rev.CriticalUserError = rev.CriticalUserError || critical(e.Severity)
	}
	return rev
}

// decodeErrors decodes a reply and each of its errors by decode; the first
// error that fails fails the reply.
func decodeErrors[E any](reply string, decode func(rawError) (E, error)) (string, []E, error) {
	summary, raws, err := decodeReply(reply)
	if err != nil {
		return "", nil, err
	}
	var errs []E
	for i, r := range raws {
		e, err := decode(r)
		if err != nil {
			return "", nil, fmt.Errorf("%w: error %d: %v", errMalformed, i, err)
		}
		errs = append(errs, e)
	}
	return summary, errs, nil
}

// critical: a user error's severity is one of the critical ones.
func critical(severity *string) bool {
	return severity != nil && (*severity == "critical_helped" || *severity == "critical_hindered")
}

// userSeverity: a severity a user error may have.
func userSeverity(severity *string) bool {
	return severity != nil && (*severity == "minor" || critical(severity))
}

func failure(err error, reply string) string {
	return fmt.Sprintf("%v; reply: %s", err, reply)
}

func (r rawError) common() (tags []string, turn, start, end *int, reasoning string, correct *string, err error) {
	if tags, err = stringList(r.ErrorTags); err != nil {
		return nil, nil, nil, nil, "", nil, fmt.Errorf("error_tags: %v", err)
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  **int
	}{{"turn_idx", r.TurnIdx, &turn}, {"tick_start", r.TickStart, &start}, {"tick_end", r.TickEnd, &end}} {
		if *f.dst, err = optInt(f.raw); err != nil {
			return nil, nil, nil, nil, "", nil, fmt.Errorf("%s: %v", f.name, err)
		}
	}
	if reasoning, err = optString(r.Reasoning, ""); err != nil {
		return nil, nil, nil, nil, "", nil, fmt.Errorf("reasoning: %v", err)
	}
	if correct, err = nullString(r.CorrectBehavior); err != nil {
		return nil, nil, nil, nil, "", nil, fmt.Errorf("correct_behavior: %v", err)
	}
	return tags, turn, start, end, reasoning, correct, nil
}

func (r rawError) review() (ReviewError, error) {
	var e ReviewError
	var err error
	e.ErrorTags, e.TurnIdx, e.TickStart, e.TickEnd, e.Reasoning, e.CorrectBehavior, err = r.common()
	if err != nil {
		return e, err
	}
	src, err := optString(r.Source, "unknown")
	if err != nil {
		return e, fmt.Errorf("source: %v", err)
	}
	switch strings.ToLower(src) {
	case "user":
		e.Source = "user"
	case "agent":
		e.Source = "agent"
	default:
		e.Source = "unknown"
	}
	if e.ErrorType, err = nullString(r.ErrorType); err != nil {
		return e, fmt.Errorf("error_type: %v", err)
	}
	sev, _ := nullString(r.Severity) // a severity of another type is dropped, as upstream's membership test
	if sev != nil {
		ok := false
		switch e.Source {
		case "user":
			ok = userSeverity(sev)
		case "agent":
			ok = *sev == "minor" || *sev == "critical"
		}
		if ok {
			e.Severity = sev
		}
	}
	return e, nil
}

func (r rawError) userOnly() (UserOnlyReviewError, error) {
	var e UserOnlyReviewError
	var err error
	e.ErrorTags, e.TurnIdx, e.TickStart, e.TickEnd, e.Reasoning, e.CorrectBehavior, err = r.common()
	if err != nil {
		return e, err
	}
	if e.ErrorType, err = optString(r.ErrorType, "content_error"); err != nil {
		return e, fmt.Errorf("error_type: %v", err)
	}
	if e.UserMessage, err = nullString(r.UserMessage); err != nil {
		return e, fmt.Errorf("user_message: %v", err)
	}
	if sev, _ := nullString(r.Severity); userSeverity(sev) {
		e.Severity = sev
	}
	return e, nil
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// optString is a string field, def when absent or null.
func optString(raw json.RawMessage, def string) (string, error) {
	if isNull(raw) {
		return def, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("not a string: %s", raw)
	}
	return s, nil
}

func nullString(raw json.RawMessage) (*string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a string: %s", raw)
	}
	return &s, nil
}

func optInt(raw json.RawMessage) (*int, error) {
	if isNull(raw) {
		return nil, nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("not an integer: %s", raw)
	}
	return &n, nil
}

// stringList is error_tags: a list of strings, a lone string as a list of
// one, [] when absent.
func stringList(raw json.RawMessage) ([]string, error) {
	if isNull(raw) {
		return []string{}, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("not a list of strings: %s", raw)
	}
	return list, nil
}

// authObject is upstream's first-object pattern (a brace-free {...} span).
var authObject = regexp.MustCompile(`\{[^{}]*\}`)

// ParseAuth reads an authentication reply as upstream's
// _parse_classification_response: the first brace-free JSON object, its
// status (one of succeeded, failed, not_needed; else not_needed) and
// reasoning; no object, or one that does not decode, is not_needed with the
// reasoning saying the reply did not parse.
func ParseAuth(reply string) AuthClassification {
	m := authObject.FindString(reply)
	if m == "" {
		return AuthClassification{Status: AuthNotNeeded, Reasoning: "reply did not parse"}
	}
	var v struct {
		Status    json.RawMessage `json:"status"`
		Reasoning json.RawMessage `json:"reasoning"`
	}
	if err := json.Unmarshal([]byte(m), &v); err != nil {
		return AuthClassification{Status: AuthNotNeeded, Reasoning: "reply did not parse"}
	}
	status, _ := optString(v.Status, AuthNotNeeded)
	if status != AuthSucceeded && status != AuthFailed && status != AuthNotNeeded {
		status = AuthNotNeeded
	}
	reasoning, err := optString(v.Reasoning, "")
	if err != nil {
		reasoning = string(v.Reasoning)
	}
	return AuthClassification{Status: status, Reasoning: reasoning}
}
