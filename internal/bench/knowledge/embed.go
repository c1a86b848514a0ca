package knowledge

import (
	"context"
	"errors"
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

// dense is an embedding pipeline's state: the embedder, the document
// vectors (embedded once, from the cache when it holds them) and the
// query vectors seen so far.
type dense struct {
	spec PipelineSpec
}

func newDense(base *Base, spec PipelineSpec, deps Deps) (*dense, error) {
	return nil, errors.New("knowledge: embedding pipelines are not built yet")
}

func (d *dense) index(ctx context.Context) error { return errors.ErrUnsupported }

func (d *dense) encode(ctx context.Context, query any) ([]float64, error) {
	return nil, errors.ErrUnsupported
}

func (d *dense) retrieve(ctx context.Context, q []float64, topK int) ([]Hit, error) {
	return nil, errors.ErrUnsupported
}
