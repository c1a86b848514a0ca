package llm

import (
	"errors"
	"io/fs"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

func TestShippedBackbones(t *testing.T) {
	t.Parallel()
	cfg, err := Load("../../../backbones.yaml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	for _, name := range []string{"gpt-4.1", "gpt-5.2", "kimi-k2.5", "glm-5", "minimax-m2.5", "qwen3", "vllm", "ollama"} {
		b, err := cfg.Backbone(name)
		if err != nil {
			t.Errorf("Backbone(%q): %v", name, err)
			continue
		}
		if b.Name != name {
			t.Errorf("Backbone(%q).Name = %q", name, b.Name)
		}
	}
	if cfg.Judge != "gpt-4.1" {
		t.Errorf("Judge = %q; want gpt-4.1", cfg.Judge)
	}
	g := cfg.Backbones["gpt-4.1"]
	if g.Temperature == nil || *g.Temperature != 0 || g.APIKeyEnv != "OPENAI_API_KEY" || g.Timeout != 120*time.Second {
		t.Errorf("gpt-4.1 = %+v", g)
	}
	if cfg.Backbones["gpt-5.2"].Temperature != nil {
		t.Errorf("gpt-5.2 must not send a temperature")
	}
	if !cfg.Backbones["kimi-k2.5"].SendReasoning || !cfg.Backbones["glm-5"].SendReasoning {
		t.Errorf("kimi and glm must send reasoning back")
	}
	if cfg.Backbones["vllm"].APIKeyEnv != "" {
		t.Errorf("vllm needs no key")
	}
}

func TestDecodeStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		doc     string
		wantErr string
	}{
		{"unknown backbone field", "backbones:\n  a:\n    base_url: http://x/v1\n    model: m\n    temprature: 0\n", `line 5: backbone "a": unknown key "temprature" (did you mean "temperature"?)`},
		{"unknown top-level field", "backbone: {}\n", `line 1: unknown key "backbone" (did you mean "backbones"?)`},
		{"unknown price field", "backbones:\n  a:\n    base_url: http://x/v1\n    model: m\n    price: {inputs: 1}\n", `line 5: backbone "a": price: unknown key "inputs" (did you mean "input"?)`},
		{"bad duration", "backbones:\n  a:\n    base_url: http://x/v1\n    model: m\n    timeout: soon\n", "line 5: backbone \"a\": timeout: `soon` is not a duration such as 90s or 5m"},
		{"empty", "", "empty document"},
		{"ok", "backbones:\n  a:\n    base_url: http://x/v1\n    model: m\n    timeout: 90s\n    max_retries: 0\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Decode(strings.NewReader(tc.doc))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				a := cfg.Backbones["a"]
				if a.Name != "a" || a.Timeout != 90*time.Second || a.MaxRetries == nil || *a.MaxRetries != 0 || a.maxRetries() != 0 {
					t.Errorf("decoded %+v", a)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Decode error = %v; want it to mention %q", err, tc.wantErr)
			}
		})
	}
}

