// Package knowledge is τ²-bench's knowledge retrieval (src/tau2/knowledge at
// the pinned commit) for the banking_knowledge domain: the knowledge base of
// documents (data_model.py's KnowledgeBase), the retrieval pipelines built
// from a variant's specs (retrieval.py's PipelineSpec, GrepSpec and
// ShellSpec), and the retrieval tools the agent calls (retrieval_mixins.py:
// KB_search, grep, KB_search_bm25, KB_search_dense, shell) with upstream's
// outputs.
//
//   - BM25 (bm25_indexer.py, bm25_retriever.py) is rank_bm25's BM25Okapi
//     (k1 1.5, b 0.75, epsilon 0.25) over str.lower().split() tokens, with
//     the same floating-point operations in the same order, so scores are
//     upstream's to the bit; ties keep document order as Python's stable
//     sort does.
//   - grep (grep_retriever.py) matches with Python's re (internal/py/pyre):
//     the pattern as given, re.escape'd when re rejects it, IGNORECASE
//     unless case-sensitive; score = number of re.findall matches.
//   - dense (embedding_indexer.py, embedding_encoder.py,
//     cosine_retriever.py) embeds through an Embedder (an OpenAI-compatible
//     /v1/embeddings endpoint, implemented in internal/engine/llm), caches
//     document vectors on disk by embedding model and document hash, and
//     ranks by cosine similarity.
//   - the pointwise LLM reranker (pointwise_llm_reranker.py) rates each hit
//     through a Chat backbone with upstream's prompt and response format;
//     bge_reranker and qwen_reranker need Sierra's hosted models and are
//     refused with an error saying so.
//   - shell (sandbox_manager.py) runs commands in a bubblewrap sandbox
//     (package sandbox) over the documents exported as upstream exports
//     them.
//
// Documents are loaded in file-name order (upstream lists the directory,
// whose order differs between file systems); that order decides BM25 and
// grep tie order, the last bits of BM25's average idf and the full_kb
// prompt.
//
// Model-facing text (tool descriptions and schemas, the reranker's prompt,
// Qwen's query instruction) is read from the pulled upstream source at load
// time (Source); none of it lives here.
package knowledge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Document is one knowledge-base document (data_model.py's Document).
type Document struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Content string `json:"content"`
}

// Base is the knowledge base: its documents in file-name order. It is
// immutable once loaded and shared by every simulation.
type Base struct {
	docs []Document
	byID map[string]int
}

// NewBase builds a knowledge base from documents in the given order. A
// later document with an id already seen replaces the earlier one in its
// place, as upstream's dict does.
func NewBase(docs []Document) *Base {
	b := &Base{byID: make(map[string]int, len(docs))}
	for _, d := range docs {
		if i, ok := b.byID[d.ID]; ok {
			b.docs[i] = d
			continue
		}
		b.byID[d.ID] = len(b.docs)
		b.docs = append(b.docs, d)
	}
	return b
}

// Load reads a documents directory (data/tau2/domains/banking_knowledge/
// documents). names lists the files to read (e.g. from the data manifest):
// each must exist. With names nil every *.json file of the directory is
// read. Files are read in file-name order whatever the order of names.
// A missing or malformed document is an error naming its file.
func Load(dir string, names []string) (*Base, error) {
	if names == nil {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("load knowledge base: %w", err)
		}
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".json") && !e.IsDir() {
				names = append(names, e.Name())
			}
		}
	} else {
		names = slices.Clone(names)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("load knowledge base %s: no documents", dir)
	}
	docs := make([]Document, 0, len(names))
	for _, n := range names {
		p := filepath.Join(dir, n)
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("load knowledge base document %s: %w", p, err)
		}
		d, err := DecodeDocument(b)
		if err != nil {
			return nil, fmt.Errorf("load knowledge base document %s: %w", p, err)
		}
		docs = append(docs, d)
	}
	return NewBase(docs), nil
}

// DecodeDocument decodes one document file: a JSON object with string id,
// title and content (other keys are ignored, as pydantic does).
func DecodeDocument(b []byte) (Document, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Document{}, err
	}
	if raw == nil {
		return Document{}, errors.New("not a JSON object")
	}
	var d Document
	for _, f := range []struct {
		key string
		dst *string
	}{{"id", &d.ID}, {"title", &d.Title}, {"content", &d.Content}} {
		v, ok := raw[f.key]
		if !ok {
			return Document{}, fmt.Errorf("field %q missing", f.key)
		}
		if err := json.Unmarshal(v, f.dst); err != nil || string(v) == "null" {
			return Document{}, fmt.Errorf("field %q is not a string", f.key)
		}
	}
	return d, nil
}

// Docs returns the documents in order. The slice is shared: do not modify.
func (b *Base) Docs() []Document { return b.docs }

// Len is the number of documents.
func (b *Base) Len() int { return len(b.docs) }

// Doc returns a document by id.
func (b *Base) Doc(id string) (Document, bool) {
	i, ok := b.byID[id]
	if !ok {
		return Document{}, false
	}
	return b.docs[i], true
}
