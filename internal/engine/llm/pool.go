package llm

import (
	"fmt"
	"sync"
)

// Pool hands out one Client per backbone, created on first use and shared
// by every caller. A backbone's rate limits hold for every client built with
// the same Options.Shared, from this pool or another (each cell of an
// experiment has its pool, with its own request log and log prefix, and all
// share the process's Shared); a pool given none makes one. Clients share
// one HTTP transport unless Options.Transport is set.
type Pool struct {
	cfg  *Config
	opts Options

	mu         sync.Mutex
	clients    map[string]*Client
	embeddings map[string]*EmbeddingClient
}

// NewPool returns a pool over cfg's backbones.
func NewPool(cfg *Config, opts Options) *Pool {
	if opts.Shared == nil {
		opts.Shared = NewShared()
	}
	return &Pool{cfg: cfg, opts: opts, clients: map[string]*Client{}, embeddings: map[string]*EmbeddingClient{}}
}

// Client returns the client for the backbone called name. Unknown names
// and unset API keys are errors with a hint.
func (p *Pool) Client(name string) (*Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[name]; ok {
		return c, nil
	}
	b, err := p.cfg.Backbone(name)
	if err != nil {
		return nil, err
	}
	c, err := New(b, p.opts)
	if err != nil {
		return nil, err
	}
	p.clients[name] = c
	return c, nil
}

// Judge returns the client of the configured judge backbone.
func (p *Pool) Judge() (*Client, error) {
	if p.cfg.Judge == "" {
		return nil, fmt.Errorf("%w: no judge configured", ErrUnknownBackbone)
	}
	return p.Client(p.cfg.Judge)
}

// Embedder returns the client of the embeddings entry named model (upstream's
// embedding model name) of upstream's embedder type typ, shared by every
// caller. An unknown entry and an unset API key are errors with a hint.
func (p *Pool) Embedder(typ, model string) (*EmbeddingClient, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, err := p.cfg.Embedding(typ, model)
	if err != nil {
		return nil, err
	}
	if c, ok := p.embeddings[model]; ok {
		return c, nil
	}
	c, err := NewEmbedding(e, p.opts)
	if err != nil {
		return nil, err
	}
	p.embeddings[model] = c
	return c, nil
}