// TestPriceUnset: a backbone without price: has no price (its cost is
// unknown), one with price: {input: 0, output: 0} is free (a known $0),
// and a call on an unpriced backbone is not costed.
func TestPriceUnset(t *testing.T) {
	t.Parallel()
	cfg, err := Decode(strings.NewReader("backbones:\n  none:\n    base_url: http://x/v1\n    model: m\n" +
		"  free:\n    base_url: http://x/v1\n    model: m\n    price: {input: 0, output: 0}\n" +
		"  empty:\n    base_url: http://x/v1\n    model: m\n    price: {}\n" +
		"  paid:\n    base_url: http://x/v1\n    model: m\n    price: {input: 2, output: 8}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]*Price{"none": nil, "free": {}, "empty": {}, "paid": {Input: 2, Output: 8}} {
		got := cfg.Backbones[name].Price
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Errorf("%s: price %+v; want %+v", name, got, want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/nope.yaml")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) = %v; want fs.ErrNotExist", err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	good := func() Backbone {
		return Backbone{Name: "ok", BaseURL: "https://api.example.com/v1", Model: "m", APIKeyEnv: "EXAMPLE_KEY"}
	}
	tests := []struct {
		name   string
		mutate func(*Backbone)
		want   []string // substrings; nil = valid
	}{
		{"valid", func(*Backbone) {}, nil},
		{"missing url and model", func(b *Backbone) { b.BaseURL, b.Model = "", "" }, []string{"base_url is required", "model is required"}},
		{"bad url", func(b *Backbone) { b.BaseURL = "api.example.com" }, []string{"not an http(s) URL"}},
		{"credentials in url", func(b *Backbone) { b.BaseURL = "https://u:p@x/v1" }, []string{"must not contain credentials"}},
		{"key instead of env name", func(b *Backbone) { b.APIKeyEnv = "sk-abc-123" }, []string{"not a key"}},
		{"temperature range", func(b *Backbone) { b.Temperature = ptr(3.0) }, []string{"temperature 3 is outside"}},
		{"both token limits", func(b *Backbone) { b.MaxTokens, b.MaxCompletionTokens = 1, 1 }, []string{"not both"}},
		{"negative tokens", func(b *Backbone) { b.MaxTokens = -1 }, []string{"must not be negative"}},
		{"effort", func(b *Backbone) { b.ReasoningEffort = "huge" }, []string{`reasoning_effort "huge"`}},
		{"reserved extra", func(b *Backbone) { b.ExtraBody = map[string]any{"messages": 1, "model": 2} }, []string{`may not set "messages"`, `may not set "model"`}},
		{"unencodable extra", func(b *Backbone) { b.ExtraBody = map[string]any{"x": math.Inf(1)} }, []string{"extra_body.x"}},
		{"negative price", func(b *Backbone) { b.Price = &Price{Output: -1} }, []string{"prices"}},
		{"negative limits", func(b *Backbone) { b.RPM = -1 }, []string{"rpm and tpm must not be negative"}},
		{"absurd rpm", func(b *Backbone) { b.RPM = 50_000_000 }, []string{"rpm 50000000 is more than any provider grants"}},
		{"absurd tpm", func(b *Backbone) { b.TPM = 20_000_000_000 }, []string{"tpm 20000000000 is more than any provider grants"}},
		{"tpm below one request", func(b *Backbone) { b.TPM = 60 }, []string{"tpm 60 cannot carry one request"}},
		{"negative timeout", func(b *Backbone) { b.Timeout = -time.Second }, []string{"timeout"}},
		{"retries", func(b *Backbone) { b.MaxRetries = ptr(99) }, []string{"max_retries 99"}},
		{"bad name", func(b *Backbone) { b.Name = "a b" }, []string{"name must"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := good()
			tc.mutate(&b)
			err := b.Validate()
			if tc.want == nil {
				if err != nil {
					t.Errorf("Validate() = %v; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %v; want it to mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "sk-abc-123") {
				t.Errorf("Validate echoes a key-like value: %v", err)
			}
		})
	}
}

func TestConfigValidateJoinsEverything(t *testing.T) {
	t.Parallel()
	cfg := &Config{Judge: "missing", Backbones: map[string]Backbone{
		"a": {Name: "a", Model: "m"},
		"b": {Name: "b", BaseURL: "http://x/v1"},
	}}
	err := cfg.Validate()
	for _, w := range []string{`judge: unknown backbone "missing"`, "backbone a: base_url is required", "backbone b: model is required"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Validate() = %v; want it to mention %q", err, w)
		}
	}
	if err := (&Config{}).Validate(); err == nil || !strings.Contains(err.Error(), "no backbones") {
		t.Errorf("empty config: %v", err)
	}
}

func TestAPIKey(t *testing.T) {
	t.Parallel()
	b := Backbone{Name: "x", APIKeyEnv: "X_KEY"}
	env := map[string]string{"X_KEY": "  sk-1  ", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if k, err := b.APIKey(lookup); err != nil || k != "sk-1" {
		t.Errorf("APIKey = %q, %v; want sk-1", k, err)
	}
	for _, name := range []string{"UNSET", "EMPTY"} {
		b.APIKeyEnv = name
		_, err := b.APIKey(lookup)
		if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "hint: set "+name) {
			t.Errorf("APIKey(%s) = %v; want ErrNoAPIKey with a hint", name, err)
		}
	}
	b.APIKeyEnv = ""
	if k, err := b.APIKey(nil); k != "" || err != nil {
		t.Errorf("no key env: %q, %v", k, err)
	}
}

func TestPriceCost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Price
		u    message.Usage
		want float64
	}{
		{Price{Input: 2, Output: 8}, message.Usage{PromptTokens: 1_000_000, CompletionTokens: 500_000}, 6},
		{Price{Input: 2, CachedInput: 0.5, Output: 8}, message.Usage{PromptTokens: 1_000_000, CachedTokens: 1_000_000}, 0.5},
		{Price{Input: 2, Output: 8}, message.Usage{PromptTokens: 1_000_000, CachedTokens: 400_000}, 2}, // no cached price: full price
		{Price{}, message.Usage{PromptTokens: 5, CompletionTokens: 5}, 0},
	}
	for _, tc := range tests {
		if got := tc.p.Cost(tc.u); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%+v.Cost(%+v) = %v; want %v", tc.p, tc.u, got, tc.want)
		}
	}
}
