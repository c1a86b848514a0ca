package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
)

// fixedVector is the test's embedding of a text: 16 values from its
// SHA-256, exact in float32 (testdata/oracle/dense_oracle.py uses the same
// rule).
func fixedVector(text string) []float64 {
	d := sha256.Sum256([]byte(text))
	v := make([]float64, 16)
	for i := range v {
		v[i] = float64(int(d[i])-128) / 32
	}
	return v
}

// fixedRating is the test's reranker rating of a prompt.
func fixedRating(prompt string) int {
	d := sha256.Sum256([]byte(prompt))
	return int(d[0]) % 11
}

// denseFixture is a fake embeddings endpoint and a fake chat backbone
// behind the real llm clients.
type denseFixture struct {
	emb      *openaitest.EmbeddingServer
	chat     *openaitest.Server
	pool     *llm.Pool
	reranker *llm.Client
	failing  atomic.Bool // the embeddings endpoint answers 500
}

func newDenseFixture(t *testing.T) *denseFixture {
	t.Helper()
	f := &denseFixture{}
	f.emb = openaitest.NewEmbeddingServer(t, func(_ int, r *openaitest.EmbeddingRequest) openaitest.EmbeddingReply {
		if f.failing.Load() {
			return openaitest.EmbeddingReply{Status: 500}
		}
		var vs [][]float64
		for _, s := range r.Input {
			vs = append(vs, fixedVector(s))
		}
		return openaitest.EmbeddingReply{Vectors: vs}
	})
	f.chat = openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Text(fmt.Sprintf(`{"relevance_score": %d}`, fixedRating(r.LastMessage().Text())))
	})
	noRetries := 0
	cfg := &llm.Config{Embeddings: map[string]llm.Embedding{
		"text-embedding-3-large": {Name: "text-embedding-3-large", Type: llm.EmbeddingOpenAI, BaseURL: f.emb.BaseURL(), Model: "text-embedding-3-large", Timeout: 5 * time.Second, MaxRetries: &noRetries},
		"qwen3-embedding-8b":     {Name: "qwen3-embedding-8b", Type: llm.EmbeddingOpenRouter, BaseURL: f.emb.BaseURL(), Model: "qwen/qwen3-embedding-8b", Timeout: 5 * time.Second, MaxRetries: &noRetries},
	}}
	opts := llm.Options{Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }}
	f.pool = llm.NewPool(cfg, opts)
	c, err := llm.New(llm.Backbone{Name: "gpt-5.2", BaseURL: f.chat.BaseURL(), Model: "gpt-5.2", Timeout: 5 * time.Second}, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.reranker = c
	return f
}

func (f *denseFixture) deps(t *testing.T) Deps {
	return Deps{
		Embedder: func(typ, model string) (Embedder, error) { return f.pool.Embedder(typ, model) },
		Reranker: f.reranker,
		CacheDir: t.TempDir(),
		Source:   testSource(t),
	}
}

func call(t *testing.T, tl tool.Tool[struct{}], args string) (string, error) {
	t.Helper()
	res, err := tool.NewSet("KnowledgeTools", tl).Call(context.Background(), struct{}{}, tl.Name, json.RawMessage(args))
	if err != nil {
		return "", err
	}
	return tool.Content(res), nil
}

