package knowledge

import (
	"fmt"
	"os"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/pyschema"
)

// Upstream source files the package reads, relative to tau2-bench's
// src/tau2 (all in the data manifest).
const (
	// MixinsFile holds the retrieval tools (descriptions and schemas).
	MixinsFile = "domains/banking_knowledge/retrieval_mixins.py"
	// RerankerFile holds the pointwise reranker's prompt, response model and
	// defaults.
	RerankerFile = "knowledge/postprocessors/pointwise_llm_reranker.py"
	// OpenRouterFile holds Qwen's query instruction and its format, and the
	// OpenRouter model table.
	OpenRouterFile = "knowledge/embedders/openrouter_embedder.py"
)

// Source is what the retrieval code shows models, read from the pulled
// upstream source at load time: the tools' descriptions and schemas, the
// reranker's prompt and request defaults, Qwen's query instruction.
type Source struct {
	mixins *pyschema.File
}

// LoadSource reads the upstream source files from a data directory (its
// tau2-bench folder). A missing file or symbol is an error naming both.
func LoadSource(root string) (*Source, error) {
	s := &Source{}
	f, err := pyschema.ReadFile(data.Tau2Source(root, MixinsFile))
	if err != nil {
		return nil, err
	}
	s.mixins = f
	for _, rel := range []string{RerankerFile, OpenRouterFile} {
		if _, err := os.Stat(data.Tau2Source(root, rel)); err != nil {
			return nil, fmt.Errorf("knowledge source: %w", err)
		}
	}
	return s, nil
}
