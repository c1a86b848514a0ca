package llm

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
)

func testEmbedding(srv *openaitest.EmbeddingServer, typ string) Embedding {
	return Embedding{Name: "emb", Type: typ, BaseURL: srv.BaseURL(), Model: "emb-model", APIKeyEnv: "TEST_API_KEY", Timeout: 5 * time.Second}
}

func newTestEmbedding(t *testing.T, e Embedding) *EmbeddingClient {
	t.Helper()
	c, err := NewEmbedding(e, Options{LookupEnv: testEnv, Sleep: (&sleeper{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// vectorOf is a fixed vector per text (values exact in float32 and float64).
func vectorOf(s string, third float64) []float64 {
	return []float64{float64(len(s)), float64(strings.Count(s, "a")) / 4, third}
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, typ, format string
		third             float64 // a value float32 cannot hold when sent as numbers
		want              float64
	}{
		{"openai sends base64", EmbeddingOpenAI, "base64", 0.1, float64(float32(0.1))},
		{"openrouter sends floats", EmbeddingOpenRouter, "float", 0.1, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := openaitest.NewEmbeddingServer(t, func(_ int, r *openaitest.EmbeddingRequest) openaitest.EmbeddingReply {
				var vs [][]float64
				for _, s := range r.Input {
					vs = append(vs, vectorOf(s, tc.third))
				}
				return openaitest.EmbeddingReply{Vectors: vs}
			})
			c := newTestEmbedding(t, testEmbedding(srv, tc.typ))
			got, err := c.Embed(context.Background(), []string{"banana", "x<&>"})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0][0] != 6 || got[0][1] != 0.75 || got[0][2] != tc.want || got[1][0] != 4 {
				t.Errorf("vectors %v", got)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			r := reqs[0]
			if !slices.Equal(r.Keys, []string{"input", "model", "encoding_format"}) || r.Model != "emb-model" || r.EncodingFormat != tc.format ||
				!slices.Equal(r.Input, []string{"banana", "x<&>"}) || !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer sk-test") {
				t.Errorf("request %s (keys %v, header %v)", r.Body, r.Keys, r.Header.Get("Authorization"))
			}
			if !strings.Contains(string(r.Body), `"x<&>"`) {
				t.Errorf("body escapes HTML: %s", r.Body)
			}
			if id := c.ID(); !strings.Contains(id, srv.BaseURL()) || !strings.Contains(id, tc.format) {
				t.Errorf("ID %q", id)
			}
		})
	}
}

func TestEmbedBatchesAndRetries(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewEmbeddingServer(t, func(n int, r *openaitest.EmbeddingRequest) openaitest.EmbeddingReply {
		switch n {
		case 1:
			return openaitest.EmbeddingReply{Status: http.StatusInternalServerError}
		case 2:
			return openaitest.EmbeddingReply{Body: `{"data":[]}`} // a reply without the vectors: retried
		}
		var vs [][]float64
		for _, s := range r.Input {
			vs = append(vs, vectorOf(s, 1))
		}
		return openaitest.EmbeddingReply{Vectors: vs}
	})
	e := testEmbedding(srv, EmbeddingOpenRouter)
	e.BatchSize = 2
	c := newTestEmbedding(t, e)
	got, err := c.Embed(context.Background(), []string{"a", "bb", "ccc"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2][0] != 3 {
		t.Errorf("vectors %v", got)
	}
	var sizes []int
	for _, r := range srv.Requests() {
		sizes = append(sizes, len(r.Input))
	}
	if !slices.Equal(sizes, []int{2, 2, 2, 1}) {
		t.Errorf("request sizes %v; want two failed attempts, then batches of 2 and 1", sizes)
	}
}

func TestEmbedFailures(t *testing.T) {
	t.Parallel()
	t.Run("auth", func(t *testing.T) {
		t.Parallel()
		srv := openaitest.NewEmbeddingServer(t, func(int, *openaitest.EmbeddingRequest) openaitest.EmbeddingReply {
			return openaitest.EmbeddingReply{Status: http.StatusUnauthorized, Message: "bad key"}
		})
		_, err := newTestEmbedding(t, testEmbedding(srv, EmbeddingOpenAI)).Embed(context.Background(), []string{"a"})
		if !errors.Is(err, ErrAuth) || !errors.Is(err, fault.ErrInfrastructure) || !strings.Contains(err.Error(), "TEST_API_KEY") {
			t.Errorf("401: %v", err)
		}
	})
	t.Run("retries run out", func(t *testing.T) {
		t.Parallel()
		srv := openaitest.NewEmbeddingServer(t, func(int, *openaitest.EmbeddingRequest) openaitest.EmbeddingReply {
			return openaitest.EmbeddingReply{Status: http.StatusServiceUnavailable}
		})
		_, err := newTestEmbedding(t, testEmbedding(srv, EmbeddingOpenAI)).Embed(context.Background(), []string{"a"})
		var e *Error
		if !errors.As(err, &e) || !e.Retryable || e.Attempts != DefaultMaxRetries+1 || len(srv.Requests()) != DefaultMaxRetries+1 {
			t.Errorf("503s: %v (%d requests)", err, len(srv.Requests()))
		}
	})
	t.Run("no key", func(t *testing.T) {
		t.Parallel()
		e := Embedding{Name: "emb", Type: EmbeddingOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m", APIKeyEnv: "UNSET_EMBEDDING_KEY"}
		_, err := NewEmbedding(e, Options{LookupEnv: func(string) (string, bool) { return "", false }})
		if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "UNSET_EMBEDDING_KEY") {
			t.Errorf("no key: %v", err)
		}
	})
}

func TestParseEmbeddings(t *testing.T) {
	t.Parallel()
	vs, n, err := parseEmbeddings([]byte(`{"data":[{"embedding":[0.1,-2.5e-3,1]},{"embedding":"AACAPw=="}],"usage":{"prompt_tokens":7}}`), 2)
	if err != nil || n != 7 || vs[0][0] != 0.1 || vs[0][1] != -2.5e-3 || vs[1][0] != 1 || len(vs[1]) != 1 {
		t.Errorf("parse: %v %d %v", vs, n, err)
	}
	for _, bad := range []string{`{"data":[{"embedding":"AAA"}]}`, `{"data":[{"embedding":[]}]}`, `{"error":{"message":"x"}}`, `not json`, `{"data":[{"embedding":{}}]}`} {
		if _, _, err := parseEmbeddings([]byte(bad), 1); err == nil {
			t.Errorf("parse(%s): no error", bad)
		}
	}
}

func TestEmbeddingsConfig(t *testing.T) {
	t.Parallel()
	cfg, err := Load("../../../backbones.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ typ, name, model, format string }{
		{EmbeddingOpenAI, "text-embedding-3-large", "text-embedding-3-large", "base64"},
		{EmbeddingOpenRouter, "qwen3-embedding-8b", "qwen/qwen3-embedding-8b", "float"},
	} {
		e, err := cfg.Embedding(tc.typ, tc.name)
		if err != nil || e.Model != tc.model || e.Format() != tc.format {
			t.Errorf("Embedding(%s, %s) = %+v, %v", tc.typ, tc.name, e, err)
		}
	}
	if _, err := cfg.Embedding(EmbeddingOpenRouter, "text-embedding-3-large"); !errors.Is(err, ErrUnknownEmbedding) || !strings.Contains(err.Error(), "qwen3-embedding-8b (openrouter)") {
		t.Errorf("wrong type: %v", err)
	}
	_, err = Decode(strings.NewReader("backbones:\n  b: {base_url: 'http://x/v1', model: m}\nembeddings:\n  e:\n    type: openai\n    modle: x\n"))
	if err == nil || !strings.Contains(err.Error(), `line 6: embedding "e": unknown key "modle" (did you mean "model"?)`) {
		t.Errorf("typo: %v", err)
	}
	c, err := Decode(strings.NewReader("backbones:\n  b: {base_url: 'http://x/v1', model: m}\nembeddings:\n  e:\n    type: cohere\n    base_url: http://x/v1\n    encoding_format: int8\n"))
	if err != nil {
		t.Fatal(err)
	}
	verr := c.Validate()
	for _, want := range []string{`embedding e: model is required`, `embedding e: type "cohere" is not openai or openrouter`, `encoding_format "int8" is not base64 or float`} {
		if verr == nil || !strings.Contains(verr.Error(), want) {
			t.Errorf("validation %v; want %q", verr, want)
		}
	}
}

func TestComplete(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewServer(t, openaitest.Status(http.StatusInternalServerError, ""), openaitest.Text(`{"relevance_score": 8}`))
	c := newTestClient(t, testBackbone(srv), Options{})
	body := `{"messages":[{"role":"user","content":"rate"}],"model":"test-model","response_format":{"type":"json_schema"}}`
	raw, err := c.Complete(context.Background(), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `relevance_score`) || c.Model() != "test-model" {
		t.Errorf("reply %s", raw)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || string(reqs[1].Body) != body {
		t.Errorf("sent %d requests; last %s", len(reqs), reqs[len(reqs)-1].Body)
	}
}
