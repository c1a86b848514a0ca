package openaitest

import (
	"strings"
	"testing"
)

func TestCachedTokensRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ prompt, shared, want int }{
		{1000, 1000, 0},    // under 1,024 tokens: never cached
		{5000, 1023, 0},    // shared prefix too short
		{5000, 1024, 1024}, // the minimum
		{5000, 1151, 1024}, // 127 more: still one step
		{5000, 1152, 1152}, // one 128-token step
		{5000, 4999, 4992},
		{2000, 9000, 1920}, // capped at the prompt, in steps
	} {
		if got := CachedTokens(tc.prompt, tc.shared); got != tc.want {
			t.Errorf("CachedTokens(%d, %d) = %d; want %d", tc.prompt, tc.shared, got, tc.want)
		}
	}
}

// A conversation that grows reuses its previous request's prefix; a change
// at the start of the system message invalidates it; models do not share.
func TestPromptCacheBill(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	sys := strings.Repeat("policy ", 1000) // 7,000 bytes: 1,750 tokens
	turn := strings.Repeat("u", 2000)
	req := func(model, system string, turns int) *Request {
		r := &Request{Model: model, Messages: []Message{{Role: "system", Content: str(system)}}}
		for range turns {
			r.Messages = append(r.Messages, Message{Role: "user", Content: str(turn)})
		}
		return r
	}
	c := NewPromptCache()
	if p, cached := c.Bill(req("a", sys, 1)); cached != 0 || p != ApproxTokens(len(PromptText(req("a", sys, 1)))) {
		t.Errorf("first request: %d of %d cached; want none", cached, p)
	}
	p, cached := c.Bill(req("a", sys, 2))
	if want := CachedTokens(p, len(PromptText(req("a", sys, 1)))/4); cached != want || cached < 2000 {
		t.Errorf("grown conversation: %d of %d cached; want %d (the previous prompt)", cached, p, want)
	}
	if _, cached := c.Bill(req("a", "X"+sys, 2)); cached != 0 {
		t.Errorf("changed system message: %d cached; want 0", cached)
	}
	if _, cached := c.Bill(req("b", sys, 2)); cached != 0 {
		t.Errorf("another model: %d cached; want 0", cached)
	}
}
