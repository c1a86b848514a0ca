package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/core/atomicfile"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// cache stores successful responses on disk, one JSON file per request,
// under dir/<first two hex digits>/<sha256>.json. The key is the SHA-256 of
// the base URL and the exact request body (model, messages, tools and every
// parameter); the API key is sent in a header and is in neither the key nor
// the file. Identical requests get identical responses: give trials distinct
// seeds (as upstream does) or cached trials repeat each other.
type cache struct{ dir string }

const cacheVersion = 1

// cacheEntry keeps tool-call arguments as strings so they come back byte for
// byte (json.RawMessage would be compacted).
type cacheEntry struct {
	Version          int           `json:"version"`
	Backbone         string        `json:"backbone"`
	Model            string        `json:"model"`
	FinishReason     string        `json:"finish_reason"`
	Content          string        `json:"content"`
	ReasoningContent string        `json:"reasoning_content,omitempty"`
	ToolCalls        []cacheCall   `json:"tool_calls,omitempty"`
	Usage            message.Usage `json:"usage"`
	MalformedArgs    int           `json:"malformed_args,omitempty"`
}

type cacheCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Requestor string `json:"requestor,omitempty"`
}

func (c *cache) key(baseURL string, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "ledgerbench llm cache v%d\n%s\n", cacheVersion, baseURL)
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func (c *cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// get returns the cached response for key: Cached set, cost zero, no
// attempts, no latency.
func (c *cache) get(key string) (Response, bool, error) {
	data, err := os.ReadFile(c.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return Response{}, false, nil
	}
	if err != nil {
		return Response{}, false, err
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return Response{}, false, fmt.Errorf("decode %s: %w", c.path(key), err)
	}
	if e.Version != cacheVersion {
		return Response{}, false, nil
	}
	usage := e.Usage
	m := message.Message{
		Role:             message.Assistant,
		Content:          e.Content,
		ReasoningContent: e.ReasoningContent,
		Usage:            &usage,
	}
	if len(e.ToolCalls) > 0 {
		m.ToolCalls = make([]message.ToolCall, len(e.ToolCalls))
		for i, tc := range e.ToolCalls {
			m.ToolCalls[i] = message.ToolCall{ID: tc.ID, Name: tc.Name,
				Arguments: json.RawMessage(tc.Arguments), Requestor: message.Requestor(tc.Requestor)}
		}
	}
	return Response{
		Message:       m,
		Usage:         e.Usage,
		Cached:        true,
		FinishReason:  e.FinishReason,
		Model:         e.Model,
		MalformedArgs: e.MalformedArgs,
	}, true, nil
}

// put writes r atomically (temporary file, then rename).
func (c *cache) put(key, backbone string, r *Response) error {
	e := cacheEntry{
		Version:          cacheVersion,
		Backbone:         backbone,
		Model:            r.Model,
		FinishReason:     r.FinishReason,
		Content:          r.Message.Content,
		ReasoningContent: r.Message.ReasoningContent,
		Usage:            r.Usage,
		MalformedArgs:    r.MalformedArgs,
	}
	for _, tc := range r.Message.ToolCalls {
		e.ToolCalls = append(e.ToolCalls, cacheCall{ID: tc.ID, Name: tc.Name,
			Arguments: string(tc.Arguments), Requestor: string(tc.Requestor)})
	}
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(p, data)
}
