package message

import (
	"encoding/json"
	"fmt"
)

// wireUsage is a usage block as providers write it in chat completion
// replies (and τ²-bench's files copy it): OpenAI's fields, and the places
// other providers put the prompt tokens served from their cache.
type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// OpenAI, OpenRouter, xAI, Qwen (DashScope), GLM, vLLM with
	// --enable-prompt-tokens-details.
	PromptDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	// Moonshot (Kimi) puts cached_tokens at the top level.
	CachedTokens *int `json:"cached_tokens"`
	// DeepSeek: prompt_cache_hit_tokens (and _miss_, which add up to
	// prompt_tokens).
	PromptCacheHit *int `json:"prompt_cache_hit_tokens"`
	// Anthropic-style (its compatibility layer, LiteLLM's proxy):
	// cache_read_input_tokens.
	CacheRead *int `json:"cache_read_input_tokens"`
}

// ParseUsage reads a chat completion reply's usage block: prompt and
// completion tokens, reasoning tokens, and the cached prompt tokens wherever
// the provider reports them (prompt_tokens_details.cached_tokens,
// cached_tokens, prompt_cache_hit_tokens, cache_read_input_tokens; the
// largest when several are given, capped at the prompt tokens). A block
// with none of them has CacheUnknown 1: its cached share is unknown, not 0.
func ParseUsage(raw []byte) (Usage, error) {
	var w wireUsage
	if err := json.Unmarshal(raw, &w); err != nil {
		return Usage{}, fmt.Errorf("read usage: %w", err)
	}
	u := Usage{PromptTokens: w.PromptTokens, CompletionTokens: w.CompletionTokens}
	if w.CompletionDetails != nil {
		u.ReasoningTokens = w.CompletionDetails.ReasoningTokens
	}
	known := false
	for _, p := range []*int{w.CachedTokens, w.PromptCacheHit, w.CacheRead} {
		if p != nil {
			known = true
			u.CachedTokens = max(u.CachedTokens, *p)
		}
	}
	if d := w.PromptDetails; d != nil && d.CachedTokens != nil {
		known = true
		u.CachedTokens = max(u.CachedTokens, *d.CachedTokens)
	}
	u.CachedTokens = max(0, min(u.CachedTokens, u.PromptTokens))
	if !known {
		u.CacheUnknown = 1
	}
	return u, nil
}
