// Package llm calls model backbones through the OpenAI chat completions API.
//
// A Config (backbones.yaml) names endpoints; a Pool hands out one Client per
// backbone, shared by every simulation that uses it, so rate limits hold for
// the whole process. Client.Generate converts our messages and tools to the
// wire format the way τ²-bench does (to_litellm_messages in src/tau2/utils/llm_utils.py), retries transient
// failures with backoff, accounts usage, latency and cost, and can answer
// repeated requests from an on-disk cache.
//
// Trial outcomes are data: a reply with malformed tool arguments or with no
// content at all is a Response, not an error. Generate returns an error only
// for infrastructure failures (wrapping fault.ErrInfrastructure) or when its context
// ends (wrapping the context's error).
//
// It is a top-level package, not internal, because the agents and user
// simulators take llm.Request and return llm.Response: an agent or backbone
// outside this module needs those types.
package llm

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

// Request is one model call.
type Request struct {
	// Messages is the whole conversation, system prompt first. Roles are
	// sent as they are: a user simulator flips roles before calling.
	Messages []message.Message
	// Tools are offered to the model, in order.
	Tools []tool.Info
	// ToolChoice is "" (upstream's default: "auto"), "auto", "none",
	// "required", or the name of one tool to force. It is only sent with
	// tools.
	ToolChoice string
	// Seed is sent when set (upstream sets it from the run's seed).
	Seed *int
	// Temperature overrides the backbone's temperature when set.
	Temperature *float64
	// NoTemperature sends no temperature at all (not the backbone's):
	// the provider's default, as upstream's calls that pass none (the
	// conversation reviewer's). Temperature, when set, still wins.
	NoTemperature bool
	// Dialect selects how the request is written: "" is τ²-bench's
	// (LiteLLM as tau2 calls it); DialectTauBenchV1 is τ-bench v1's and
	// τ-Trait's.
	Dialect Dialect
}

// Dialect is a way of writing requests (see Request.Dialect).
type Dialect string

// DialectTauBenchV1 writes requests as τ-bench v1 / τ-Trait's litellm calls
// do: no tool_choice; no temperature but the request's own (the backbone's
// is not sent: τ-Trait's agent passes temperature itself and its user passes
// none); earlier assistant replies sent back as the provider's message dumped
// (content, role, tool_calls or null, function_call null; arguments as the
// model wrote them); tool messages {role, tool_call_id, name, content}
// (Message.Name). The backbone's other settings (max tokens, reasoning
// effort, extra_body) are still sent.
const DialectTauBenchV1 Dialect = "tau-bench-v1"

// Response is the result of a successful call.
type Response struct {
	// Message is the reply: role assistant, Content, ToolCalls (IDs and
	// arguments as returned, in order, Requestor "assistant": a user
	// simulator sets its own), ReasoningContent, Usage and Cost.
	Message message.Message
	Usage   message.Usage
	// Cost is in US dollars: the backbone's price times Usage; 0 on a cache
	// hit.
	Cost float64
	// Latency is the duration of the successful attempt (0 on a cache hit).
	Latency time.Duration
	// Wait is the time spent waiting for the rate limiter and between
	// retries.
	Wait time.Duration
	// Attempts counts HTTP attempts (1 without retries, 0 on a cache hit).
	Attempts int
	// Cached reports a response served from the on-disk cache.
	Cached bool
	// FinishReason is the provider's finish_reason ("stop", "tool_calls",
	// "length", …).
	FinishReason string
	// Model is the model id the provider reports.
	Model string
	// MalformedArgs counts tool calls whose arguments were not valid JSON;
	// their ToolCall.Arguments hold the raw text as a JSON string, so the
	// tool layer answers them with an error, as upstream would.
	MalformedArgs int
}

// Empty reports a reply with neither text (after trimming space) nor tool
// calls: upstream's message validation rejects such a message. Generate
// returns it without error; the caller decides (e.g. agent_error or a retry).
func (r Response) Empty() bool {
	return !r.Message.HasText() && !r.Message.IsToolCall()
}

// Failed is the error a participant (who: "agent", "user simulator", a
// judge or a helper) returns when a call it made failed: err with who in
// front, a failed backbone call (an *Error) marked as Infrastructure so the
// record names it. Context errors, errors already marked and the
// participant's own errors keep their kind.
func Failed(who string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		err = fault.Infrastructure(err)
	}
	return fmt.Errorf("%s: %w", who, err)
}

// ErrAuth is also wrapped when the provider refused the API key (401, 403):
// a failure no retry or later unit can heal.
var ErrAuth = errors.New("llm: authentication refused")

// ErrRateLimited is also wrapped when the provider kept answering 429 after
// the call's retries (RateLimitRetries): the process's pacing did not
// satisfy it, so later calls would meet the same.
var ErrRateLimited = errors.New("llm: rate limited")

// ErrContextLength is also wrapped when the provider rejected the request
// because the conversation exceeds the model's context window (upstream's
// context_window_exceeded).
var ErrContextLength = errors.New("llm: context window exceeded")

// Error describes a failed call. It wraps fault.ErrInfrastructure, the last cause
// and, when it applies, ErrContextLength.
type Error struct {
	Backbone string
	// Attempts is the number of HTTP attempts made.
	Attempts int
	// Status is the HTTP status of the last attempt (0 if there was none).
	Status int
	// Retryable reports whether the last failure was of a retryable kind
	// (true when the retries ran out).
	Retryable bool
	// Hint tells the user what to do.
	Hint string
	// Err is the last cause, with the API key redacted from its text.
	Err error
	// KeyEnv is the environment variable the backbone's key comes from ("" if
	// it takes none).
	KeyEnv string

	contextLength bool
	auth          bool
	rateLimited   bool
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm %s: ", e.Backbone)
	if e.Retryable {
		fmt.Fprintf(&b, "giving up after %d attempts: ", e.Attempts)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, "status %d: ", e.Status)
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, " (hint: %s)", e.Hint)
	}
	return b.String()
}

// Unwrap returns fault.ErrInfrastructure, the cause and possibly ErrContextLength.
func (e *Error) Unwrap() []error {
	errs := []error{fault.ErrInfrastructure}
	if e.contextLength {
		errs = append(errs, ErrContextLength)
	}
	if e.auth {
		errs = append(errs, ErrAuth)
	}
	if e.rateLimited {
		errs = append(errs, ErrRateLimited)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}
