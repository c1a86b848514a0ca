package experiment

import (
	"errors"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
)

func TestCheckAndEstimates(t *testing.T) {
	t.Parallel()
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
	problems := Check(cfg, "b.yaml", bbs, func(string) (string, bool) { return "", false }, nil)
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
	p := Check(cfg, "b.yaml", bbs, func(k string) (string, bool) { return "", false }, nil)
	var keyLines []string
	for _, l := range p {
		if strings.Contains(l, "K_KEY") {
			keyLines = append(keyLines, l)
		}
	}
	// One line for the variable, naming its backbone's role and the cells
	// (the file's judge is every cell's: the model agents' always, the
	// offline ones' because their tasks may have NL assertions).
	if len(keyLines) != 1 || !strings.Contains(keyLines[0], "environment variable K_KEY is empty or unset") ||
		!strings.Contains(keyLines[0], "judge keyed of 6 cells") {
		t.Errorf("problems %q: want one line naming K_KEY, the judge keyed and its 6 cells", p)
	}
	// Offline cells whose tasks have no NL assertions need no judge: no key.
	offline := func(c Cell) bool { return false }
	p = Check(&Config{Out: "o", Trials: 1, Limit: 2, Grid: []Block{{Domains: []string{"airline"}, Agents: []string{"baseline"}, Backbones: []string{"sim", "gold"}}}},
		"b.yaml", bbs, func(string) (string, bool) { return "", false }, offline)
	if len(p) != 0 {
		t.Errorf("offline cells without NL tasks: problems %q; want none (no judge is called)", p)
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

func TestRetrievalCells(t *testing.T) {
	c, err := Parse([]byte(`out: o
grid:
  - {domains: [banking_knowledge], agents: [baseline, ledger], backbones: [gold], retrieval_configs: [bm25, alltools]}
  - {domains: [banking_knowledge], agents: [baseline], backbones: [gold]}
`))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, cell := range c.Cells() {
		ids = append(ids, cell.ID()+" "+cell.Dir)
	}
	want := []string{
		"banking_knowledge/baseline/gold/retrieval=bm25 o/runs/banking-knowledge_baseline_gold_retrieval-bm25",
		"banking_knowledge/ledger/gold/retrieval=bm25 o/runs/banking-knowledge_ledger_gold_retrieval-bm25",
		"banking_knowledge/baseline/gold/retrieval=alltools o/runs/banking-knowledge_baseline_gold_retrieval-alltools",
		"banking_knowledge/ledger/gold/retrieval=alltools o/runs/banking-knowledge_ledger_gold_retrieval-alltools",
		"banking_knowledge/baseline/gold o/runs/banking-knowledge_baseline_gold",
	}
	if strings.Join(ids, "\n") != strings.Join(want, "\n") {
		t.Errorf("cells:\n%s\nwant\n%s", strings.Join(ids, "\n"), strings.Join(want, "\n"))
	}
	for _, bad := range []struct{ block, want string }{
		{`{domains: [airline], agents: [baseline], backbones: [gold], retrieval_configs: [bm25]}`, "applies to banking_knowledge only"},
		{`{domains: [banking_knowledge], agents: [baseline], backbones: [gold], retrieval_configs: [bm26]}`, `unknown retrieval variant "bm26"`},
		{`{domains: [banking_knowledge], agents: [baseline], backbones: [gold], retrieval_config_kwargs: {top_k: "5"}}`, "top_k must be an integer"},
	} {
		if _, err := Parse([]byte("out: o\ngrid:\n  - " + bad.block + "\n")); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v; want %q", bad.block, err, bad.want)
		}
	}
}

func TestCheckRetrieval(t *testing.T) {
	bbs, err := llm.Decode(strings.NewReader(`
backbones:
  rr: {base_url: "http://x/v1", model: gpt-5.2, api_key_env: RR_KEY}
embeddings:
  text-embedding-3-large: {type: openai, base_url: "http://x/v1", model: text-embedding-3-large}
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse([]byte(`out: o
grid:
  - {domains: [banking_knowledge], agents: [baseline], backbones: [gold], retrieval_configs: [bm25, openai_embeddings_reranker, qwen_embeddings, terminal_use]}
`))
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	env := RetrievalEnv{
		RerankerModel: func() (string, error) { asked++; return "gpt-5.2", nil },
		Sandbox:       func() error { return errors.New("no bwrap here") },
	}
	got := strings.Join(CheckRetrieval(cfg, "b.yaml", bbs, func(string) (string, bool) { return "", false }, env), "\n")
	for _, want := range []string{
		"banking_knowledge/baseline/gold/retrieval=openai_embeddings_reranker: retrieval openai_embeddings_reranker: reranker: backbone rr: llm: API key not set",
		`banking_knowledge/baseline/gold/retrieval=qwen_embeddings: retrieval qwen_embeddings: llm: unknown embeddings entry "qwen3-embedding-8b"`,
		"banking_knowledge/baseline/gold/retrieval=terminal_use: retrieval terminal_use: shell: no bwrap here",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems\n%s\nlack %q", got, want)
		}
	}
	if strings.Contains(got, "retrieval=bm25:") || strings.Count(got, "\n") != 2 || asked != 1 {
		t.Errorf("problems\n%s\n(reranker model asked %d times); want three, none for bm25", got, asked)
	}
}

// TestCheckSteer: τ-Trait's steering user backbone is checked through its
// environment variables, not the backbones file, and its calls are left out
// of the estimate (no price).
func TestCheckSteer(t *testing.T) {
	t.Parallel()
	bbs, err := llm.Decode(strings.NewReader(`
backbones:
  fake: {base_url: "http://x/v1", model: fake-model, price: {input: 2, output: 8}}
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Out: "o", Trials: 1, Judge: "none", Grid: []Block{
		{Domains: []string{"telehealth"}, Agents: []string{"baseline"}, Backbones: []string{"fake"}, UserBackbones: []string{"steer"}, Traits: []string{"none"}},
	}}
	problems := Check(cfg, "b.yaml", bbs, func(string) (string, bool) { return "", false }, nil)
	if len(problems) != 1 || !strings.Contains(problems[0], "STEER_ENDPOINT is not set") || !strings.Contains(problems[0], "STEER_API_KEY is not set") {
		t.Errorf("problems %q; want the steering endpoint's variables", problems)
	}
	env := map[string]string{"STEER_ENDPOINT": "https://steer.example", "STEER_API_KEY": "k"}
	if p := Check(cfg, "b.yaml", bbs, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil); len(p) != 0 {
		t.Errorf("problems %q with the variables set", p)
	}
	res := &Result{Cells: []Status{{ID: cfg.Cells()[0].ID(), Expected: 20}}}
	est := Estimates(cfg, res, "b.yaml", bbs)
	if len(est) != 1 || !est[0].Priced || !est[0].UserUnpriced || est[0].User != 0 || est[0].Agent == 0 {
		t.Errorf("estimate %+v; want the agent priced, the steering user left out", est)
	}
}
