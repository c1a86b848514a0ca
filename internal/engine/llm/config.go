package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/strictyaml"
)

// Defaults for fields a backbone leaves out.
const (
	DefaultTimeout    = 5 * time.Minute
	DefaultMaxRetries = 3 // as upstream's num_retries
	// RateLimitRetries is the least number of 429s a call retries, whatever
	// max_retries says.
	RateLimitRetries = 10
)

// Config is a backbones file: named model endpoints and the default judge.
type Config struct {
	// Judge names the backbone used for NL assertions (upstream: gpt-4.1).
	Judge string `yaml:"judge"`
	// Backbones maps a name (used on the command line and in results) to
	// its endpoint and parameters.
	Backbones map[string]Backbone `yaml:"backbones"`
	// Embeddings maps a name to an embeddings endpoint (the dense
	// retrieval of banking_knowledge). The name is upstream's embedding
	// model name (text-embedding-3-large, qwen3-embedding-8b).
	Embeddings map[string]Embedding `yaml:"embeddings"`
	// lines are the lines of the file's keys (none when not read from one).
	lines strictyaml.Lines
}

// Backbone is one model endpoint speaking the OpenAI chat completions API.
type Backbone struct {
	// Name is the key the backbone has in Config.Backbones.
	Name string `yaml:"-"`
	// BaseURL is the API root, e.g. https://api.openai.com/v1.
	BaseURL string `yaml:"base_url"`
	// Model is the provider's model id.
	Model string `yaml:"model"`
	// APIKeyEnv names the environment variable holding the API key. Keys
	// are only ever read from the environment. Empty: no key is sent
	// (local servers).
	APIKeyEnv string `yaml:"api_key_env"`
	// Temperature is sent when set; absent means the key is not sent (for
	// models that reject it).
	Temperature *float64 `yaml:"temperature"`
	// MaxTokens and MaxCompletionTokens (reasoning models) are sent when
	// positive; set at most one.
	MaxTokens           int `yaml:"max_tokens"`
	MaxCompletionTokens int `yaml:"max_completion_tokens"`
	// ReasoningEffort is sent when set (none, minimal, low, medium, high,
	// xhigh).
	ReasoningEffort string `yaml:"reasoning_effort"`
	// SendReasoning sends each assistant message's reasoning_content back on
	// later turns (Kimi and GLM thinking modes expect it).
	SendReasoning bool `yaml:"send_reasoning"`
	// StripThink moves reasoning that the model writes into its content
	// ("<think>…</think>" before the answer, as Qwen3 or MiniMax without
	// reasoning_split do) to ReasoningContent.
	StripThink bool `yaml:"strip_think"`
	// ExtraBody is merged into the top level of the request JSON, replacing
	// keys of the same name (like the OpenAI SDKs' extra_body).
	ExtraBody map[string]any `yaml:"extra_body"`
	// Price is used to compute each call's cost; nil (no price: key) means
	// the cost is unknown, which records and reports say (never $0).
	Price *Price `yaml:"price"`
	// RPM and TPM limit requests and tokens per minute for everything using
	// this backbone in the process (0: unlimited).
	RPM int `yaml:"rpm"`
	TPM int `yaml:"tpm"`
	// Timeout bounds one attempt (0: DefaultTimeout).
	Timeout time.Duration `yaml:"timeout"`
	// MaxRetries is the number of retries after the first attempt (absent:
	// DefaultMaxRetries).
	MaxRetries *int `yaml:"max_retries"`
}

