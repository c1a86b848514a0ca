package knowledge

// The specs are what upstream's retrieval.py declares per retrieval variant
// (PipelineSpec, GrepSpec, ShellSpec), with its defaults (DefaultPipeline,
// DefaultGrep, DefaultShell). The variant registry itself, its overrides
// (--retrieval-config-kwargs) and the prompts belong to the domain.

// Pipeline types of PipelineSpec.Type.
const (
	TypeBM25      = "bm25"
	TypeEmbedding = "embedding"
)

// Embedder types of PipelineSpec.EmbedderType (upstream's EMBEDDER_REGISTRY).
const (
	EmbedderOpenAI     = "openai"
	EmbedderOpenRouter = "openrouter"
)

// PipelineSpec is a KB_search pipeline (retrieval.py's PipelineSpec).
type PipelineSpec struct {
	// Type is TypeBM25 or TypeEmbedding.
	Type string
	// EmbedderType is EmbedderOpenAI or EmbedderOpenRouter ("" for an
	// embedding pipeline means openrouter, as upstream's _create_kb_pipeline).
	EmbedderType string
	// EmbedderModel is upstream's model name ("text-embedding-3-large",
	// "qwen3-embedding-8b"): the name of the embeddings entry of the
	// backbones file that serves it.
	EmbedderModel string
	// TopK is the retriever's top_k (10).
	TopK int
	// Reranker adds a reranker (RerankerType; "" is upstream's pointwise
	// LLM reranker, the only one its variants use) with RerankerMinScore
	// (5).
	Reranker         bool
	RerankerType     string
	RerankerMinScore int
}

// Reranker types (upstream's postprocessor registry names).
const (
	RerankerPointwise = "pointwise_llm_reranker"
	RerankerBGE       = "bge_reranker"
	RerankerQwen      = "qwen_reranker"
)

// GrepSpec is a grep pipeline (retrieval.py's GrepSpec).
type GrepSpec struct {
	TopK          int // 10
	CaseSensitive bool
}

// ShellSpec is a shell sandbox (retrieval.py's ShellSpec).
type ShellSpec struct {
	AllowWrites bool
	// FileFormat is how documents are exported: "md" (upstream's default),
	// "txt" or "json".
	FileFormat string
}

// DefaultPipeline is PipelineSpec's defaults for a pipeline type.
func DefaultPipeline(typ string) PipelineSpec {
	return PipelineSpec{Type: typ, TopK: 10, RerankerMinScore: 5}
}

// DefaultGrep is GrepSpec's defaults.
func DefaultGrep() GrepSpec { return GrepSpec{TopK: 10} }

// DefaultShell is ShellSpec's defaults.
func DefaultShell() ShellSpec { return ShellSpec{FileFormat: "md"} }
