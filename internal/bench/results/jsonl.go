package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/errext"
)

// SyncInterval is how often a Writer fsyncs at most. Every record reaches the
// kernel with one write(2) as soon as it is written, so a killed process
// loses nothing that was written; only a machine crash can lose records
// written since the last sync.
const SyncInterval = time.Second

// Writer appends records to a JSONL file, one line per record. It is safe
// for concurrent use: writes are serialised.
type Writer struct {
	path string

	mu       sync.Mutex
	f        *os.File
	lastSync time.Time
	written  int
}

// OpenWriter opens path for appending, creating it if needed. A last line
// left incomplete by a crash is cut off first, so new records start on a
// line of their own.
func OpenWriter(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	end, err := completeLength(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open results %s: %w", path, err)
	}
	if err := f.Truncate(end); err != nil {
		f.Close()
		return nil, fmt.Errorf("open results %s: cut incomplete last line: %w", path, err)
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("open results %s: %w", path, err)
	}
	return &Writer{path: path, f: f, lastSync: time.Now()}, nil
}

// completeLength returns the length of f up to and including its last
// newline (0 when it has none).
func completeLength(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// Write appends one record as a line.
func (w *Writer) Write(rec Record) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode record %s/%d: %w", rec.TaskID, rec.Trial, err)
	}
	return w.writeLine(line)
}

// WriteValue appends any JSON value as a line (the files beside a run's
// records that share its crash safety: reviews.jsonl).
func (w *Writer) WriteValue(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode line of %s: %w", w.path, err)
	}
	return w.writeLine(line)
}

func (w *Writer) writeLine(line []byte) error {
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("write %s: writer closed", w.path)
	}
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	w.written++
	if time.Since(w.lastSync) >= SyncInterval {
		if err := w.f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", w.path, err)
		}
		w.lastSync = time.Now()
	}
	return nil
}

// Written returns the number of records written so far.
func (w *Writer) Written() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written
}

// Close syncs and closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := errors.Join(w.f.Sync(), w.f.Close())
	w.f = nil
	if err != nil {
		return fmt.Errorf("close %s: %w", w.path, err)
	}
	return nil
}

// ReadInfo says how reading a JSONL file went.
type ReadInfo struct {
	// Lines is the number of records read.
	Lines int
	// Truncated is set when the last line was incomplete (a crash while
	// writing) and was skipped.
	Truncated bool
}

// ReadJSONL reads every record of a JSONL stream, in order. An incomplete
// last line (no final newline and not valid JSON) is skipped and reported in
// ReadInfo; any other bad line is an error naming its line number.
func ReadJSONL(r io.Reader) ([]Record, ReadInfo, error) {
	return ReadLines[Record](r)
}

// ReadLines is ReadJSONL for lines of any type.
func ReadLines[T any](r io.Reader) ([]T, ReadInfo, error) {
	var (
		recs []T
		info ReadInfo
	)
	br := bufio.NewReaderSize(r, 256<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, info, fmt.Errorf("line %d: %w", n, err)
		}
		last := errors.Is(err, io.EOF)
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			var rec T
			if jerr := json.Unmarshal(trimmed, &rec); jerr != nil {
				if last && line[len(line)-1] != '\n' {
					info.Truncated = true
					return recs, info, nil
				}
				return nil, info, fmt.Errorf("line %d: %w", n, errext.JSON(jerr))
			}
			recs = append(recs, rec)
			info.Lines++
		}
		if last {
			return recs, info, nil
		}
	}
}

// ReadJSONLFile reads a JSONL file; a missing file has no records.
func ReadJSONLFile(path string) ([]Record, ReadInfo, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ReadInfo{}, nil
	}
	if err != nil {
		return nil, ReadInfo{}, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	recs, info, err := ReadJSONL(f)
	if err != nil {
		return nil, info, fmt.Errorf("read results %s: %w", path, err)
	}
	return recs, info, nil
}

// Latest keeps the last record of each unit: a later record (a re-run after
// an infrastructure error) supersedes earlier ones. Units keep the order of
// their first appearance.
func Latest(recs []Record) []Record {
	latest, _ := Partition(recs)
	return latest
}

// Partition splits records into the latest of each unit (as Latest) and
// the attempts they supersede, in file order. The superseded ones count only
// in cost totals: they were paid for. A record that continues an earlier one
// of the same simulation (a re-judged judge_pending record keeps its ID and
// carries the conversation's cost and every judge attempt's) supersedes it
// without making it a paid attempt of its own: each simulation is counted
// once.
func Partition(recs []Record) (latest, superseded []Record) {
	idx := make(map[UnitKey]int, len(recs))
	latest = make([]Record, 0, len(recs))
	for _, r := range recs {
		k := r.Key()
		if i, ok := idx[k]; ok {
			if !r.Continues(&latest[i]) {
				superseded = append(superseded, latest[i])
			}
			latest[i] = r
			continue
		}
		idx[k] = len(latest)
		latest = append(latest, r)
	}
	return latest, superseded
}
