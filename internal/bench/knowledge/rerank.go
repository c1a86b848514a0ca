package knowledge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/py/pydantic"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Chat is the chat backbone the pointwise LLM reranker asks
// (internal/engine/llm's Client implements it).
type Chat interface {
	// Model is the model id the requests carry ("model").
	Model() string
	// Complete sends one chat completions request body as given and
	// returns the provider's response body. An error is an infrastructure
	// failure (the call failed after its retries).
	Complete(ctx context.Context, body []byte) ([]byte, error)
}

// reranker is pointwise_llm_reranker.py's PointwiseLLMReranker: each hit
// with content is rated 0-10 by the chat model (upstream's prompt and
// response format, at most max_concurrency at a time); those rated at
// least min_score are kept, best first (ties in the retriever's order).
type reranker struct {
	chat        Chat
	src         *Source
	minScore    int
	concurrency int
	format      json.RawMessage // the response_format object
}

func newReranker(minScore int, deps Deps) (*reranker, error) {
	if deps.Source == nil {
		return nil, errors.New("knowledge: the pointwise LLM reranker needs upstream's source (Deps.Source)")
	}
	if deps.Reranker == nil {
		return nil, fmt.Errorf("knowledge: no reranker backbone configured: the pointwise LLM reranker asks upstream's model %s, which needs a backbone of that model in the backbones file", deps.Source.RerankerModel())
	}
	chat, err := deps.Reranker(deps.Source.RerankerModel())
	if err != nil {
		return nil, err
	}
	if n := strings.Count(deps.Source.rerankPrompt, "{}"); n != 2 || strings.Count(deps.Source.rerankPrompt, "{") != 2 {
		return nil, fmt.Errorf("knowledge: %s: DEFAULT_POINTWISE_PROMPT has %d {} fields; the reranker fills two (query, passage)", RerankerFile, n)
	}
	// type_to_response_format_param(RelevanceScore): the model's strict
	// JSON schema, named after it.
	js := &pyjson.Dict{}
	js.Set("schema", strictSchema(deps.Source.relevanceSchema))
	js.Set("name", "RelevanceScore")
	js.Set("strict", true)
	rf := &pyjson.Dict{}
	rf.Set("type", "json_schema")
	rf.Set("json_schema", js)
	b, err := pyjson.Marshal(rf)
	if err != nil {
		return nil, err
	}
	return &reranker{chat: chat, src: deps.Source, minScore: minScore, concurrency: max(1, deps.Source.rerankConcurrency), format: b}, nil
}

// strictSchema is the OpenAI SDK's to_strict_json_schema: every object
// closed (additionalProperties false) with all its properties required,
// recursively.
func strictSchema(v any) any {
	switch x := v.(type) {
	case *pyjson.Dict:
		out := &pyjson.Dict{}
		for i, k := range x.Keys {
			out.Set(k, x.Values[i])
		}
		if t, _ := out.Get("type"); t == "object" {
			if _, ok := out.Get("additionalProperties"); !ok {
				out.Set("additionalProperties", false)
			}
		}
		if p, ok := out.Get("properties"); ok {
			if pd, ok := p.(*pyjson.Dict); ok {
				req := make([]any, len(pd.Keys))
				for i, k := range pd.Keys {
					req[i] = k
				}
				out.Set("required", req)
				props := &pyjson.Dict{}
				for i, k := range pd.Keys {
					props.Set(k, strictSchema(pd.Values[i]))
				}
				out.Set("properties", props)
			}
		}
		for _, k := range []string{"items", "$defs", "definitions"} {
			if sub, ok := out.Get(k); ok {
				if k == "items" {
					out.Set(k, strictSchema(sub))
				} else if sd, ok := sub.(*pyjson.Dict); ok {
					nd := &pyjson.Dict{}
					for i, kk := range sd.Keys {
						nd.Set(kk, strictSchema(sd.Values[i]))
					}
					out.Set(k, nd)
				}
			}
		}
		if a, ok := out.Get("anyOf"); ok {
			if l, ok := a.([]any); ok {
				nl := make([]any, len(l))
				for i, e := range l {
					nl[i] = strictSchema(e)
				}
				out.Set("anyOf", nl)
			}
		}
		return out
	}
	return v
}