func TestDense(t *testing.T) {
	t.Parallel()
	f := newDenseFixture(t)
	base := NewBase([]Document{
		{ID: "a", Title: "Alpha", Content: "alpha text"},
		{ID: "b", Title: "", Content: "beta text"},
		{ID: "c", Title: "Gamma", Content: "alpha text"}, // the same vector as a: a tie
	})
	deps := f.deps(t)
	spec := DefaultPipeline(TypeEmbedding)
	spec.EmbedderType, spec.EmbedderModel = EmbedderOpenRouter, "qwen3-embedding-8b"
	p, err := NewPipeline(base, spec, deps)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.emb.Requests()); n != 0 {
		t.Fatalf("building the pipeline made %d requests", n)
	}
	tl, err := KBSearchTool[struct{}](testSource(t), p)
	if err != nil {
		t.Fatal(err)
	}
	out, err := call(t, tl, `{"query": "alpha"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Untitled\n   ID: b") || strings.Count(out, "   ID: ") != 3 || !strings.Contains(StripTiming(out)+"\n", "Content: beta text\n") {
		t.Errorf("KB_search: %q", out)
	}
	reqs := f.emb.Requests()
	if len(reqs) != 2 || len(reqs[0].Input) != 3 || reqs[0].Input[0] != "alpha text" ||
		reqs[1].Input[0] != testSource(t).queryText(testSource(t).qwenInstruction, "alpha") || !strings.HasPrefix(reqs[1].Input[0], "Instruct: ") {
		t.Errorf("requests: %+v", reqs)
	}
	// The same query again: answered from memory. Another pipeline over
	// the same documents: from the disk cache.
	if _, err := call(t, tl, `{"query": "alpha"}`); err != nil {
		t.Fatal(err)
	}
	p2, err := NewPipeline(base, spec, deps)
	if err != nil {
		t.Fatal(err)
	}
	if err := p2.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(f.emb.Requests()); n != 2 {
		t.Errorf("%d requests; want no new one", n)
	}
	// Bad queries are the tool's errors; a failing endpoint is an
	// infrastructure error.
	for args, want := range map[string]string{
		`{"query": ""}`:   "Empty or missing input for key 'query': cannot generate embedding from blank text.",
		`{"query": "  "}`: "Empty or missing input for key 'query': cannot generate embedding from blank text.",
		`{"query": 5}`:    "'int' object has no attribute 'strip'",
	} {
		if _, err := call(t, tl, args); err == nil || err.Error() != want || errors.Is(err, fault.ErrInfrastructure) {
			t.Errorf("KB_search(%s): %v; want %q", args, err, want)
		}
	}
	f.failing.Store(true)
	if _, err := call(t, tl, `{"query": "new words"}`); !errors.Is(err, fault.ErrInfrastructure) {
		t.Errorf("failing endpoint: %v", err)
	}
	f.failing.Store(false)
	if _, err := call(t, tl, `{"query": "new words"}`); err != nil {
		t.Errorf("after the endpoint recovered: %v", err)
	}
}

func TestDenseNeedsAnEndpoint(t *testing.T) {
	t.Parallel()
	base := NewBase([]Document{{ID: "a", Title: "A", Content: "x"}})
	spec := DefaultPipeline(TypeEmbedding)
	spec.EmbedderType, spec.EmbedderModel = EmbedderOpenAI, "text-embedding-3-large"
	if _, err := NewPipeline(base, spec, Deps{}); err == nil || !strings.Contains(err.Error(), `embeddings entry "text-embedding-3-large"`) {
		t.Errorf("no embedder: %v", err)
	}
	spec.EmbedderType = "cohere"
	if _, err := NewPipeline(base, spec, Deps{}); err == nil || !strings.Contains(err.Error(), "Unknown embedder_type: cohere") {
		t.Errorf("unknown type: %v", err)
	}
	spec = DefaultPipeline(TypeBM25)
	spec.Reranker = true
	if _, err := NewPipeline(base, spec, Deps{}); err == nil || !strings.Contains(err.Error(), "reranker needs a chat backbone") {
		t.Errorf("reranker without a backbone: %v", err)
	}
	for typ, want := range map[string]string{RerankerBGE: "BGE-Reranker-v2-m3", RerankerQwen: "Qwen3-Reranker", "x": "Unknown postprocessor: x"} {
		spec.RerankerType = typ
		if _, err := NewPipeline(base, spec, Deps{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("reranker %s: %v", typ, err)
		}
	}
}

func TestReranker(t *testing.T) {
	t.Parallel()
	f := newDenseFixture(t)
	base := NewBase([]Document{{ID: "a", Title: "A", Content: "fee fee"}, {ID: "b", Title: "B", Content: "fee"}, {ID: "c", Title: "C", Content: "other"}})
	spec := DefaultPipeline(TypeBM25)
	spec.Reranker, spec.RerankerMinScore = true, 0
	p, err := NewPipeline(base, spec, f.deps(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Retrieve(context.Background(), "fee", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 3 || res.Timing.PostprocessingMS <= 0 {
		t.Errorf("hits %v (timing %+v)", res.Hits, res.Timing)
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Errorf("not sorted: %v", res.Hits)
		}
	}
	reqs := f.chat.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d rating requests", len(reqs))
	}
	r := reqs[0]
	if !slices.Equal(r.Keys, []string{"messages", "model", "reasoning_effort", "response_format"}) || r.Model != "gpt-5.2" || r.ReasoningEffort != "low" {
		t.Errorf("request keys %v, model %q, effort %q", r.Keys, r.Model, r.ReasoningEffort)
	}
	var rf any
	_ = json.Unmarshal(r.Extra["response_format"], &rf)
	want := `{"type":"json_schema","json_schema":{"schema":{"properties":{"relevance_score":{"title":"Relevance Score","type":"integer"}},"required":["relevance_score"],"title":"RelevanceScore","type":"object","additionalProperties":false},"name":"RelevanceScore","strict":true}}`
	if string(r.Extra["response_format"]) != want {
		t.Errorf("response_format %s\nwant %s", r.Extra["response_format"], want)
	}
	prompt := r.LastMessage().Text()
	if !strings.Contains(prompt, "<start_query>\nfee\n<end_query>") {
		t.Errorf("prompt %q", prompt)
	}
}

// TestRerankReplies: how the reranker reads replies, as upstream's
// _rate_passage does through the SDK's parse.
func TestRerankReplies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reply  string
		rating int
		ok     bool
	}{
		{`{"choices":[{"message":{"content":"{\"relevance_score\": 7}"},"finish_reason":"stop"}]}`, 7, true},
		{`{"choices":[{"message":{"content":"{\"relevance_score\": 12}"},"finish_reason":"stop"}]}`, 10, true},
		{`{"choices":[{"message":{"content":"{\"relevance_score\": -3}"},"finish_reason":"stop"}]}`, 0, true},
		{`{"choices":[{"message":{"content":"{\"relevance_score\": \"8\"}"},"finish_reason":"stop"}]}`, 8, true},
		{`{"choices":[{"message":{"content":"{\"relevance_score\": 8.0}"},"finish_reason":"stop"}]}`, 8, true},
		{`{"choices":[{"message":{"content":"{\"relevance_score\": 8.5}"},"finish_reason":"stop"}]}`, 0, false},
		{`{"choices":[{"message":{"content":"not json"},"finish_reason":"stop"}]}`, 0, false},
		{`{"choices":[{"message":{"content":"{}"},"finish_reason":"stop"}]}`, 0, false},
		{`{"choices":[{"message":{"content":"{\"relevance_score\": 9}"},"finish_reason":"length"}]}`, 0, false},
		{`{"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}`, 0, true},
		{`{"choices":[{"message":{"content":"{\"relevance_score\": 100000000000000000000}"},"finish_reason":"stop"}]}`, 10, true},
	} {
		r := &reranker{chat: replyChat(tc.reply), src: testSource(t), format: []byte(`{}`)}
		got, ok, err := r.rate(context.Background(), "q", "p")
		if err != nil || got != tc.rating || ok != tc.ok {
			t.Errorf("%s: rating %d ok %v err %v; want %d %v", tc.reply, got, ok, err, tc.rating, tc.ok)
		}
	}
}

