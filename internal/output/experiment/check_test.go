package experiment

import (
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
)

func TestCheckAndEstimates(t *testing.T) {
	bbs, err := llm.Decode(strings.NewReader(`
judge: keyed
backbones:
  fake: {base_url: "http://x/v1", model: fake-model, price: {input: 2, cached_input: 0.5, output: 8}}
  gpt-4.1: {base_url: "http://x/v1", model: gpt-4.1-2025-04-14, temperature: 0, price: {input: 1, output: 4}}
  keyed: {base_url: "http://x/v1", model: k, api_key_env: K_KEY}
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Out: "o", Trials: 1, Limit: 2, Judge: "none", Grid: []Block{
		{Domains: []string{"airline"}, Agents: []string{"baseline", "nobody"}, Backbones: []string{"fake", "sim", "missing"}},
	}}
	cells := cfg.Cells()
	problems := Check(cfg, "b.yaml", bbs, func(string) (string, bool) { return "", false })
	want := []string{`airline/nobody/fake: unknown agent "nobody"`, "airline/baseline/missing: backbone:"}
	// The user of a model agent is τ²-bench's default, in the file.
	if strings.Contains(strings.Join(problems, "\n"), "user backbone") {
		t.Errorf("problems %q name a user backbone; want τ²-bench's default (gpt-4.1 in the file) used", problems)
	}
	for _, w := range want {
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p, w)
		}
		if !found {
			t.Errorf("problems %q lack %q", problems, w)
		}
	}
	// The file's judge is checked (its key is unset) when the grid does not say none.
	cfg.Judge = ""
	if p := Check(cfg, "b.yaml", bbs, func(k string) (string, bool) { return "", false }); !strings.Contains(strings.Join(p, "\n"), "judge: backbone keyed") {
		t.Errorf("problems %q do not name the judge's unset key", p)
	}
	res := &Result{}
	for _, c := range cells {
		res.Cells = append(res.Cells, Status{Cell: c, ID: c.ID(), State: Pending, Expected: 2})
	}
	typ := TypicalUsage("airline")
	for _, e := range Estimates(cfg, res, "b.yaml", bbs) {
		switch e.Cell.Backbone {
		case "fake":
			// AssumedCacheShare of the prompt at cached_input (the user's
			// price has none: its cached tokens cost the input price).
			cachedAgent := typ.Agent
			cachedAgent.CachedTokens = int(float64(typ.Agent.PromptTokens) * AssumedCacheShare)
			agent, user := llm.Price{Input: 2, CachedInput: 0.5, Output: 8}.Cost(cachedAgent), llm.Price{Input: 1, Output: 4}.Cost(typ.User)
			if full := (llm.Price{Input: 2, Output: 8}).Cost(typ.Agent); agent >= full {
				t.Errorf("agent estimate $%v with a cached_input price; want below the uncached $%v", agent, full)
			}
			if !e.Priced || e.Agent != agent || e.User != user || e.Total() != 2*(agent+user) {
				t.Errorf("%s: %+v; want $%v agent, $%v user (the default user's price) per simulation", e.Cell.ID(), e, agent, user)
			}
		case "sim":
			if !e.Priced || e.Total() != 0 {
				t.Errorf("%s: %+v; want priced at 0", e.Cell.ID(), e)
			}
		case "missing":
			if e.Priced {
				t.Errorf("%s: %+v; want no price", e.Cell.ID(), e)
			}
		}
	}
}
