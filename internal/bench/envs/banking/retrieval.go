package banking

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Retrieval variants: upstream's registry (retrieval.py's
// RETRIEVAL_VARIANTS), which decides the agent's retrieval tools and the
// prompt template its policy is assembled from.

// DefaultVariant is upstream's default (DEFAULT_RETRIEVAL_VARIANT).
const DefaultVariant = "alltools"

// promptKind is how a variant's policy is built from its template.
type promptKind int

const (
	standardPrompt promptKind = iota // components only
	fullKBPrompt                     // components and every document
	goldenPrompt                     // components and the task's required documents
)

// Variant is a retrieval variant after its overrides.
type Variant struct {
	Name     string
	Template string // file in prompts/
	prompt   promptKind
	// KBSearch is the KB_search pipeline (nil: none); KBSearchBM25 and
	// KBSearchDense are AllTools' two search tools.
	KBSearch, KBSearchBM25, KBSearchDense *knowledge.PipelineSpec
	Grep                                  *knowledge.GrepSpec
	Shell                                 *knowledge.ShellSpec
	SupportsTopK                          bool
}

// Offline reports whether the variant runs without any model endpoint
// (no embeddings, no reranker, no sandbox).
func (v *Variant) Offline() bool {
	for _, p := range []*knowledge.PipelineSpec{v.KBSearch, v.KBSearchBM25, v.KBSearchDense} {
		if p != nil && (p.Type == knowledge.TypeEmbedding || p.Reranker) {
			return false
		}
	}
	return v.Shell == nil
}

// Embedders lists the (type, model) of the variant's embedding pipelines.
func (v *Variant) Embedders() [][2]string {
	var out [][2]string
	for _, p := range []*knowledge.PipelineSpec{v.KBSearch, v.KBSearchBM25, v.KBSearchDense} {
		if p != nil && p.Type == knowledge.TypeEmbedding {
			t := p.EmbedderType
			if t == "" {
				t = knowledge.EmbedderOpenRouter
			}
			out = append(out, [2]string{t, p.EmbedderModel})
		}
	}
	return out
}

// Reranked reports whether a pipeline of the variant has the LLM reranker.
func (v *Variant) Reranked() bool {
	for _, p := range []*knowledge.PipelineSpec{v.KBSearch, v.KBSearchBM25, v.KBSearchDense} {
		if p != nil && p.Reranker {
			return true
		}
	}
	return false
}

const (
	openAIModel     = "text-embedding-3-large"
	openRouterModel = "qwen3-embedding-8b"
)

func bm25(rerank bool) *knowledge.PipelineSpec {
	p := knowledge.DefaultPipeline(knowledge.TypeBM25)
	p.Reranker = rerank
	return &p
}

func embedding(typ, model string, rerank bool) *knowledge.PipelineSpec {
	p := knowledge.DefaultPipeline(knowledge.TypeEmbedding)
	p.EmbedderType, p.EmbedderModel, p.Reranker = typ, model, rerank
	return &p
}

func grep() *knowledge.GrepSpec { g := knowledge.DefaultGrep(); return &g }

func shell(writes bool) *knowledge.ShellSpec {
	s := knowledge.DefaultShell()
	s.AllowWrites = writes
	return &s
}