// body is the request PointwiseLLMReranker._rate_passage sends through
// client.beta.chat.completions.parse (the OpenAI SDK's key order).
func (r *reranker) body(query, passage string) []byte {
	// prompt_template.format(query, passage): the two {} fields in order
	// (the query's own text is not scanned for fields).
	t := r.src.rerankPrompt
	i := strings.Index(t, "{}")
	j := i + 2 + strings.Index(t[i+2:], "{}")
	prompt := t[:i] + query + t[i+2:j] + passage + t[j+2:]
	msg := &pyjson.Dict{}
	msg.Set("role", "user")
	msg.Set("content", prompt)
	d := &pyjson.Dict{}
	d.Set("messages", []any{msg})
	model := r.chat.Model()
	d.Set("model", model)
	if r.src.rerankEffort != "" && strings.HasPrefix(model, "gpt-5") {
		d.Set("reasoning_effort", r.src.rerankEffort)
	}
	d.Set("response_format", json.RawMessage(r.format))
	b, err := pyjson.MarshalOptions(d, pyjson.Options{UnicodeOK: true})
	if err != nil { // strings and a schema read at load: always encodable
		panic(err)
	}
	var c bytes.Buffer
	if json.Compact(&c, b) == nil {
		return c.Bytes()
	}
	return b
}

// rate is _rate_passage: the model's rating clamped to 0-10, or ok false
// when the SDK's parse would raise (a cut or filtered reply, content that
// is not a RelevanceScore) and upstream's caller drops the hit.
func (r *reranker) rate(ctx context.Context, query, passage string) (rating int, ok bool, err error) {
	raw, err := r.chat.Complete(ctx, r.body(query, passage))
	if err != nil {
		return 0, false, infra(err)
	}
	var resp struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content *string `json:"content"`
				Refusal *string `json:"refusal"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || len(resp.Choices) == 0 {
		return 0, false, nil
	}
	ch := resp.Choices[0]
	if ch.FinishReason == "length" || ch.FinishReason == "content_filter" {
		return 0, false, nil // LengthFinishReasonError, ContentFilterFinishReasonError
	}
	content := ""
	if ch.Message.Content != nil {
		content = *ch.Message.Content
	}
	if content == "" || ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
		return 0, true, nil // nothing parsed: rated 0
	}
	v, err := pyjson.Decode([]byte(content))
	if err != nil {
		return 0, false, nil
	}
	d, isDict := v.(*pyjson.Dict)
	if !isDict {
		return 0, false, nil
	}
	x, ok := d.Get("relevance_score")
	if !ok {
		return 0, false, nil
	}
	if n, isNum := x.(json.Number); isNum && pyjson.IsInt(n) && len(strings.TrimPrefix(string(n), "-")) > 18 {
		if strings.HasPrefix(string(n), "-") { // beyond 64 bits: clamped all the same
			return 0, true, nil
		}
		return 10, true, nil
	}
	var val pydantic.Validator
	score := val.Int("relevance_score", x)
	if val.Err("RelevanceScore") != nil {
		return 0, false, nil
	}
	return max(0, min(10, score)), true, nil
}

// process is PointwiseLLMReranker.process.
func (r *reranker) process(ctx context.Context, query string, hits []Hit, base *Base) ([]Hit, error) {
	if len(hits) == 0 {
		return hits, nil
	}
	type job struct {
		id, passage string
	}
	var jobs []job
	for _, h := range hits {
		d, _ := base.Doc(h.ID)
		if d.Content != "" {
			jobs = append(jobs, job{h.ID, d.Content})
		}
	}
	if len(jobs) == 0 {
		return []Hit{}, nil
	}
	type result struct {
		rating int
		ok     bool
		err    error
	}
	results := make([]result, len(jobs))
	sem := make(chan struct{}, r.concurrency)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			rating, ok, err := r.rate(ctx, query, j.passage)
			results[i] = result{rating, ok, err}
		})
	}
	wg.Wait()
	out := []Hit{}
	for i, res := range results {
		if res.err != nil {
			return nil, res.err
		}
		if res.ok && res.rating >= r.minScore {
			out = append(out, Hit{jobs[i].id, float64(res.rating)})
		}
	}
	slices.SortStableFunc(out, func(a, b Hit) int { return cmpDesc(a.Score, b.Score) })
	return out, nil
}
