package message

import (
	"testing"
)

func TestParseUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		raw  string
		want Usage
	}{
		{"openai", `{"prompt_tokens":2000,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":1536},"completion_tokens_details":{"reasoning_tokens":4}}`,
			Usage{PromptTokens: 2000, CompletionTokens: 10, ReasoningTokens: 4, CachedTokens: 1536}},
		{"openai cached 0 is known", `{"prompt_tokens":900,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":0}}`,
			Usage{PromptTokens: 900, CompletionTokens: 1}},
		{"details without cached_tokens", `{"prompt_tokens":900,"completion_tokens":1,"prompt_tokens_details":{"audio_tokens":0}}`,
			Usage{PromptTokens: 900, CompletionTokens: 1, CacheUnknown: 1}},
		{"tau2 file: no cached count", `{"completion_tokens":20,"prompt_tokens":3000}`,
			Usage{PromptTokens: 3000, CompletionTokens: 20, CacheUnknown: 1}},
		{"moonshot top level", `{"prompt_tokens":3000,"completion_tokens":2,"cached_tokens":2048}`,
			Usage{PromptTokens: 3000, CompletionTokens: 2, CachedTokens: 2048}},
		{"deepseek hit/miss", `{"prompt_tokens":3000,"completion_tokens":2,"prompt_cache_hit_tokens":1024,"prompt_cache_miss_tokens":1976}`,
			Usage{PromptTokens: 3000, CompletionTokens: 2, CachedTokens: 1024}},
		{"anthropic-style", `{"prompt_tokens":3000,"completion_tokens":2,"cache_read_input_tokens":2500}`,
			Usage{PromptTokens: 3000, CompletionTokens: 2, CachedTokens: 2500}},
		{"capped at the prompt", `{"prompt_tokens":100,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":500}}`,
			Usage{PromptTokens: 100, CompletionTokens: 2, CachedTokens: 100}},
		{"negative count", `{"prompt_tokens":100,"completion_tokens":2,"cached_tokens":-5}`,
			Usage{PromptTokens: 100, CompletionTokens: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseUsage([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("ParseUsage(%s) = %+v; want %+v", tc.raw, got, tc.want)
			}
		})
	}
	if _, err := ParseUsage([]byte(`{"prompt_tokens":"x"}`)); err == nil {
		t.Error("a prompt_tokens string parsed; want an error")
	}
}

func TestCachedShare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		u     Usage
		share float64
		ok    bool
	}{
		{"known", Usage{PromptTokens: 1000, CachedTokens: 250}, 0.25, true},
		{"none cached", Usage{PromptTokens: 1000}, 0, true},
		{"a call without a count", Usage{PromptTokens: 1000, CachedTokens: 250, CacheUnknown: 1}, 0, false},
		{"no prompt", Usage{}, 0, false},
		{"summed", Usage{PromptTokens: 1000, CachedTokens: 500}.Add(Usage{PromptTokens: 1000}), 0.25, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sh, ok := tc.u.CachedShare()
			if sh != tc.share || ok != tc.ok {
				t.Errorf("%+v.CachedShare() = %v, %v; want %v, %v", tc.u, sh, ok, tc.share, tc.ok)
			}
		})
	}
}

func FuzzParseUsage(f *testing.F) {
	for _, s := range []string{`{"prompt_tokens":2000,"prompt_tokens_details":{"cached_tokens":1536}}`, `{"cached_tokens":3}`, `null`, `{`, `{"prompt_cache_hit_tokens":-1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		u, err := ParseUsage(raw)
		if err != nil {
			return
		}
		if u.CachedTokens < 0 || (u.PromptTokens >= 0 && u.CachedTokens > u.PromptTokens) {
			t.Errorf("ParseUsage(%q) cached %d of %d prompt tokens", raw, u.CachedTokens, u.PromptTokens)
		}
		if u.CacheUnknown != 0 && u.CacheUnknown != 1 {
			t.Errorf("ParseUsage(%q) CacheUnknown %d", raw, u.CacheUnknown)
		}
	})
}