// Embedding is one endpoint speaking the OpenAI embeddings API
// (POST base_url/embeddings).
type Embedding struct {
	// Name is the key the entry has in Config.Embeddings.
	Name string `yaml:"-"`
	// Type is upstream's embedder type the entry stands for: "openai"
	// (OpenAIEmbedder) or "openrouter" (OpenRouterEmbedder).
	Type string `yaml:"type"`
	// BaseURL is the API root, e.g. https://api.openai.com/v1.
	BaseURL string `yaml:"base_url"`
	// Model is the provider's model id.
	Model string `yaml:"model"`
	// APIKeyEnv names the environment variable holding the API key.
	APIKeyEnv string `yaml:"api_key_env"`
	// EncodingFormat is sent as encoding_format: "base64" (what the
	// OpenAI SDK sends when upstream asks for none: vectors as float32)
	// or "float"; empty: base64 for type openai, float for openrouter, as
	// upstream's embedders send.
	EncodingFormat string `yaml:"encoding_format"`
	// BatchSize bounds the texts of one request (0: all in one, as
	// upstream embeds the documents).
	BatchSize int `yaml:"batch_size"`
	// Price.Input is US dollars per million input tokens; nil (no price:
	// key) means the cost is unknown, as a backbone's.
	Price *Price `yaml:"price"`
	// RPM, TPM, Timeout and MaxRetries are as a backbone's.
	RPM        int           `yaml:"rpm"`
	TPM        int           `yaml:"tpm"`
	Timeout    time.Duration `yaml:"timeout"`
	MaxRetries *int          `yaml:"max_retries"`
}

// Embedding types (upstream's embedder types).
const (
	EmbeddingOpenAI     = "openai"
	EmbeddingOpenRouter = "openrouter"
)

// Format is the encoding_format the entry sends.
func (e Embedding) Format() string {
	switch {
	case e.EncodingFormat != "":
		return e.EncodingFormat
	case e.Type == EmbeddingOpenRouter:
		return "float"
	}
	return "base64"
}

// backbone is the entry as the client machinery (retries, limits, keys)
// takes it.
func (e Embedding) backbone() Backbone {
	b := Backbone{Name: e.Name, BaseURL: e.BaseURL, Model: e.Model, APIKeyEnv: e.APIKeyEnv,
		RPM: e.RPM, TPM: e.TPM, Timeout: e.Timeout, MaxRetries: e.MaxRetries}
	if e.Price != nil {
		b.Price = &Price{Input: e.Price.Input}
	}
	return b
}

func (e Embedding) problems() []problem {
	var out []problem
	for _, p := range e.backbone().problems() {
		p.section = "embedding"
		out = append(out, p)
	}
	bad := func(key, format string, args ...any) {
		out = append(out, problem{section: "embedding", backbone: e.Name, key: key, msg: fmt.Sprintf(format, args...)})
	}
	switch e.Type {
	case EmbeddingOpenAI, EmbeddingOpenRouter:
	case "":
		bad("", "type is required (openai or openrouter)")
	default:
		bad("type", "type %q is not openai or openrouter", e.Type)
	}
	if f := e.EncodingFormat; f != "" && f != "base64" && f != "float" {
		bad("encoding_format", "encoding_format %q is not base64 or float", f)
	}
	if e.BatchSize < 0 {
		bad("batch_size", "batch_size must not be negative")
	}
	if e.Price != nil && (e.Price.CachedInput != 0 || e.Price.Output != 0) {
		bad("price", "an embeddings price has input only")
	}
	return out
}

// ErrUnknownEmbedding is wrapped by Embedding's error for an unknown entry.
var ErrUnknownEmbedding = errors.New("llm: unknown embeddings entry")

// Embedding returns the embeddings entry called name (upstream's model
// name) of upstream's embedder type typ; the error for an unknown one lists
// the known entries.
func (c *Config) Embedding(typ, name string) (Embedding, error) {
	e, ok := c.Embeddings[name]
	if !ok || e.Type != typ {
		var known []string
		for _, n := range sortedKeys(c.Embeddings) {
			known = append(known, n+" ("+c.Embeddings[n].Type+")")
		}
		return Embedding{}, fmt.Errorf("%w %q of type %s in the backbones file (known: %s)", ErrUnknownEmbedding, name, typ, strings.Join(known, ", "))
	}
	return e, nil
}

// Price is in US dollars per million tokens.
type Price struct {
	Input float64 `yaml:"input"`
	// CachedInput applies to prompt tokens the provider served from its
	// prompt cache; 0 means the Input price.
	CachedInput float64 `yaml:"cached_input"`
	Output      float64 `yaml:"output"`
}

