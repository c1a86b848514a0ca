package knowledge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pynp"
)

// Embedder embeds texts through an embeddings endpoint (an OpenAI-compatible
// /v1/embeddings; internal/engine/llm implements it from the backbones
// file's embeddings entries). It is safe for concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in order. Texts are sent as given
	// (a query's instruction prefix is already applied). An error is an
	// infrastructure failure (the endpoint failed after its retries, or
	// refused the key).
	Embed(ctx context.Context, texts []string) ([][]float64, error)
	// ID identifies the vectors the endpoint returns (base URL, provider
	// model, encoding): the embeddings cache keys document vectors by it.
	ID() string
}

// dense is an embedding pipeline's state (embedding_indexer.py,
// embedding_encoder.py, cosine_retriever.py): the embedder, the document
// vectors normalised as the cosine retriever normalises them (embedded
// once, read from the cache when it holds them), and the query vectors
// embedded so far (upstream's in-memory query cache).
type dense struct {
	base        *Base
	emb         Embedder
	src         *Source
	cacheDir    string
	instruction string // prefixed to queries ("" for none)

	idx  once
	docs [][]float64 // normalised rows (docs / doc_norms)

	mu      sync.Mutex
	queries map[string]*queryVec
}

type queryVec struct {
	once sync.Once
	v    []float64
	err  error
}

func newDense(base *Base, spec PipelineSpec, deps Deps) (*dense, error) {
	typ := spec.EmbedderType
	if typ == "" {
		typ = EmbedderOpenRouter // _create_kb_pipeline's default
	}
	if typ != EmbedderOpenAI && typ != EmbedderOpenRouter {
		return nil, fmt.Errorf("Unknown embedder_type: %s. Available: ['openai', 'openrouter']", typ)
	}
	if deps.Embedder == nil {
		return nil, fmt.Errorf("knowledge: no embeddings backbone configured: dense retrieval with %s embeddings (%s) needs the embeddings entry %q of the backbones file", typ, spec.EmbedderModel, spec.EmbedderModel)
	}
	if deps.Source == nil {
		return nil, errors.New("knowledge: dense retrieval needs upstream's source texts (Deps.Source from LoadSource)")
	}
	emb, err := deps.Embedder(typ, spec.EmbedderModel)
	if err != nil {
		return nil, err
	}
	d := &dense{base: base, emb: emb, src: deps.Source, cacheDir: deps.CacheDir, queries: map[string]*queryVec{}}
	if typ == EmbedderOpenRouter {
		d.instruction = deps.Source.queryInstruction(spec.EmbedderModel)
	}
	return d, nil
}

// index embeds the documents (EmbeddingIndexer.process) unless the cache
// has them, and normalises them.
func (d *dense) index(ctx context.Context) error {
	return d.idx.do(func() error {
		texts := make([]string, d.base.Len())
		for i, doc := range d.base.Docs() {
			texts[i] = doc.Content
		}
		vecs, err := cachedEmbeddings(ctx, d.cacheDir, d.emb, texts)
		if err != nil {
			return err
		}
		dim := -1
		d.docs = make([][]float64, len(vecs))
		for i, v := range vecs {
			if dim >= 0 && len(v) != dim {
				return infra(fmt.Errorf("embeddings %s: document %s has %d dimensions, others %d", d.emb.ID(), d.base.docs[i].ID, len(v), dim))
			}
			dim = len(v)
			d.docs[i] = normalizeRow(v)
		}
		return nil
	})
}

// normalizeRow is docs / where(norm == 0, 1, norm) for one row, the norm
// being numpy's sqrt(add.reduce(x*x)) (pairwise summation).
func normalizeRow(v []float64) []float64 {
	sq := make([]float64, len(v))
	for i, x := range v {
		sq[i] = float64(x * x)
	}
	n := math.Sqrt(pynp.PairwiseSum(sq))
	if n == 0 {
		n = 1
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x / n
	}
	return out
}

// encode is EmbeddingEncoder.process: the query's vector (from the
// in-memory cache when it was embedded before).
func (d *dense) encode(ctx context.Context, query any) ([]float64, error) {
	if !pyjson.Truthy(query) {
		return nil, errBlankQuery
	}
	text, ok := query.(string)
	if !ok {
		return nil, noAttr(query, "strip")
	}
	if pyjson.Strip(text) == "" {
		return nil, errBlankQuery
	}
	if err := d.index(ctx); err != nil {
		return nil, err
	}
	d.mu.Lock()
	q, ok := d.queries[text]
	if !ok {
		q = &queryVec{}
		d.queries[text] = q
	}
	d.mu.Unlock()
	q.once.Do(func() {
		vs, err := d.emb.Embed(ctx, []string{d.src.queryText(d.instruction, text)})
		switch {
		case err != nil:
			q.err = infra(err)
		case len(vs) != 1:
			q.err = infra(fmt.Errorf("embeddings %s: %d vectors for one query", d.emb.ID(), len(vs)))
		default:
			q.v = vs[0]
		}
	})
	if q.err != nil {
		d.mu.Lock()
		delete(d.queries, text) // a failure is not cached
		d.mu.Unlock()
	}
	return q.v, q.err
}

var errBlankQuery = errors.New("Empty or missing input for key 'query': cannot generate embedding from blank text.")

// retrieve is CosineRetriever.retrieve: cosine similarity of the query
// with every document (numpy's arithmetic: see pynp), ranked as
// np.argsort(scores)[::-1][:top_k].
func (d *dense) retrieve(ctx context.Context, q []float64, topK int) ([]Hit, error) {
	if err := d.index(ctx); err != nil {
		return nil, err
	}
	n := len(d.docs)
	scores := make([]float64, n)
	if qn := math.Sqrt(pynp.Dot(q, q)); qn != 0 {
		nq := make([]float64, len(q))
		for i, x := range q {
			nq[i] = x / qn
		}
		for i, row := range d.docs {
			if len(row) != len(nq) {
				return nil, infra(fmt.Errorf("embeddings %s: query has %d dimensions, documents %d", d.emb.ID(), len(nq), len(row)))
			}
			scores[i] = pynp.Dot(row, nq)
		}
	}
	order := pynp.Argsort(scores)
	k := clampStop(int64(min(topK, n)), n)
	hits := make([]Hit, 0, k)
	for j := range k {
		i := order[n-1-j]
		hits = append(hits, Hit{d.base.docs[i].ID, scores[i]})
	}
	return hits, nil
}
