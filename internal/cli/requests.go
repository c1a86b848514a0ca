package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
)

// requestsFile is the request log of `run --record-requests`.
const requestsFile = "requests.jsonl"

// requestLog appends one JSON line per model request:
// {"backbone": NAME, "cached": BOOL, "body": <the request body as sent>}.
// Bodies carry no credentials (keys travel in headers, which are not
// recorded). Requests made before open are dropped (there are none: the
// log opens before the first simulation starts).
type requestLog struct {
	mu  sync.Mutex
	f   *os.File
	err error
}

func (l *requestLog) open(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("request log: %w", err)
	}
	l.mu.Lock()
	l.f = f
	l.mu.Unlock()
	return nil
}

// write is llm.Options.OnRequest.
func (l *requestLog) write(backbone string, body []byte, cached bool) {
	line := make([]byte, 0, len(body)+64)
	line = append(line, `{"backbone":`...)
	name, _ := json.Marshal(backbone)
	line = append(line, name...)
	line = append(line, `,"cached":`...)
	line = strconv.AppendBool(line, cached)
	line = append(line, `,"body":`...)
	line = append(line, bytes.TrimSpace(body)...)
	line = append(line, "}\n"...)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil || l.err != nil {
		return
	}
	_, l.err = l.f.Write(line)
}

func (l *requestLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return l.err
	}
	err := l.f.Close()
	l.f = nil
	if l.err != nil {
		return fmt.Errorf("request log: %w", l.err)
	}
	return err
}
