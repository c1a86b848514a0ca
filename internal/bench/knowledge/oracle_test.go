package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pymath"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// The oracle tests compare this package with upstream's own retrieval code
// run by testdata/oracle/knowledge_oracle.py from a tau2-bench checkout:
//
//	TAU2_SRC=/path/to/tau2-bench/src RANK_BM25_SRC=/path/to/rank_bm25 \
//	LEDGERBENCH_KNOWLEDGE_ORACLE="python3 testdata/oracle/knowledge_oracle.py" \
//	go test ./internal/bench/knowledge -run Oracle
//
// They are skipped unless LEDGERBENCH_KNOWLEDGE_ORACLE is set;
// LEDGERBENCH_KNOWLEDGE_ORACLE_N (default 400) sets the number of generated
// queries and patterns, LEDGERBENCH_KNOWLEDGE_ORACLE_SEED the seed.

type oracleCall struct {
	Tool          string          `json:"tool"`
	Args          json.RawMessage `json:"args"`
	TopK          *int            `json:"top_k,omitempty"`
	GrepTopK      *int            `json:"grep_top_k,omitempty"`
	CaseSensitive bool            `json:"case_sensitive,omitempty"`
}

func TestOfflineOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_KNOWLEDGE_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_KNOWLEDGE_ORACLE not set")
	}
	n := oracletest.EnvInt(t, "LEDGERBENCH_KNOWLEDGE_ORACLE_N", 400)
	seed := uint64(oracletest.EnvInt(t, "LEDGERBENCH_KNOWLEDGE_ORACLE_SEED", 1))
	base, dir := realBase(t)
	g := &queryGen{r: rand.New(rand.NewPCG(seed, 11)), base: base}
	queries := g.queries(n)
	calls := g.calls(n, queries)
	var logs []float64
	for k := 0; k <= 2*base.Len()+2; k++ {
		logs = append(logs, float64(k)+0.5)
	}
	var want struct {
		IDs        []string   `json:"ids"`
		Scores     [][]string `json:"scores"`
		AverageIDF string     `json:"average_idf"`
		Calls      [][2]any   `json:"calls"`
		Logs       []string   `json:"logs"`
	}
	oracletest.JSON(t, cmdline, map[string]any{"documents": dir, "scores": queries, "calls": calls, "logs": logs}, &want)

	// Documents in the same order.
	if len(want.IDs) != base.Len() {
		t.Fatalf("upstream loaded %d documents; we %d", len(want.IDs), base.Len())
	}
	for i, d := range base.Docs() {
		if d.ID != want.IDs[i] {
			t.Fatalf("document %d: %s; upstream %s", i, d.ID, want.IDs[i])
		}
	}
	// log(k + 0.5): pymath.Log against Python's math.log.
	for i, x := range logs {
		if w := hexFloat(t, want.Logs[i]); pymath.Log(x) != w {
			t.Errorf("log(%v) = %v; Python %v", x, pymath.Log(x), w)
		}
	}
	// BM25 scores, bit for bit.
	texts := make([]string, base.Len())
	for i, d := range base.Docs() {
		texts[i] = d.Content
	}
	bm := NewBM25(texts)
	exact, maxDiff := 0, 0.0
	for qi, q := range queries {
		got := bm.Scores(q)
		same := true
		for d, s := range got {
			w := hexFloat(t, want.Scores[qi][d])
			if s != w {
				same = false
				maxDiff = math.Max(maxDiff, math.Abs(s-w))
			}
		}
		if same {
			exact++
		} else if maxDiff > 1e-9 {
			t.Errorf("query %q: scores differ by %g", q, maxDiff)
		}
	}
	t.Logf("BM25: %d/%d queries with every score bit-equal to rank_bm25's (max difference %g)", exact, len(queries), maxDiff)
	if exact != len(queries) {
		t.Errorf("%d queries with scores not bit-equal", len(queries)-exact)
	}

	// Tool outputs.
	ctx := context.Background()
	equal := map[string]int{}
	total := map[string]int{}
	for i, c := range calls {
		content, isErr := callTool(t, ctx, base, c)
		w := want.Calls[i]
		total[c.Tool]++
		if StripTiming(content) == StripTiming(w[0].(string)) && isErr == w[1].(bool) {
			equal[c.Tool]++
			continue
		}
		t.Errorf("%s%s (top_k %v, grep_top_k %v, case-sensitive %v):\n got (error=%v): %.500q\nwant (error=%v): %.500q",
			c.Tool, c.Args, ptr(c.TopK), ptr(c.GrepTopK), c.CaseSensitive, isErr, content, w[1], w[0])
	}
	for name, n := range total {
		t.Logf("%s: %d/%d outputs equal to upstream's", name, equal[name], n)
	}
}