// Cost is the price of a call with usage u. Reasoning tokens are part of the
// completion tokens, as the providers report them.
func (p Price) Cost(u message.Usage) float64 {
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	cached := min(u.CachedTokens, u.PromptTokens)
	return (float64(u.PromptTokens-cached)*p.Input +
		float64(cached)*cachedPrice +
		float64(u.CompletionTokens)*p.Output) / 1e6
}

func (b Backbone) timeout() time.Duration {
	if b.Timeout > 0 {
		return b.Timeout
	}
	return DefaultTimeout
}

func (b Backbone) maxRetries() int {
	if b.MaxRetries != nil {
		return *b.MaxRetries
	}
	return DefaultMaxRetries
}

// rateLimitRetries is the number of 429s a call retries: max_retries, at
// least RateLimitRetries (a 429 under the process's own pacing is the
// provider smoothing its load, not a failure of the call).
func (b Backbone) rateLimitRetries() int { return max(b.maxRetries(), RateLimitRetries) }

// Load reads and validates a backbones file. Every problem is reported at
// once, each on its own line as "PATH:LINE: message" (unknown keys, values
// of the wrong type, missing fields, bad values).
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load backbones: %w", err)
	}
	cfg, probs := decode(b)
	if cfg != nil {
		probs = append(probs, cfg.located(probs)...)
	}
	if len(probs) > 0 {
		return nil, probs.Err(path)
	}
	return cfg, nil
}

// Decode reads a backbones document strictly (unknown keys are errors)
// without validating it; errors name their line ("line 3: …").
func Decode(r io.Reader) (*Config, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read backbones: %w", err)
	}
	cfg, probs := decode(b)
	if len(probs) > 0 {
		return nil, probs.Err("")
	}
	return cfg, nil
}

