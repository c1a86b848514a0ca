package runplan

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
)

// EmbeddingsCacheDir is the embeddings cache's folder inside the data
// directory, where a run keeps document vectors unless told otherwise
// (Options.EmbeddingsCache).
const EmbeddingsCacheDir = "embeddings-cache"

// knowledgeUse builds what banking_knowledge's retrieval engines take from
// the run (knowledge.Deps) over the run's client pool, so embeddings and
// reranker calls share the rate limits of the agent's, the user's and the
// judge's, and remembers which entries the variant resolved (the
// manifest records them).
type knowledgeUse struct {
	pool *llm.Pool
	cfg  *llm.Config
	file string

	mu         sync.Mutex
	embeddings []string // embeddings entries resolved
	reranker   string   // the reranker's backbone
}

// deps are the retrieval engines' dependencies; cacheDir holds document
// vectors ("" keeps them in memory only).
func (k *knowledgeUse) deps(cacheDir string) knowledge.Deps {
	return knowledge.Deps{Embedder: k.embedder, Reranker: k.rerankerChat, CacheDir: cacheDir}
}

// embedder is the embeddings entry of the backbones file named after
// upstream's model, of upstream's embedder type; the error of an unknown
// entry or an unset key names the entry and the variable.
func (k *knowledgeUse) embedder(typ, model string) (knowledge.Embedder, error) {
	if k.pool == nil {
		return nil, fmt.Errorf("dense retrieval with %s embeddings needs the embeddings entry %q of a backbones file, and there is none (%s): pass --backbones FILE", typ, model, k.file)
	}
	e, err := k.pool.Embedder(typ, model)
	if err != nil {
		return nil, fmt.Errorf("%w (backbones file %s)", err, k.file)
	}
	k.mu.Lock()
	if !slices.Contains(k.embeddings, model) {
		k.embeddings = append(k.embeddings, model)
	}
	k.mu.Unlock()
	return e, nil
}

// rerankerChat is the backbone of upstream's reranker model: the entry of
// that name when its model is the same, else the first entry (by name)
// whose model it is.
func (k *knowledgeUse) rerankerChat(model string) (knowledge.Chat, error) {
	if k.pool == nil {
		return nil, fmt.Errorf("the pointwise LLM reranker asks upstream's model %s through a backbone of the backbones file, and there is none (%s): pass --backbones FILE", model, k.file)
	}
	name, ok := BackboneOfModel(k.cfg, model)
	if !ok {
		return nil, fmt.Errorf("the pointwise LLM reranker asks upstream's model %s: no backbone of %s has model: %s (add one)", model, k.file, model)
	}
	c, err := k.pool.Client(name)
	if err != nil {
		return nil, fmt.Errorf("reranker backbone: %w", err)
	}
	k.mu.Lock()
	k.reranker = name
	k.mu.Unlock()
	return c, nil
}

// BackboneOfModel names the backbone serving model: the entry called model
// when it has that model, else the first such entry by name.
func BackboneOfModel(cfg *llm.Config, model string) (string, bool) {
	if cfg == nil {
		return "", false
	}
	if b, err := cfg.Backbone(model); err == nil && b.Model == model {
		return model, true
	}
	for _, n := range cfg.Names() {
		if b, err := cfg.Backbone(n); err == nil && b.Model == model {
			return n, true
		}
	}
	return "", false
}

// used lists the embeddings entries and the reranker backbone resolved.
func (k *knowledgeUse) used() (embeddings []string, reranker string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.embeddings), k.reranker
}

// embeddingsCache is the run's embeddings cache folder: opts'
// EmbeddingsCache, else EmbeddingsCacheDir in the data directory.
func embeddingsCache(opts *Options) string {
	if opts.EmbeddingsCache != "" {
		return opts.EmbeddingsCache
	}
	return filepath.Join(opts.DataDir, EmbeddingsCacheDir)
}
