package openaitest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// EmbeddingRequest is one decoded embeddings request (POST …/embeddings).
type EmbeddingRequest struct {
	Input          []string
	Model          string
	EncodingFormat string // "" when absent
	// Keys lists the top-level keys in the order they were sent.
	Keys   []string
	Body   []byte
	Header http.Header
}

// EmbeddingReply is the answer to one embeddings request: the vectors (one
// per input), or a fault when Status is set (an error reply) or Body is set
// (sent verbatim).
type EmbeddingReply struct {
	Vectors    [][]float64
	Status     int
	RetryAfter string
	Message    string
	Body       string
}

// EmbeddingHandler decides the reply to one request; n counts requests
// from 1. It may be called concurrently.
type EmbeddingHandler func(n int, r *EmbeddingRequest) EmbeddingReply

// EmbeddingServer is a fake of the OpenAI embeddings endpoint. Vectors are
// sent as the request asks: base64 float32s for "base64", numbers
// otherwise. Close is registered with t.Cleanup.
type EmbeddingServer struct {
	*httptest.Server
	t testing.TB
	h EmbeddingHandler

	mu       sync.Mutex
	requests []EmbeddingRequest
}

// NewEmbeddingServer starts a fake that asks h for every reply.
func NewEmbeddingServer(t testing.TB, h EmbeddingHandler) *EmbeddingServer {
	s := &EmbeddingServer{t: t, h: h}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Server.Close)
	return s
}

// BaseURL is the URL to configure as an embeddings entry's base_url.
func (s *EmbeddingServer) BaseURL() string { return s.URL + "/v1" }

// Requests returns every request received so far, in arrival order.
func (s *EmbeddingServer) Requests() []EmbeddingRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EmbeddingRequest(nil), s.requests...)
}

func (s *EmbeddingServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/embeddings") {
		http.Error(w, "openaitest: only POST …/embeddings", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req := EmbeddingRequest{Body: body, Header: r.Header.Clone()}
	var in struct {
		Input          json.RawMessage `json:"input"`
		Model          string          `json:"model"`
		EncodingFormat string          `json:"encoding_format"`
	}
	derr := json.Unmarshal(body, &in)
	if derr == nil {
		req.Model, req.EncodingFormat = in.Model, in.EncodingFormat
		var one string
		if json.Unmarshal(in.Input, &one) == nil {
			req.Input = []string{one}
		} else {
			derr = json.Unmarshal(in.Input, &req.Input)
		}
		req.Keys, _ = objectKeys(body)
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	s.mu.Unlock()
	if derr != nil {
		writeError(w, http.StatusBadRequest, "", "openaitest: cannot decode request: "+derr.Error())
		return
	}
	reply := s.h(n, &req)
	switch {
	case reply.Body != "":
		status := reply.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, reply.Body)
		return
	case reply.Status != 0 && reply.Status != http.StatusOK:
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		msg := reply.Message
		if msg == "" {
			msg = http.StatusText(reply.Status)
		}
		writeError(w, reply.Status, errorType(reply.Status), msg)
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"object":"list","data":[`)
	tokens := 0
	for i, v := range reply.Vectors {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"object":"embedding","index":%d,"embedding":`, i)
		if req.EncodingFormat == "base64" {
			raw := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(float32(x)))
			}
			b.WriteString(strconv.Quote(base64.StdEncoding.EncodeToString(raw)))
		} else {
			b.WriteByte('[')
			for j, x := range v {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
	}
	for _, t := range req.Input {
		tokens += len(t)/4 + 1
	}
	fmt.Fprintf(&b, `],"model":%q,"usage":{"prompt_tokens":%d,"total_tokens":%d}}`, req.Model, tokens, tokens)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b.Bytes())
}