type replyChat string

func (replyChat) Model() string { return "m" }
func (c replyChat) Complete(context.Context, []byte) ([]byte, error) {
	return []byte(c), nil
}

// TestDenseOracle runs upstream's dense retrieval (see
// testdata/oracle/dense_oracle.py) over the knowledge base with the same
// fixed vectors and ratings, and compares every tool output and the texts
// sent to the embedding model and the reranker (scores print with four
// decimals, so the outputs agree over OpenBLAS too; LD_LIBRARY_PATH=
// /usr/lib/x86_64-linux-gnu/blas gives numpy the reference BLAS pynp
// reproduces to the bit):
//
//	TAU2_SRC=/path/to/tau2-bench/src PYTHONPATH=/dir/with/numpy \
//	LEDGERBENCH_DENSE_ORACLE="python3 testdata/oracle/dense_oracle.py" \
//	go test ./internal/bench/knowledge -run DenseOracle
func TestDenseOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_DENSE_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_DENSE_ORACLE not set")
	}
	real, _ := realBase(t)
	// The knowledge base, and a small one whose duplicated texts tie.
	dup := []Document{}
	for i := range 40 {
		dup = append(dup, Document{ID: fmt.Sprintf("d%02d", i), Title: fmt.Sprintf("T%d", i), Content: fmt.Sprintf("text %d", i%7)})
	}
	for _, base := range []*Base{real, NewBase(dup)} {
		f := newDenseFixture(t)
		deps := f.deps(t)
		type oc struct {
			EmbedderType string          `json:"embedder_type"`
			Model        string          `json:"model"`
			TopK         int             `json:"top_k"`
			Reranker     bool            `json:"reranker,omitempty"`
			MinScore     int             `json:"min_score,omitempty"`
			Tool         string          `json:"tool"`
			Args         json.RawMessage `json:"args"`
		}
		var calls []oc
		queries := []string{"overdraft fee", "credit card annual fee waiver", "text 3", "Gold Rewards card", "naïve café 🙂", "5"}
		for _, cfg := range []oc{
			{EmbedderType: "openai", Model: "text-embedding-3-large", TopK: 10},
			{EmbedderType: "openrouter", Model: "qwen3-embedding-8b", TopK: 10},
			{EmbedderType: "openrouter", Model: "qwen3-embedding-8b", TopK: 3},
			{EmbedderType: "openai", Model: "text-embedding-3-large", TopK: 10, Reranker: true, MinScore: 5},
		} {
			for _, q := range queries {
				c := cfg
				c.Tool, c.Args = "KB_search", json.RawMessage(fmt.Sprintf(`{"query": %q}`, q))
				calls = append(calls, c)
			}
			for _, a := range []string{`{"query": ""}`, `{"query": null}`, `{"query": 7}`, `{"query": "fee", "k": 2}`, `{"query": "fee", "k": -1}`, `{"query": "fee", "k": "2"}`} {
				c := cfg
				c.Tool, c.Args = "KB_search_dense", json.RawMessage(a)
				if !strings.Contains(a, `"k"`) {
					c.Tool = "KB_search"
				}
				calls = append(calls, c)
			}
		}
		var docs []Document
		docs = append(docs, base.Docs()...)
		var want struct {
			Calls      [][2]any `json:"calls"`
			Embeddings []struct {
				Input          []string `json:"input"`
				Model          string   `json:"model"`
				EncodingFormat *string  `json:"encoding_format"`
			} `json:"embeddings"`
			Ratings []struct {
				Model           string           `json:"model"`
				Messages        []map[string]any `json:"messages"`
				ReasoningEffort *string          `json:"reasoning_effort"`
				Schema          json.RawMessage  `json:"schema"`
				Name            string           `json:"name"`
			} `json:"ratings"`
		}
		oracletest.JSON(t, cmdline, map[string]any{"documents": docs, "calls": calls}, &want)

		tools := map[string]tool.Tool[struct{}]{}
		equal := 0
		for i, c := range calls {
			key := fmt.Sprint(c.EmbedderType, c.Model, c.TopK, c.Reranker, c.MinScore, c.Tool)
			tl, ok := tools[key]
			if !ok {
				spec := PipelineSpec{Type: TypeEmbedding, EmbedderType: c.EmbedderType, EmbedderModel: c.Model, TopK: c.TopK, Reranker: c.Reranker, RerankerMinScore: c.MinScore}
				p, err := NewPipeline(base, spec, deps)
				if err != nil {
					t.Fatal(err)
				}
				if c.Tool == "KB_search" {
					tl, err = KBSearchTool[struct{}](testSource(t), p)
				} else {
					tl, err = KBSearchDenseTool[struct{}](testSource(t), p)
				}
				if err != nil {
					t.Fatal(err)
				}
				tools[key] = tl
			}
			got, err := call(t, tl, string(c.Args))
			isErr := err != nil
			if isErr {
				got = err.Error()
			}
			w := want.Calls[i]
			if StripTiming(got) == StripTiming(w[0].(string)) && isErr == w[1].(bool) {
				equal++
				continue
			}
			t.Errorf("%+v %s:\n got (error=%v): %.300q\nwant (error=%v): %.300q", c, c.Args, isErr, got, w[1], w[0])
		}
		// What was sent to the embedding model: the same texts, per model.
		type sent struct{ model, text string }
		ours, theirs := map[sent]bool{}, map[sent]bool{}
		for _, r := range f.emb.Requests() {
			for _, s := range r.Input {
				ours[sent{r.Model, s}] = true
			}
		}
		apiModel := map[string]string{"text-embedding-3-large": "text-embedding-3-large", "qwen/qwen3-embedding-8b": "qwen/qwen3-embedding-8b"}
		for _, e := range want.Embeddings {
			for _, s := range e.Input {
				theirs[sent{apiModel[e.Model], s}] = true
			}
		}
		sameTexts := len(ours) == len(theirs)
		for k := range theirs {
			if !ours[k] {
				sameTexts = false
				t.Errorf("upstream embedded %q with %s; we did not", k.text, k.model)
			}
		}
		// What was sent to the reranker: the same prompts, model, effort.
		var ourPrompts, theirPrompts []string
		for _, r := range f.chat.Requests() {
			ourPrompts = append(ourPrompts, r.Model+"|"+r.ReasoningEffort+"|"+r.LastMessage().Text())
		}
		for _, r := range want.Ratings {
			eff := ""
			if r.ReasoningEffort != nil {
				eff = *r.ReasoningEffort
			}
			theirPrompts = append(theirPrompts, r.Model+"|"+eff+"|"+r.Messages[0]["content"].(string))
		}
		slices.Sort(ourPrompts)
		slices.Sort(theirPrompts)
		if !slices.Equal(ourPrompts, theirPrompts) {
			t.Errorf("reranker prompts: %d ours, %d upstream's, not the same", len(ourPrompts), len(theirPrompts))
		}
		t.Logf("%d documents: %d/%d tool outputs equal; embedded texts equal: %v (%d); reranker prompts equal: %v (%d)",
			base.Len(), equal, len(calls), sameTexts, len(theirs), slices.Equal(ourPrompts, theirPrompts), len(theirPrompts))
	}
}
