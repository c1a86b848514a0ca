package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Hit is one retrieved document and its score.
type Hit struct {
	ID    string
	Score float64
}

// Timing is upstream's RetrievalTiming, in milliseconds.
type Timing struct {
	InputPreprocessingMS float64
	RetrievalMS          float64
	PostprocessingMS     float64
}

// TotalMS is the sum of the three phases (RetrievalTiming.total_ms).
func (t Timing) TotalMS() float64 {
	return t.InputPreprocessingMS + t.RetrievalMS + t.PostprocessingMS
}

// Result is one retrieval (upstream's RetrievalResult).
type Result struct {
	Hits   []Hit
	Timing Timing
}

// Pipeline is one of upstream's RetrievalPipeline configurations, built from
// a spec: BM25 or embedding retrieval (KB_search, KB_search_bm25,
// KB_search_dense), optionally reranked, or grep. Its index is immutable
// and shared by all simulations; Retrieve is safe for concurrent use.
type Pipeline struct {
	base *Base
	kind string // TypeBM25, TypeEmbedding or "grep"
	topK int

	bm25   *BM25
	grep   *grepRetriever
	dense  *dense
	rerank *reranker
}

// Deps are what dense and reranked pipelines need from the layers above.
type Deps struct {
	// Embedder returns the embedder for upstream's embedder type and model
	// (PipelineSpec.EmbedderType, EmbedderModel); its error (an unknown
	// entry, a missing API key) fails NewPipeline.
	Embedder func(embedderType, model string) (Embedder, error)
	// Reranker returns the chat backbone the pointwise LLM reranker asks
	// for upstream's reranker model (Source.RerankerModel, "gpt-5.2"); its
	// error (no backbone serves the model, a missing API key) fails
	// NewPipeline.
	Reranker func(model string) (Chat, error)
	// CacheDir holds document embeddings on disk ("" keeps them in memory
	// only).
	CacheDir string
	// Source is upstream's source texts (the reranker's prompt, Qwen's
	// query instruction).
	Source *Source
}

// NewPipeline builds a KB_search pipeline. A BM25 index is built at once;
// an embedding pipeline embeds the documents on its first use (Index), so
// building one costs no API call.
func NewPipeline(base *Base, spec PipelineSpec, deps Deps) (*Pipeline, error) {
	p := &Pipeline{base: base, kind: spec.Type, topK: spec.TopK}
	switch spec.Type {
	case TypeBM25:
		texts := make([]string, base.Len())
		for i, d := range base.Docs() {
			texts[i] = d.Content
		}
		p.bm25 = NewBM25(texts)
	case TypeEmbedding:
		d, err := newDense(base, spec, deps)
		if err != nil {
			return nil, err
		}
		p.dense = d
	default:
		return nil, fmt.Errorf("knowledge: unknown pipeline type %q (want %s or %s)", spec.Type, TypeBM25, TypeEmbedding)
	}
	if spec.Reranker {
		switch spec.RerankerType {
		case "", RerankerPointwise:
		case RerankerBGE:
			return nil, errors.New("knowledge: the bge_reranker postprocessor needs the BGE-Reranker-v2-m3 model that upstream calls on Sierra's own hosted endpoint (a Baseten deployment, with BGE_RERANKER_API_KEY or BASETEN_API_KEY); it is not public and ledgerbench does not run the model locally: use the pointwise LLM reranker (the *_reranker variants)")
		case RerankerQwen:
			return nil, errors.New("knowledge: the qwen_reranker postprocessor needs the Qwen3-Reranker model (8B or 0.6B) that upstream calls on Sierra's own hosted endpoints (Baseten deployments, with QWEN_RERANKER_API_KEY or BASETEN_API_KEY); they are not public and ledgerbench does not run the model locally: use the pointwise LLM reranker (the *_reranker variants)")
		default:
			return nil, fmt.Errorf("Unknown postprocessor: %s. Available: ['bge_reranker', 'pointwise_llm_reranker', 'qwen_reranker']", spec.RerankerType)
		}
		r, err := newReranker(spec.RerankerMinScore, deps)
		if err != nil {
			return nil, err
		}
		p.rerank = r
	}
	return p, nil
}

// NewGrepPipeline builds a grep pipeline.
func NewGrepPipeline(base *Base, spec GrepSpec) *Pipeline {
	return &Pipeline{base: base, kind: "grep", topK: spec.TopK, grep: newGrep(base, spec)}
}

// Index prepares the pipeline's index: for an embedding pipeline it embeds
// the documents (from the cache when it holds them), once; the other kinds
// are ready when built. Its error is an infrastructure failure.
func (p *Pipeline) Index(ctx context.Context) error {
	if p.dense != nil {
		return p.dense.index(ctx)
	}
	return nil
}

