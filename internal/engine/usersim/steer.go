package usersim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
)

// Environment variables of the steering user backbone. STEER_API_KEY is
// τ-Trait's own name for the key; upstream takes the endpoint from its
// --endpoint flag (e.g. https://steer.collinear.ai/steer_bare).
const (
	SteerEndpointEnv = "STEER_ENDPOINT"
	SteerKeyEnv      = "STEER_API_KEY"
)

// Request parameters τ-Trait fixes for every steering call.
const (
	steerTemperature = 0.7
	steerMaxTokens   = 256
)

// SteerClient calls τ-Trait's hosted steering endpoint: POST
// {"trait_dict", "messages":[{role, content}], "temperature":0.7,
// "max_tokens":256} with header API-Key; the reply is {"response": text}.
// The service applies TraitBasis activation steering to a model it does not
// name; the user model name is not sent.
type SteerClient struct {
	Endpoint string
	Key      string
	// HTTP is the client used (nil: one with Timeout).
	HTTP *http.Client
	// Timeout bounds one attempt (0: 2 minutes).
	Timeout time.Duration
	// MaxRetries is the number of retries of the failures llm.Retry retries
	// (no response, 408, 409, 429, 5xx), with its backoff and Retry-After
	// (upstream makes one attempt; default 3).
	MaxRetries *int
	// Sleep waits between retries (nil: a timer watching ctx).
	Sleep func(ctx context.Context, d time.Duration) error
}

// SteerResponse is one steered user turn.
type SteerResponse struct {
	Content string
	// Attempts counts HTTP attempts.
	Attempts int
	Latency  time.Duration
}

// NewSteerClient reads the endpoint and key through getenv; both are
// required.
func NewSteerClient(getenv func(string) string) (*SteerClient, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	ep := strings.TrimSpace(getenv(SteerEndpointEnv))
	key := strings.TrimSpace(getenv(SteerKeyEnv))
	var errs []error
	if ep == "" {
		errs = append(errs, fmt.Errorf("steer user backbone: %s is not set (hint: set it to τ-Trait's steering endpoint, e.g. https://steer.collinear.ai/steer_bare)", SteerEndpointEnv))
	} else if !strings.HasPrefix(ep, "http://") && !strings.HasPrefix(ep, "https://") {
		errs = append(errs, fmt.Errorf("steer user backbone: %s=%q is not an http(s) URL", SteerEndpointEnv, ep))
	}
	if key == "" {
		errs = append(errs, fmt.Errorf("steer user backbone: %s is not set (hint: set %s to your Collinear steering key)", SteerKeyEnv, SteerKeyEnv))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &SteerClient{Endpoint: ep, Key: key}, nil
}

type steerMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type steerRequest struct {
	TraitDict   Traits         `json:"trait_dict"`
	Messages    []steerMessage `json:"messages"`
	Temperature float64        `json:"temperature"`
	MaxTokens   int            `json:"max_tokens"`
}

// ErrSteer is wrapped by steering failures (marked llm.Infrastructure).
var ErrSteer = errors.New("steer endpoint")

// Steer generates the next user turn. Failures wrap ErrSteer and
// fault.ErrInfrastructure; a reply without a string "response" is a
// failure too (upstream raises "Invalid response").
func (c *SteerClient) Steer(ctx context.Context, traits Traits, msgs []message.Message) (SteerResponse, error) {
	req := steerRequest{TraitDict: traits, Temperature: steerTemperature, MaxTokens: steerMaxTokens,
		Messages: make([]steerMessage, len(msgs))}
	if req.TraitDict == nil {
		req.TraitDict = Traits{}
	}
	for i, m := range msgs {
		req.Messages[i] = steerMessage{Role: string(m.Role), Content: m.Content}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return SteerResponse{}, fmt.Errorf("%w: encode request: %w", ErrSteer, err)
	}
	retries := 3
	if c.MaxRetries != nil {
		retries = *c.MaxRetries
	}
	var text string
	t0 := time.Now()
	retry := llm.Options{Sleep: c.Sleep}
	n, last, _, err := retry.Retry(ctx, retries, func(int) llm.Attempt {
		t0 = time.Now()
		var a llm.Attempt
		text, a = c.post(ctx, body)
		return a
	}, nil)
	switch {
	case err != nil:
		return SteerResponse{}, fmt.Errorf("%w: %w", ErrSteer, err)
	case last.Err != nil:
		return SteerResponse{}, fault.Infrastructure(fmt.Errorf("%w: after %d attempts: %w", ErrSteer, n, last.Err))
	}
	return SteerResponse{Content: text, Attempts: n, Latency: time.Since(t0)}, nil
}

// post makes one attempt (Status 0: no response arrived).
func (c *SteerClient) post(ctx context.Context, body []byte) (string, llm.Attempt) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(actx, http.MethodPost, c.Endpoint, bytes.NewReader(body))
	if err != nil {
		return "", llm.Attempt{Err: err, Final: true}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("API-Key", c.Key)
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return "", llm.Attempt{Err: llm.Redact(err, c.Key)}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return "", llm.Attempt{Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		return "", llm.Attempt{Err: fmt.Errorf("status %d: %.200s", resp.StatusCode, strings.TrimSpace(string(raw))), Status: resp.StatusCode, Header: resp.Header}
	}
	var out struct {
		Response *string `json:"response"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Response == nil {
		return "", llm.Attempt{Err: fmt.Errorf("invalid response: %.200s", strings.TrimSpace(string(raw))), Status: resp.StatusCode}
	}
	return *out.Response, llm.Attempt{Status: resp.StatusCode}
}

var _ Steerer = (*SteerClient)(nil)