// registry is upstream's RETRIEVAL_VARIANTS, in its order, built fresh for
// every lookup (overrides change the specs).
func registry() []*Variant {
	qwen := func(r bool) *knowledge.PipelineSpec {
		return embedding(knowledge.EmbedderOpenRouter, openRouterModel, r)
	}
	openai := func(r bool) *knowledge.PipelineSpec { return embedding(knowledge.EmbedderOpenAI, openAIModel, r) }
	allTools := func(name, typ, model string) *Variant {
		return &Variant{Name: name, Template: "all_tools.md", KBSearchBM25: bm25(false),
			KBSearchDense: embedding(typ, model, false), Shell: shell(false)}
	}
	return []*Variant{
		{Name: "no_knowledge", Template: "no_knowledge.md"},
		{Name: "full_kb", Template: "full_kb.md", prompt: fullKBPrompt},
		{Name: "golden_retrieval", Template: "required_docs.md", prompt: goldenPrompt},
		{Name: "qwen_embeddings_grep", Template: "classic_rag_qwen.md", KBSearch: qwen(false), Grep: grep(), SupportsTopK: true},
		{Name: "openai_embeddings_grep", Template: "classic_rag_openai.md", KBSearch: openai(false), Grep: grep(), SupportsTopK: true},
		{Name: "qwen_embeddings_reranker_grep", Template: "classic_rag_qwen.md", KBSearch: qwen(true), Grep: grep(), SupportsTopK: true},
		{Name: "openai_embeddings_reranker_grep", Template: "classic_rag_openai.md", KBSearch: openai(true), Grep: grep(), SupportsTopK: true},
		{Name: "bm25_grep", Template: "classic_rag_bm25.md", KBSearch: bm25(false), Grep: grep(), SupportsTopK: true},
		{Name: "bm25_reranker_grep", Template: "classic_rag_bm25.md", KBSearch: bm25(true), Grep: grep(), SupportsTopK: true},
		{Name: "qwen_embeddings", Template: "classic_rag_qwen_no_grep.md", KBSearch: qwen(false), SupportsTopK: true},
		{Name: "openai_embeddings", Template: "classic_rag_openai_no_grep.md", KBSearch: openai(false), SupportsTopK: true},
		{Name: "qwen_embeddings_reranker", Template: "classic_rag_qwen_no_grep.md", KBSearch: qwen(true), SupportsTopK: true},
		{Name: "openai_embeddings_reranker", Template: "classic_rag_openai_no_grep.md", KBSearch: openai(true), SupportsTopK: true},
		{Name: "bm25", Template: "classic_rag_bm25_no_grep.md", KBSearch: bm25(false), SupportsTopK: true},
		{Name: "bm25_reranker", Template: "classic_rag_bm25_no_grep.md", KBSearch: bm25(true), SupportsTopK: true},
		{Name: "grep_only", Template: "grep_only.md", Grep: grep(), SupportsTopK: true},
		{Name: "terminal_use", Template: "agentic_search.md", Shell: shell(false)},
		{Name: "terminal_use_write", Template: "agentic_search_write.md", Shell: shell(true)},
		allTools("alltools", knowledge.EmbedderOpenAI, openAIModel),
		allTools("alltools-qwen", knowledge.EmbedderOpenRouter, openRouterModel),
	}
}

// aliases are upstream's RETRIEVAL_VARIANT_ALIASES.
var aliases = map[string]string{"AllTools": "alltools"}

// VariantNames lists the variant names in upstream's order.
func VariantNames() []string {
	var out []string
	for _, v := range registry() {
		out = append(out, v.Name)
	}
	return out
}

// OfflineVariants lists the variants that need no endpoint and no sandbox.
func OfflineVariants() []string {
	var out []string
	for _, v := range registry() {
		if v.Offline() {
			out = append(out, v.Name)
		}
	}
	return out
}

// ErrUnknownVariant is wrapped by ResolveVariant's error for a name not in
// the registry.
var ErrUnknownVariant = errors.New("unknown retrieval variant")

// ResolveVariant is resolve_variant(name, **kwargs): the registered variant
// (or its alias) with the overrides top_k, grep_top_k, case_sensitive and
// reranker_min_score applied where the variant has the spec (other keys
// are ignored, as upstream's **_extra). kwargs is a JSON object or empty.
// Unlike upstream, whose overrides take any value, a value of the wrong
// type is an error here.
func ResolveVariant(name string, kwargs json.RawMessage) (*Variant, error) {
	canon := name
	if a, ok := aliases[name]; ok {
		canon = a
	}
	var v *Variant
	for _, r := range registry() {
		if r.Name == canon {
			v = r
		}
	}
	if v == nil {
		names := VariantNames()
		slices.Sort(names)
		return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownVariant, name, strings.Join(names, ", "))
	}
	kw, err := parseKwargs(kwargs)
	if err != nil {
		return nil, err
	}
	pipes := []*knowledge.PipelineSpec{v.KBSearch, v.KBSearchBM25, v.KBSearchDense}
	if n, ok := kw.ints["top_k"]; ok {
		for _, p := range pipes {
			if p != nil {
				p.TopK = n
			}
		}
	}
	if n, ok := kw.ints["grep_top_k"]; ok && v.Grep != nil {
		v.Grep.TopK = n
	}
	if b, ok := kw.bools["case_sensitive"]; ok && v.Grep != nil {
		v.Grep.CaseSensitive = b
	}
	if n, ok := kw.ints["reranker_min_score"]; ok {
		for _, p := range pipes {
			if p != nil {
				p.RerankerMinScore = n
			}
		}
	}
	return v, nil
}

type kwargs struct {
	ints  map[string]int
	bools map[string]bool
}