// Retrieve runs a query as upstream's RetrievalPipeline.retrieve(query,
// top_k=topK, return_timing=True) does. query and topK are the tool's
// arguments as json.loads made them (pyjson values; topK nil is None: no
// cut). An error wrapping fault.ErrInfrastructure is an endpoint's failure;
// any other error is the exception upstream's code raises, as its str().
func (p *Pipeline) Retrieve(ctx context.Context, query, topK any) (Result, error) {
	var r Result
	// Input preprocessing (the embedding encoder).
	t0 := time.Now()
	var qvec []float64
	if p.dense != nil {
		v, err := p.dense.encode(ctx, query)
		if err != nil {
			return r, err
		}
		qvec = v
	}
	r.Timing.InputPreprocessingMS = ms(time.Since(t0))

	t1 := time.Now()
	var hits []Hit
	switch {
	case p.bm25 != nil:
		q, ok, err := bm25Query(query)
		if err != nil {
			return r, err
		}
		if ok {
			for _, sc := range p.bm25.Top(q, p.topK) {
				hits = append(hits, Hit{p.base.docs[sc.Index].ID, sc.Score})
			}
		}
	case p.grep != nil:
		h, err := p.grep.retrieve(ctx, query)
		if err != nil {
			return r, err
		}
		hits = h
	case p.dense != nil:
		h, err := p.dense.retrieve(ctx, qvec, p.topK)
		if err != nil {
			return r, err
		}
		hits = h
	}
	// The pipeline merges its retrievers' results by best score and sorts
	// them (stable, descending); with one retriever that is the identity on
	// an already sorted list, kept for ties' sake.
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmpDesc(a.Score, b.Score) })
	r.Timing.RetrievalMS = ms(time.Since(t1))

	if topK != nil {
		n, err := sliceStop(topK, len(hits))
		if err != nil {
			return r, err
		}
		hits = hits[:n]
	}

	t2 := time.Now()
	if p.rerank != nil {
		h, err := p.rerank.process(ctx, pyjson.Str(query), hits, p.base)
		if err != nil {
			return r, err
		}
		hits = h
	}
	r.Timing.PostprocessingMS = ms(time.Since(t2))
	r.Hits = hits
	return r, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// cmpDesc orders larger scores first (NaN never occurs).
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// bm25Query is BM25Retriever.retrieve's check of its query: a falsy value or
// blank text retrieves nothing; a value without .strip() raises.
func bm25Query(q any) (string, bool, error) {
	if !pyjson.Truthy(q) {
		return "", false, nil
	}
	s, ok := q.(string)
	if !ok {
		return "", false, noAttr(q, "strip")
	}
	if pyjson.Strip(s) == "" {
		return "", false, nil
	}
	return s, true, nil
}

// noAttr is Python's AttributeError text.
func noAttr(v any, attr string) error {
	return fmt.Errorf("'%s' object has no attribute '%s'", pyjson.TypeName(v), attr)
}

// errSliceIndex is the TypeError of a slice bound that is not an int.
var errSliceIndex = errors.New("slice indices must be integers or None or have an __index__ method")

// sliceStop is where Python's list[:stop] ends on a list of n elements;
// stop is an int or bool (anything else raises TypeError).
func sliceStop(stop any, n int) (int, error) {
	var k int64
	switch v := stop.(type) {
	case bool:
		if v {
			k = 1
		}
	case int:
		k = int64(v)
	case json.Number:
		if !pyjson.IsInt(v) {
			return 0, errSliceIndex
		}
		i, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil { // beyond int64: past either end
			if strings.HasPrefix(string(v), "-") {
				return 0, nil
			}
			return n, nil
		}
		k = i
	default:
		return 0, errSliceIndex
	}
	return clampStop(k, n), nil
}

// clampStop is Python's slice stop on a list of n: negative counts from the
// end, then clamped to [0, n].
func clampStop(k int64, n int) int {
	if k < 0 {
		k += int64(n)
		if k < 0 {
			return 0
		}
	}
	if k > int64(n) {
		return n
	}
	return int(k)
}

// FormatResult is the KB_search tools' output for a result
// (retrieval_mixins.py's _format_kb_search_result), its final timing line
// included.
func (p *Pipeline) FormatResult(r Result) string {
	var b strings.Builder
	if len(r.Hits) == 0 {
		b.WriteString("No relevant documents found.")
	} else {
		p.writeHits(&b, r.Hits)
	}
	b.WriteString(timingLine(r.Timing))
	return b.String()
}

// writeHits writes the numbered hits as upstream's tools list them.
func (p *Pipeline) writeHits(b *strings.Builder, hits []Hit) {
	for i, h := range hits {
		if i > 0 {
			b.WriteByte('\n')
		}
		d, _ := p.base.Doc(h.ID)
		title := d.Title
		if title == "" {
			title = "Untitled"
		}
		fmt.Fprintf(b, "%d. %s\n   ID: %s\n   Score: %s\n   Content: %s\n", i+1, title, h.ID, pyjson.FormatFixed(h.Score, 4), d.Content)
	}
}

// timingLine is the KB_search tools' last line, after a blank line.
func timingLine(t Timing) string {
	s := "\n\n[Timing: retrieval=" + pyjson.FormatFixed(t.RetrievalMS, 0) + "ms"
	if t.PostprocessingMS > 0 {
		s += ", reranking=" + pyjson.FormatFixed(t.PostprocessingMS, 0) + "ms"
	}
	return s + ", total=" + pyjson.FormatFixed(t.TotalMS(), 0) + "ms]"
}

// StripTiming removes the timing line FormatResult ends with, for
// comparing outputs across runs.
func StripTiming(out string) string {
	if i := strings.LastIndex(out, "\n\n[Timing: "); i >= 0 && strings.HasSuffix(out, "]") {
		return out[:i]
	}
	return out
}

// infra marks an endpoint's failure.
func infra(err error) error { return fault.Infrastructure(err) }

// once is a sync.Once whose function may fail and be retried by a later
// call.
type once struct {
	mu   sync.Mutex
	done bool
}

func (o *once) do(fn func() error) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return nil
	}
	if err := fn(); err != nil {
		return err
	}
	o.done = true
	return nil
}