func ptr(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func hexFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("oracle float %q: %v", s, err)
	}
	return f
}

var testTools = map[string]tool.Tool[struct{}]{}

// callTool runs a call the way the environment does: the tool's message
// content, or its error text.
func callTool(t *testing.T, ctx context.Context, base *Base, c oracleCall) (string, bool) {
	t.Helper()
	key := fmt.Sprint(c.Tool, ptr(c.TopK), ptr(c.GrepTopK), c.CaseSensitive)
	tl, ok := testTools[key]
	if !ok {
		tl = newTestTool(t, base, c)
		testTools[key] = tl
	}
	set := tool.NewSet("KnowledgeTools", tl)
	res, err := set.Call(ctx, struct{}{}, c.Tool, c.Args)
	if err != nil {
		return err.Error(), true
	}
	return tool.Content(res), false
}

func newTestTool(t *testing.T, base *Base, c oracleCall) tool.Tool[struct{}] {
	src := testSource(t)
	var tl tool.Tool[struct{}]
	var err error
	switch c.Tool {
	case KBSearchName, KBSearchBM25Name:
		spec := DefaultPipeline(TypeBM25)
		if c.TopK != nil {
			spec.TopK = *c.TopK
		}
		p, perr := NewPipeline(base, spec, Deps{})
		if perr != nil {
			t.Fatal(perr)
		}
		if c.Tool == KBSearchName {
			tl, err = KBSearchTool[struct{}](src, p)
		} else {
			tl, err = KBSearchBM25Tool[struct{}](src, p)
		}
	case GrepName:
		spec := DefaultGrep()
		if c.GrepTopK != nil {
			spec.TopK = *c.GrepTopK
		}
		spec.CaseSensitive = c.CaseSensitive
		tl, err = GrepTool[struct{}](src, NewGrepPipeline(base, spec))
	}
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

var (
	baseCache   datatest.Cache[*Base]
	sourceCache datatest.Cache[*Source]
)

func documentsDir(root string) string {
	return filepath.Join(root, "tau2-bench", "data", "tau2", "domains", "banking_knowledge", "documents")
}

func realBase(t testing.TB) (*Base, string) {
	t.Helper()
	b := baseCache.Get(t, func(root string) (*Base, error) { return Load(documentsDir(root), nil) })
	return b, documentsDir(datatest.Root(t))
}

func testSource(t testing.TB) *Source {
	t.Helper()
	return sourceCache.Get(t, LoadSource)
}

// queryGen writes queries and patterns a model might send, and odd ones.
type queryGen struct {
	r    *rand.Rand
	base *Base
}

var fixedQueries = []string{
	"overdraft fee", "credit card annual fee waiver", "how do I dispute a transaction",
	"Gold Rewards card cash back", "close my checking account", "wire transfer limit",
	"replace lost debit card", "APR", "minimum payment due date", "foreign transaction fee",
	"", "   ", "\t\n", "İstanbul", "ΣΑΣ ΟΔΟΣ", "fee fee fee", "FEE", "fee,", "$25", "30-day",
	"card\u3000fee", "card\u00a0fee", "a\x1cb", "naïve café", "🙂 card", "Zürich Überweisung",
}

func (g *queryGen) word() string {
	d := g.base.Docs()[g.r.IntN(g.base.Len())]
	f := strings.Fields(d.Content)
	if len(f) == 0 {
		return "card"
	}
	w := f[g.r.IntN(len(f))]
	switch g.r.IntN(4) {
	case 0:
		w = strings.ToUpper(w)
	case 1:
		w = strings.Title(w) //nolint:staticcheck // any casing will do
	}
	return w
}

func (g *queryGen) queries(n int) []string {
	out := append([]string(nil), fixedQueries...)
	for len(out) < n {
		switch g.r.IntN(5) {
		case 0:
			out = append(out, g.base.Docs()[g.r.IntN(g.base.Len())].Title)
		default:
			var ws []string
			for range 1 + g.r.IntN(6) {
				ws = append(ws, g.word())
			}
			sep := []string{" ", "  ", "\t", "\n", " \u2003"}[g.r.IntN(5)]
			out = append(out, strings.Join(ws, sep))
		}
	}
	return out
}

var fixedPatterns = []string{
	"credit.*card", "fee|charge", `\$\d+`, "(?i)overdraft", `annual\s+fee`, "[0-9]{3}", "^#", `\bAPR\b`,
	"(", "[", "a**", `\`, "card)", "Gold (Rewards|Elite)", `(\w+)@(\w+)`, "x{,2}", `\d+%`, "—", "‑",
	"", "  ", "K", "ſ", "(?-i:Fee)", `(?<=\$)\d+`, `(a)\1`, `(?P<x>fee)(?P=x)`, "a*", "^", "$",
	"Platinum", "platinum reserve", "e", ".", "(?s).", `\n`, "##", "customer is verified",
}

func (g *queryGen) calls(n int, queries []string) []oracleCall {
	var out []oracleCall
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	obj := func(kv ...any) json.RawMessage {
		var b strings.Builder
		b.WriteString("{")
		for i := 0; i < len(kv); i += 2 {
			if i > 0 {
				b.WriteString(",")
			}
			b.Write(str(kv[i].(string)))
			b.WriteString(":")
			b.Write(kv[i+1].(json.RawMessage))
		}
		b.WriteString("}")
		return json.RawMessage(b.String())
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	intp := func(i int) *int { return &i }
	// KB_search over every query, with a few top_k values.
	for i, q := range queries {
		c := oracleCall{Tool: KBSearchName, Args: obj("query", str(q))}
		if i%7 == 3 {
			c.TopK = intp([]int{0, 1, 3, -2, 25, 1000}[g.r.IntN(6)])
		}
		out = append(out, c)
	}
	// Odd arguments.
	for _, a := range []json.RawMessage{raw(`{"query": 5}`), raw(`{"query": null}`), raw(`{"query": ["fee"]}`),
		raw(`{"query": 0}`), raw(`{"query": true}`), raw(`{"query": {}}`), raw(`{}`), raw(`{"query": "fee", "x": 1}`),
		raw(`{"q": "fee"}`), raw(`{"query": 1.5}`), raw(`{"query": false}`)} {
		out = append(out, oracleCall{Tool: KBSearchName, Args: a}, oracleCall{Tool: GrepName, Args: a})
	}
	// KB_search_bm25 with k.
	for i := range n / 4 {
		q := queries[g.r.IntN(len(queries))]
		ks := []string{"", "0", "1", "3", "-3", "10", "50", "true", "false", `"3"`, "2.5", "null", "1e2", "100000000000000000000", "-100000000000000000000"}
		k := ks[g.r.IntN(len(ks))]
		args := obj("query", str(q))
		if k != "" {
			args = obj("query", str(q), "k", raw(k))
		}
		c := oracleCall{Tool: KBSearchBM25Name, Args: args}
		if i%5 == 0 {
			c.TopK = intp([]int{3, 20}[g.r.IntN(2)])
		}
		out = append(out, c)
	}
	// grep: fixed patterns, words, titles, case sensitivity and top_k.
	pats := append([]string(nil), fixedPatterns...)
	for len(pats) < n/2 {
		switch g.r.IntN(3) {
		case 0:
			pats = append(pats, g.word())
		case 1:
			pats = append(pats, g.word()+".*"+g.word())
		default:
			pats = append(pats, g.word()+"|"+g.word())
		}
	}
	for i, p := range pats {
		c := oracleCall{Tool: GrepName, Args: obj("pattern", str(p))}
		if i%6 == 5 {
			c.CaseSensitive = true
		}
		if i%9 == 4 {
			c.GrepTopK = intp([]int{0, 2, -1, 50}[g.r.IntN(4)])
		}
		out = append(out, c)
	}
	return out
}
