package llm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// EmbeddingClient embeds texts through one embeddings entry of the
// backbones file, with the retries, rate limits and error reporting of
// the chat client (a failure is an *Error, wrapping
// fault.ErrInfrastructure). It is safe for concurrent use and satisfies
// knowledge.Embedder.
type EmbeddingClient struct {
	e Embedding
	c *Client
}

// NewEmbedding returns a client for e, reading its API key through
// opts.LookupEnv. Prefer Pool.Embedder, which shares one per entry.
func NewEmbedding(e Embedding, opts Options) (*EmbeddingClient, error) {
	var errs []error
	for _, p := range e.problems() {
		errs = append(errs, errors.New(p.text()))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	opts.CacheDir = "" // embeddings have their own cache
	if _, err := e.backbone().APIKey(opts.LookupEnv); err != nil {
		return nil, fmt.Errorf("embeddings %s: %w: set %s (the environment variable is empty or unset)", e.Name, ErrNoAPIKey, e.APIKeyEnv)
	}
	c, err := newClient(e.backbone(), "embedding", opts)
	if err != nil {
		return nil, err
	}
	return &EmbeddingClient{e: e, c: c}, nil
}

// ID identifies the vectors: the endpoint, the provider's model and the
// encoding.
func (ec *EmbeddingClient) ID() string {
	return strings.TrimRight(ec.e.BaseURL, "/") + " " + ec.e.Model + " " + ec.e.Format()
}

// Entry returns the client's embeddings entry (it holds no secret).
func (ec *EmbeddingClient) Entry() Embedding { return ec.e }

// embeddingBody is the request upstream's embedders send through the
// OpenAI SDK: {"input", "model", "encoding_format"}.
func embeddingBody(texts []string, model, format string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Input          []string `json:"input"`
		Model          string   `json:"model"`
		EncodingFormat string   `json:"encoding_format"`
	}{texts, model, format})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// Embed returns one vector per text, in order: one request for all texts
// (as upstream sends them), or requests of at most batch_size texts.
// Vectors sent as base64 are float32 values (the OpenAI SDK's decoding),
// vectors sent as numbers are read as Python reads them (float64).
func (ec *EmbeddingClient) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	if len(texts) == 0 {
		return nil, errors.New("llm: no text to embed")
	}
	batch := ec.e.BatchSize
	if batch <= 0 {
		batch = len(texts)
	}
	var out [][]float64
	for i := 0; i < len(texts); i += batch {
		part := texts[i:min(len(texts), i+batch)]
		vs, err := ec.embed(ctx, part)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

func (ec *EmbeddingClient) embed(ctx context.Context, texts []string) ([][]float64, error) {
	c := ec.c
	body, err := embeddingBody(texts, ec.e.Model, ec.e.Format())
	if err != nil {
		return nil, fmt.Errorf("llm %s: build request: %w", c.b.Name, err)
	}
	c.record(body, false)
	estimate := len(body)/4 + 1
	var vecs [][]float64
	var tokens int
	_, _, _, _, err = c.exchange(ctx, body, estimate, func(actx context.Context, a *attempt) error {
		if err := c.sendEmbeddings(actx, a, ec.e.Format()); err != nil {
			return err
		}
		vs, n, err := parseEmbeddings(a.raw, len(texts))
		vecs, tokens = vs, n
		return err
	})
	if err != nil {
		return nil, err
	}
	if tokens > 0 {
		c.lim.charge(tokens - estimate)
	}
	return vecs, nil
}

// parseEmbeddings reads an embeddings reply: data[].embedding as numbers or
// base64 float32s, in the reply's order (upstream reads response.data in
// order), and usage.prompt_tokens. A reply without the vectors is a
// *badReplyError (retried).
func parseEmbeddings(raw []byte, want int) ([][]float64, int, error) {
	var resp struct {
		Data []struct {
			Embedding json.RawMessage `json:"embedding"`
		} `json:"data"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, 0, &badReplyError{"unreadable embeddings reply: " + err.Error()}
	}
	if len(resp.Error) > 0 && string(resp.Error) != "null" {
		return nil, 0, &badReplyError{"reply carries an error: " + providerMessage(resp.Error)}
	}
	if len(resp.Data) != want {
		return nil, 0, &badReplyError{fmt.Sprintf("reply has %d embeddings for %d inputs", len(resp.Data), want)}
	}
	out := make([][]float64, want)
	for i, d := range resp.Data {
		e := bytes.TrimSpace(d.Embedding)
		if len(e) > 0 && e[0] == '"' {
			var s string
			if err := json.Unmarshal(e, &s); err != nil {
				return nil, 0, &badReplyError{"unreadable embedding: " + err.Error()}
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil || len(b)%4 != 0 {
				return nil, 0, &badReplyError{"embedding is not base64 float32s"}
			}
			v := make([]float64, len(b)/4)
			for j := range v {
				v[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:])))
			}
			out[i] = v
			continue
		}
		if err := json.Unmarshal(e, &out[i]); err != nil || len(out[i]) == 0 {
			return nil, 0, &badReplyError{"embedding is not a list of numbers"}
		}
	}
	return out, resp.Usage.PromptTokens, nil
}

// Model is the backbone's model id (what a request built outside, such as
// the reranker's, sends as "model").
func (c *Client) Model() string { return c.b.Model }

// Complete sends a chat completions body built by the caller (upstream's
// fields in upstream's order, as banking_knowledge's pointwise reranker
// sends them) with Generate's retries and rate limits, and returns the
// provider's reply body. The backbone's own sampling settings are not
// added. A failure is an *Error, as Generate's.
func (c *Client) Complete(ctx context.Context, body []byte) ([]byte, error) {
	c.record(body, false)
	estimate := len(body)/4 + 1
	var resp chatResponse
	a, _, _, _, err := c.exchange(ctx, body, estimate, func(actx context.Context, a *attempt) error {
		r, err := c.send(actx, a)
		if err == nil {
			err = replyError(&r, a.raw)
		}
		resp = r
		return err
	})
	if err != nil {
		return nil, err
	}
	c.lim.charge(resp.Usage.PromptTokens + resp.Usage.CompletionTokens - estimate)
	return a.raw, nil
}