var (
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	nameRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]*$`)
)

// reservedBody are request keys the client owns; extra_body may not set them.
var reservedBody = []string{"model", "messages", "tools", "tool_choice", "stream", "n"}

var reasoningEfforts = []string{"", "none", "minimal", "low", "medium", "high", "xhigh"}

// Validate reports every problem of the configuration at once.
func (c *Config) Validate() error {
	var errs []error
	for _, p := range c.problems() {
		errs = append(errs, errors.New(p.text()))
	}
	return errors.Join(errs...)
}

// problem is one validation problem: of the backbone called backbone (""
// for the file's own keys), about key (empty: the backbone as a whole).
type problem struct {
	section            string // "" for a backbone, "embedding" for an embeddings entry
	backbone, key, msg string
}

func (p problem) kind() string {
	if p.section == "" {
		return "backbone"
	}
	return p.section
}

func (p problem) text() string {
	if p.backbone == "" {
		return p.msg
	}
	return p.kind() + " " + p.backbone + ": " + p.msg
}

func (c *Config) problems() []problem {
	var out []problem
	if len(c.Backbones) == 0 {
		out = append(out, problem{key: "backbones", msg: "no backbones defined"})
	}
	if c.Judge != "" {
		if _, ok := c.Backbones[c.Judge]; !ok {
			out = append(out, problem{key: "judge", msg: fmt.Sprintf("judge: unknown backbone %q (known: %s)", c.Judge, strings.Join(c.Names(), ", "))})
		}
	}
	for _, name := range c.Names() {
		out = append(out, c.Backbones[name].problems()...)
	}
	for _, name := range sortedKeys(c.Embeddings) {
		out = append(out, c.Embeddings[name].problems()...)
	}
	return out
}

// Validate reports every problem of one backbone, each prefixed with its
// name.
func (b Backbone) Validate() error {
	var errs []error
	for _, p := range b.problems() {
		errs = append(errs, errors.New(p.text()))
	}
	return errors.Join(errs...)
}

func (b Backbone) problems() []problem {
	var out []problem
	bad := func(key, format string, args ...any) {
		out = append(out, problem{backbone: b.Name, key: key, msg: fmt.Sprintf(format, args...)})
	}
	if !nameRE.MatchString(b.Name) {
		bad("", "name must start with a letter or digit and use only letters, digits and . _ : / -")
	}
	if b.BaseURL == "" {
		bad("base_url", "base_url is required")
	} else if u, err := url.Parse(b.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("base_url", "base_url %q is not an http(s) URL", b.BaseURL)
	} else if u.User != nil {
		bad("base_url", "base_url must not contain credentials; use api_key_env")
	}
	if b.Model == "" {
		bad("model", "model is required")
	}
	if b.APIKeyEnv != "" && !envNameRE.MatchString(b.APIKeyEnv) {
		// Never echo the value: it may be a key pasted in by mistake.
		bad("api_key_env", "api_key_env must be the name of an environment variable (e.g. OPENAI_API_KEY), not a key")
	}
	if t := b.Temperature; t != nil && (*t < 0 || *t > 2) {
		bad("temperature", "temperature %v is outside [0, 2]", *t)
	}
	if b.MaxTokens < 0 || b.MaxCompletionTokens < 0 {
		bad(cmpKey(b.MaxTokens < 0, "max_tokens", "max_completion_tokens"), "max_tokens and max_completion_tokens must not be negative")
	}
	if b.MaxTokens > 0 && b.MaxCompletionTokens > 0 {
		bad("max_completion_tokens", "set max_tokens or max_completion_tokens, not both")
	}
	if !slices.Contains(reasoningEfforts, b.ReasoningEffort) {
		bad("reasoning_effort", "reasoning_effort %q is not one of %s", b.ReasoningEffort, strings.Join(reasoningEfforts[1:], ", "))
	}
	for _, k := range sortedKeys(b.ExtraBody) {
		if slices.Contains(reservedBody, k) {
			bad("extra_body."+k, "extra_body may not set %q", k)
		}
		if _, err := json.Marshal(b.ExtraBody[k]); err != nil {
			bad("extra_body."+k, "extra_body.%s: %v", k, err)
		}
	}
	if p := b.Price; p != nil && (p.Input < 0 || p.CachedInput < 0 || p.Output < 0) {
		bad("price."+cmpKey(p.Input < 0, "input", cmpKey(p.CachedInput < 0, "cached_input", "output")), "prices must not be negative")
	}
	if key, msg := rateProblem(b.RPM, b.TPM); msg != "" {
		bad(key, "%s", msg)
	}
	if b.Timeout < 0 {
		bad("timeout", "timeout must not be negative")
	}
	if r := b.MaxRetries; r != nil && (*r < 0 || *r > 20) {
		bad("max_retries", "max_retries %d is outside [0, 20]", *r)
	}
	return out
}

func cmpKey(first bool, a, b string) string {
	if first {
		return a
	}
	return b
}

// Names lists the backbone names, sorted.
func (c *Config) Names() []string {
	return sortedKeys(c.Backbones)
}

// ErrUnknownBackbone is wrapped by Backbone's error for an unknown name.
var ErrUnknownBackbone = errors.New("llm: unknown backbone")

// Backbone returns the backbone called name; the error for an unknown name
// lists the known ones.
func (c *Config) Backbone(name string) (Backbone, error) {
	b, ok := c.Backbones[name]
	if !ok {
		return Backbone{}, errext.Usagef("%w %q (known: %s)", ErrUnknownBackbone, name, strings.Join(c.Names(), ", "))
	}
	return b, nil
}

// ErrNoAPIKey is wrapped by APIKey's error when the key variable is unset.
var ErrNoAPIKey = errors.New("llm: API key not set")

// APIKey reads the backbone's key through lookup (os.LookupEnv in the CLI).
// A backbone without api_key_env has no key.
func (b Backbone) APIKey(lookup func(string) (string, bool)) (string, error) {
	if b.APIKeyEnv == "" {
		return "", nil
	}
	var v string
	if lookup != nil {
		v, _ = lookup(b.APIKeyEnv)
	}
	if strings.TrimSpace(v) == "" {
		return "", fmt.Errorf("backbone %s: %w: environment variable %s is empty or unset (hint: set %s)",
			b.Name, ErrNoAPIKey, b.APIKeyEnv, b.APIKeyEnv)
	}
	return strings.TrimSpace(v), nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
