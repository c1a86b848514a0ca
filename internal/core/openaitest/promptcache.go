package openaitest

import (
	"sync"
)

// OpenAI's prompt caching as its documentation states it: a request whose
// prompt is at least CacheMinTokens long reuses the longest prefix it shares
// with a recent request, counted from CacheMinTokens in CacheStepTokens
// steps; shorter prompts and shorter shared prefixes are not cached.
const (
	CacheMinTokens  = 1024
	CacheStepTokens = 128
	// cacheRecent is how many recent prompts per model a PromptCache
	// keeps: the requests of the conversation in progress and of the
	// conversations just before it (OpenAI keeps a prefix for 5 to 10
	// idle minutes).
	cacheRecent = 32
)

// ApproxTokens is the token-count approximation of a PromptCache: one token
// per 4 bytes of the prompt text (rounded up), the usual estimate for
// English text and JSON under OpenAI's o200k and cl100k tokenizers.
func ApproxTokens(n int) int { return (n + 3) / 4 }

// PromptCache bills prompt caching for a fake provider (a Handler sets the
// Reply's Usage from Bill). The prompt is the request's tools then its
// messages, each written out in order (PromptText); it is safe for
// concurrent use.
type PromptCache struct {
	mu     sync.Mutex
	recent map[string][][]byte // per model, oldest first
}

// NewPromptCache returns an empty cache.
func NewPromptCache() *PromptCache { return &PromptCache{recent: map[string][][]byte{}} }

// Bill returns the prompt tokens of req and how many of them the cache
// serves, and remembers the prompt.
func (c *PromptCache) Bill(req *Request) (prompt, cached int) {
	text := PromptText(req)
	prompt = ApproxTokens(len(text))
	c.mu.Lock()
	defer c.mu.Unlock()
	best := 0
	for _, p := range c.recent[req.Model] {
		best = max(best, commonPrefix(p, text))
	}
	rs := append(c.recent[req.Model], text)
	if len(rs) > cacheRecent {
		rs = rs[len(rs)-cacheRecent:]
	}
	c.recent[req.Model] = rs
	return prompt, CachedTokens(prompt, best/4)
}

// CachedTokens applies OpenAI's rule to a prompt of prompt tokens sharing
// shared tokens with a recent one.
func CachedTokens(prompt, shared int) int {
	shared = min(shared, prompt)
	if prompt < CacheMinTokens || shared < CacheMinTokens {
		return 0
	}
	return CacheMinTokens + (shared-CacheMinTokens)/CacheStepTokens*CacheStepTokens
}

// PromptText writes a request's prompt out as the text a prefix cache sees:
// every tool (name, description, parameters), then every message (role,
// content, tool calls, tool call id), in the order sent.
func PromptText(req *Request) []byte {
	var b []byte
	for _, t := range req.Tools {
		b = append(b, "\x00tool "...)
		b = append(b, t.Name...)
		b = append(b, '\n')
		b = append(b, t.Description...)
		b = append(b, t.Parameters...)
	}
	for _, m := range req.Messages {
		b = append(b, "\x00"...)
		b = append(b, m.Role...)
		b = append(b, '\n')
		b = append(b, m.Text()...)
		for _, tc := range m.ToolCalls {
			b = append(b, "\x00call "...)
			b = append(b, tc.ID...)
			b = append(b, ' ')
			b = append(b, tc.Name...)
			b = append(b, tc.Arguments...)
		}
		b = append(b, m.ToolCallID...)
	}
	return b
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
