package knowledge

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
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
// reranker's prompt, response format and request defaults, Qwen's query
// instruction and its format.
type Source struct {
	mixins *pyschema.File

	// The pointwise reranker (PointwiseLLMReranker): the prompt template
	// (two positional {} fields: the query, the passage), the model and
	// reasoning effort it asks by default, its concurrency, and the JSON
	// schema of its response model.
	rerankPrompt      string
	rerankModel       string
	rerankEffort      string
	rerankConcurrency int
	relevanceSchema   *pyjson.Dict

	// OpenRouterEmbedder: the default query instruction, the query format
	// (an f-string over self.query_instruction and text), and
	// SUPPORTED_MODELS.
	qwenInstruction string
	queryFormat     pyliteral.FString
	openRouter      *pyjson.Dict
}

// LoadSource reads the upstream source files from a data directory (its
// tau2-bench folder). A missing file or symbol is an error naming both.
func LoadSource(root string) (*Source, error) {
	s := &Source{}
	var err error
	if s.mixins, err = pyschema.ReadFile(data.Tau2Source(root, MixinsFile)); err != nil {
		return nil, err
	}
	if err := s.loadReranker(data.Tau2Source(root, RerankerFile)); err != nil {
		return nil, err
	}
	if err := s.loadOpenRouter(data.Tau2Source(root, OpenRouterFile)); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Source) loadReranker(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("knowledge source: %w", err)
	}
	fail := func(what string, err error) error { return fmt.Errorf("%s: %s: %w", path, what, err) }
	if s.rerankPrompt, err = pyliteral.StringAssignment(src, "DEFAULT_POINTWISE_PROMPT"); err != nil {
		return fail("DEFAULT_POINTWISE_PROMPT", err)
	}
	f, err := pyschema.Parse(path, src)
	if err != nil {
		return err
	}
	init, err := f.Mod.Func("PointwiseLLMReranker.__init__")
	if err != nil {
		return fail("PointwiseLLMReranker.__init__", err)
	}
	param := func(name string) (any, error) {
		for _, p := range init.Params {
			if p.Name == name && p.HasDefault {
				if n, ok := p.Default.(*pyliteral.Name); ok { // a module constant
					v := f.Mod.Var(n.Dotted)
					if v == nil || !v.HasValue {
						return nil, fmt.Errorf("default %s: %w", n.Dotted, pyliteral.ErrNoSymbol)
					}
					return v.Value, nil
				}
				return p.Default, nil
			}
		}
		return nil, fmt.Errorf("parameter %s with a default: %w", name, pyliteral.ErrNoSymbol)
	}
	for _, p := range []struct {
		name string
		dst  *string
	}{{"model", &s.rerankModel}, {"reasoning_effort", &s.rerankEffort}} {
		v, err := param(p.name)
		if err != nil {
			return fail("PointwiseLLMReranker.__init__", err)
		}
		str, ok := v.(string)
		if !ok {
			return fail("PointwiseLLMReranker.__init__", fmt.Errorf("default %s is not a string", p.name))
		}
		*p.dst = str
	}
	v, err := param("max_concurrency")
	if err == nil {
		s.rerankConcurrency, err = intValue(v)
	}
	if err != nil {
		return fail("PointwiseLLMReranker.__init__ max_concurrency", err)
	}
	if s.relevanceSchema, err = pyschema.ModelSchema(f, "RelevanceScore"); err != nil {
		return fail("RelevanceScore", err)
	}
	return nil
}

func (s *Source) loadOpenRouter(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("knowledge source: %w", err)
	}
	fail := func(what string, err error) error { return fmt.Errorf("%s: %s: %w", path, what, err) }
	if s.qwenInstruction, err = pyliteral.StringAssignment(src, "DEFAULT_QWEN_QUERY_INSTRUCTION"); err != nil {
		return fail("DEFAULT_QWEN_QUERY_INSTRUCTION", err)
	}
	lits, err := pyliteral.FuncStrings(src, "OpenRouterEmbedder", "_format_text")
	if err != nil {
		return fail("OpenRouterEmbedder._format_text", err)
	}
	for _, l := range lits {
		if l.Target == "return" && l.FString && len(l.Fields) == 2 && l.Fields[0] == "self.query_instruction" && l.Fields[1] == "text" {
			s.queryFormat = l.Template()
			break
		}
	}
	if len(s.queryFormat.Parts) == 0 {
		return fail("OpenRouterEmbedder._format_text", errors.New("no returned f-string over {self.query_instruction} and {text}"))
	}
	f, err := pyschema.Parse(path, src)
	if err != nil {
		return err
	}
	c := f.Mod.Class("OpenRouterEmbedder")
	if c == nil {
		return fail("class OpenRouterEmbedder", pyliteral.ErrNoSymbol)
	}
	v := c.Var("SUPPORTED_MODELS")
	if v == nil || !v.HasValue || v.Err != nil {
		return fail("OpenRouterEmbedder.SUPPORTED_MODELS", pyliteral.ErrNoSymbol)
	}
	d, ok := v.Value.(*pyjson.Dict)
	if !ok {
		return fail("OpenRouterEmbedder.SUPPORTED_MODELS", errors.New("not a dict literal"))
	}
	s.openRouter = d
	return nil
}

func intValue(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case fmt.Stringer:
		return strconv.Atoi(x.String())
	case string:
		return strconv.Atoi(x)
	}
	return 0, fmt.Errorf("%v is not an int", v)
}

// RerankerModel is the model upstream's pointwise reranker asks by default
// ("gpt-5.2"): a run's reranker backbone is the backbones-file entry of
// that model unless the user names another.
func (s *Source) RerankerModel() string { return s.rerankModel }

// queryText is OpenRouterEmbedder._format_text for a query: the
// instruction format when the model takes one, else the text itself.
func (s *Source) queryText(instruction, text string) string {
	if instruction == "" {
		return text
	}
	out, err := s.queryFormat.Format(map[string]string{"self.query_instruction": instruction, "text": text})
	if err != nil { // checked at load: both fields are there
		panic(err)
	}
	return out
}

// queryInstruction is the instruction OpenRouterEmbedder(model=model)
// prefixes queries with ("" for none): Qwen's default for the models
// SUPPORTED_MODELS marks requires_instruction, and for any other model
// whose name says qwen.
func (s *Source) queryInstruction(model string) string {
	requires := false
	found := false
	if v, ok := s.openRouter.Get(model); ok {
		requires, found = modelRequires(v), true
	} else {
		for _, k := range s.openRouter.Keys {
			v, _ := s.openRouter.Get(k)
			if cfg, ok := v.(*pyjson.Dict); ok {
				if api, _ := cfg.Get("api_string"); api == model {
					requires, found = modelRequires(v), true
					break
				}
			}
		}
	}
	if !found {
		requires = containsFold(model, "qwen")
	}
	if requires {
		return s.qwenInstruction
	}
	return ""
}

func modelRequires(v any) bool {
	cfg, ok := v.(*pyjson.Dict)
	if !ok {
		return false
	}
	r, _ := cfg.Get("requires_instruction")
	b, _ := r.(bool)
	return b
}

func containsFold(s, sub string) bool { return strings.Contains(pyjson.Lower(s), sub) }