// parseKwargs reads --retrieval-config-kwargs: a JSON object; null values
// are upstream's None (no override).
func parseKwargs(raw json.RawMessage) (kwargs, error) {
	kw := kwargs{ints: map[string]int{}, bools: map[string]bool{}}
	if len(bytes.TrimSpace(raw)) == 0 {
		return kw, nil
	}
	v, err := pyjson.Decode(raw)
	if err != nil {
		return kw, fmt.Errorf("retrieval config kwargs: %w", err)
	}
	if v == nil {
		return kw, nil
	}
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return kw, fmt.Errorf("retrieval config kwargs: want a JSON object, not %s", pyjson.TypeName(v))
	}
	for i, k := range d.Keys {
		val := d.Values[i]
		if val == nil {
			continue
		}
		switch k {
		case "top_k", "grep_top_k", "reranker_min_score":
			n, ok := val.(json.Number)
			if !ok || !pyjson.IsInt(n) {
				return kw, fmt.Errorf("retrieval config kwargs: %s must be an integer, not %s", k, pyjson.Repr(val))
			}
			var x int
			if _, err := fmt.Sscan(string(n), &x); err != nil {
				return kw, fmt.Errorf("retrieval config kwargs: %s: %w", k, err)
			}
			if k != "reranker_min_score" && x <= 0 {
				return kw, fmt.Errorf("retrieval config kwargs: %s must be positive, not %d", k, x)
			}
			kw.ints[k] = x
		case "case_sensitive":
			b, ok := val.(bool)
			if !ok {
				return kw, fmt.Errorf("retrieval config kwargs: case_sensitive must be true or false, not %s", pyjson.Repr(val))
			}
			kw.bools[k] = b
		}
	}
	return kw, nil
}

// --- policies (retrieval.py's load_prompt_template and prompt builders) ---

var componentRef = regexp.MustCompile(`\{\{component:([A-Za-z0-9_]+)\}\}`)

// readText reads a file as Python's read_text does (universal newlines).
func readText(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n"), nil
}

// loadTemplate is load_prompt_template: the template with every
// {{component:NAME}} replaced by prompts/components/NAME.md, then, with a
// knowledge base, {{full_knowledge_base}} by every document.
func loadTemplate(promptsDir, name string, kb *knowledge.Base) (string, error) {
	path := filepath.Join(promptsDir, name)
	content, err := readText(path)
	if err != nil {
		return "", fmt.Errorf("prompt template: %w", err)
	}
	var cerr error
	content = componentRef.ReplaceAllStringFunc(content, func(m string) string {
		comp := componentRef.FindStringSubmatch(m)[1]
		text, err := readText(filepath.Join(promptsDir, "components", comp+".md"))
		if err != nil && cerr == nil {
			cerr = fmt.Errorf("prompt component %s of %s: %w", comp, path, err)
		}
		return text
	})
	if cerr != nil {
		return "", cerr
	}
	if kb != nil && strings.Contains(content, "{{full_knowledge_base}}") {
		full := fullKnowledgeBase(kb.Docs())
		if strings.Contains(full, `\`) {
			// re.sub would read the text as a replacement template.
			return "", fmt.Errorf("prompt template %s: a document holds a backslash, which upstream's re.sub would expand; not supported", path)
		}
		content = strings.ReplaceAll(content, "{{full_knowledge_base}}", full)
	}
	return content, nil
}

// fullKnowledgeBase is format_full_knowledge_base.
func fullKnowledgeBase(docs []knowledge.Document) string {
	parts := make([]string, len(docs))
	for i, d := range docs {
		parts[i] = "## " + d.Title + "\n\n" + d.Content
	}
	return strings.Join(parts, "\n\n---\n\n")
}

// requiredDocuments is golden_prompt's block: the task's required
// documents (by title, else by id), or none's text when there are none.
func requiredDocuments(kb *knowledge.Base, refs []string, none string) string {
	byTitle := map[string]knowledge.Document{}
	for _, d := range kb.Docs() {
		byTitle[d.Title] = d
	}
	var parts []string
	for _, ref := range refs {
		d, ok := byTitle[ref]
		if !ok {
			d, ok = kb.Doc(ref)
		}
		if ok {
			parts = append(parts, "## "+d.Title+"\n\n"+d.Content)
		}
	}
	if len(parts) == 0 {
		return none
	}
	return strings.Join(parts, "\n\n---\n\n")
}

// policyOf is build_policy for a task (nil outside golden_retrieval).
func (d *Domain) policyOf(t *tasks.Task) string {
	if d.variant.prompt != goldenPrompt {
		return d.policy
	}
	var refs []string
	if t != nil {
		refs = t.RequiredDocuments
	}
	return strings.ReplaceAll(d.policy, "{{required_documents}}", requiredDocuments(d.kbase(), refs, d.src.texts[goldenTexts].s(5)))
}
