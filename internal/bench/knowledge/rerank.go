package knowledge

import (
	"context"
	"errors"
)

// Chat is the chat backbone the pointwise LLM reranker asks
// (internal/engine/llm implements it over a backbones-file entry).
type Chat interface {
	// Model is the model id the requests carry ("model").
	Model() string
	// Complete sends one chat completions request body as built here
	// (upstream's fields in upstream's order) and returns the first
	// choice. An error is an infrastructure failure.
	Complete(ctx context.Context, body []byte) (ChatReply, error)
}

// ChatReply is the part of a chat completion the reranker reads.
type ChatReply struct {
	Content      string
	Refusal      string
	FinishReason string
}

// reranker is pointwise_llm_reranker.py's PointwiseLLMReranker.
type reranker struct {
	minScore int
}

func newReranker(minScore int, deps Deps) (*reranker, error) {
	return nil, errors.New("knowledge: the pointwise LLM reranker is not built yet")
}

func (r *reranker) process(ctx context.Context, query string, hits []Hit, base *Base) ([]Hit, error) {
	return nil, errors.ErrUnsupported
}
