package review

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
)

// FileName is the reviews file of a run directory.
const FileName = "reviews.jsonl"

// Path is where the reviews of a run go: FileName in a run directory (or a
// τ²-bench results directory); beside a results JSON, its name with
// ".reviews.jsonl" for ".json".
func Path(run string) string {
	if fi, err := os.Stat(run); err == nil && fi.IsDir() {
		return filepath.Join(run, FileName)
	}
	if filepath.Base(run) == results.SimulationsFile || filepath.Base(run) == "results.json" {
		return filepath.Join(filepath.Dir(run), FileName)
	}
	return strings.TrimSuffix(run, ".json") + ".reviews.jsonl"
}

// Entry is one line of a reviews file: one simulation reviewed in one mode,
// under upstream's field names (simulation_id, task_id, trial, review,
// user_only_review, auth_classification, review_model). Error is set, and
// the review fields are not, when a review call failed (an infrastructure
// error: resuming reviews the simulation again).
type Entry struct {
	SimulationID string `json:"simulation_id"`
	TaskID       string `json:"task_id"`
	Trial        int    `json:"trial"`
	Mode         Mode   `json:"mode"`
	// Backbone is the backbones.yaml name, ReviewModel its model id.
	Backbone    string `json:"backbone"`
	ReviewModel string `json:"review_model"`
	Outcome
	Error string `json:"error,omitempty"`
}

// Failed reports an entry whose review call failed.
func (e *Entry) Failed() bool { return e.Error != "" }

// Reviews are a reviews file read back: the latest entry of each
// simulation and mode.
type Reviews struct {
	Path    string
	Entries []Entry
	index   map[key]int
}

type key struct {
	sim  string
	mode Mode
}

// Read reads a reviews file; a missing file has no entries (nil Reviews
// when it does not exist, so callers can tell).
func Read(path string) (*Reviews, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read reviews: %w", err)
	}
	defer f.Close()
	all, _, err := results.ReadLines[Entry](f)
	if err != nil {
		return nil, fmt.Errorf("read reviews %s: %w", path, err)
	}
	r := &Reviews{Path: path}
	for _, e := range all {
		r.add(e)
	}
	return r, nil
}

func (r *Reviews) add(e Entry) {
	if r.index == nil {
		r.index = map[key]int{}
	}
	k := key{e.SimulationID, e.Mode}
	if i, ok := r.index[k]; ok {
		r.Entries[i] = e
		return
	}
	r.index[k] = len(r.Entries)
	r.Entries = append(r.Entries, e)
}

// Get is the latest entry of a simulation in a mode.
func (r *Reviews) Get(sim string, mode Mode) (*Entry, bool) {
	if r == nil {
		return nil, false
	}
	i, ok := r.index[key{sim, mode}]
	if !ok {
		return nil, false
	}
	return &r.Entries[i], true
}

// Done reports a simulation reviewed in mode without failure.
func (r *Reviews) Done(sim string, mode Mode) bool {
	e, ok := r.Get(sim, mode)
	return ok && !e.Failed()
}
