// Package ledger is LedgerAgent's structured state: a dictionary from
// canonical paths (user, orders.<id>, reservations.<id>, …) to values that
// read tools returned, its deterministic text rendering, and the policy gate's
// vocabulary (predicates and verdicts).
//
// The package knows no domain. A domain supplies a Router, which maps a
// successful read return onto ledger entries (with the domain's own typed
// values), and Predicates, Go functions over those typed entries that guard
// its write tools.
//
// Update rule (observe, don't assume): only successful read returns change
// the entries. Failed calls and write returns never do; after a write the
// agent must read again to see the new state. The ledger also keeps a log of
// the write calls the gate let through, which predicates use to prevent
// loops (actions the policy allows only once); the log is not state.
package ledger

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Entry is one value at a canonical path.
type Entry struct {
	Path  string
	Value any // the domain's typed record; rendered with pyjson
}

// Router maps a successful read tool return onto ledger entries. It returns
// nil when the tool's result has no place in the ledger.
type Router interface {
	Route(tool string, args json.RawMessage, output string) []Entry
}

// WriteRecord is a write call the gate allowed, with its outcome.
type WriteRecord struct {
	Tool string
	Args json.RawMessage
	// Decoded is Args as the gate's Decoder gave them (nil when they did
	// not decode): predicates read earlier writes from it, never from Args.
	Decoded any
	// Succeeded is set once the result arrives (false for an error result).
	Succeeded bool
	Done      bool
	// Seq orders the write among the ledger's changes (see Ledger.Seq).
	Seq int
}

// Ledger holds one conversation's observed state. It is not safe for
// concurrent use: each simulation owns one.
type Ledger struct {
	values   map[string]any
	rendered map[string]string
	// seqs is the sequence number of each path's last Put; seq counts Puts
	// and logged writes, so a predicate can tell whether a record was read
	// after a write.
	seqs   map[string]int
	seq    int
	writes []WriteRecord
	// paths kept sorted for rendering and prefix scans
	paths []string
	// block is the last render, valid while fresh (no Put since).
	block string
	fresh bool
}

// New returns an empty ledger.
func New() *Ledger {
	return &Ledger{values: map[string]any{}, rendered: map[string]string{}, seqs: map[string]int{}}
}

// Put stores a value at a path, replacing what was there.
func (l *Ledger) Put(path string, v any) {
	if _, ok := l.values[path]; !ok {
		i := sort.SearchStrings(l.paths, path)
		l.paths = append(l.paths, "")
		copy(l.paths[i+1:], l.paths[i:])
		l.paths[i] = path
	}
	l.values[path] = v
	l.seq++
	l.seqs[path] = l.seq
	l.rendered[path] = renderValue(v)
	l.fresh = false
}

// Absorb routes a successful read return into the ledger and returns the
// number of entries written.
func (l *Ledger) Absorb(r Router, tool string, args json.RawMessage, output string) int {
	entries := r.Route(tool, args, output)
	for _, e := range entries {
		l.Put(e.Path, e.Value)
	}
	return len(entries)
}

// Get returns the value at path.
func (l *Ledger) Get(path string) (any, bool) {
	v, ok := l.values[path]
	return v, ok
}

// Lookup returns the value at path as a *T, or nil when the path is empty or
// holds another type: the typed access predicates use.
func Lookup[T any](l *Ledger, path string) *T {
	v, _ := l.values[path].(*T)
	return v
}

// Has reports whether path holds a value.
func (l *Ledger) Has(path string) bool {
	_, ok := l.values[path]
	return ok
}

// Prefix calls fn for every path starting with prefix, in sorted order.
func (l *Ledger) Prefix(prefix string, fn func(path string, v any)) {
	i := sort.SearchStrings(l.paths, prefix)
	for ; i < len(l.paths) && strings.HasPrefix(l.paths[i], prefix); i++ {
		fn(l.paths[i], l.values[l.paths[i]])
	}
}

// Seq is the sequence number of the last Put at path (0 when empty): a
// value with a larger Seq than a WriteRecord's was read after that write was
// sent.
func (l *Ledger) Seq(path string) int { return l.seqs[path] }

// Len is the number of entries.
func (l *Ledger) Len() int { return len(l.paths) }

// Paths returns the paths in sorted order (do not modify).
func (l *Ledger) Paths() []string { return l.paths }

// LogWrite records a write call the gate allowed, with its arguments as the
// gate decoded them (Verdict.Decoded or Gate.Decode); it returns its index
// for Resolve.
func (l *Ledger) LogWrite(tool string, args json.RawMessage, decoded any) int {
	l.seq++
	l.writes = append(l.writes, WriteRecord{Tool: tool, Args: args, Decoded: decoded, Seq: l.seq})
	return len(l.writes) - 1
}

// Resolve records the outcome of a logged write.
func (l *Ledger) Resolve(i int, succeeded bool) {
	if i >= 0 && i < len(l.writes) {
		l.writes[i].Done = true
		l.writes[i].Succeeded = succeeded
	}
}

// Writes returns the allowed write calls so far (do not modify).
func (l *Ledger) Writes() []WriteRecord { return l.writes }

// RenderHeader opens the rendered block.
const RenderHeader = "<ledger>\nState observed from successful read tool results in this conversation (path: value). Writes are not reflected until the record is read again.\n"

// Render writes the whole ledger as a deterministic text block: one line per
// entry, sorted by path. An empty ledger renders as an empty string. Each
// entry is rendered once, when it is stored, and the block is rebuilt only
// after a change, so turns without a new read cost nothing.
func (l *Ledger) Render() string {
	if len(l.paths) == 0 {
		return ""
	}
	if l.fresh {
		return l.block
	}
	n := len(RenderHeader) + len("</ledger>")
	for _, p := range l.paths {
		n += len(p) + 2 + len(l.rendered[p]) + 1
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(RenderHeader)
	for _, p := range l.paths {
		b.WriteString(p)
		b.WriteString(": ")
		b.WriteString(l.rendered[p])
		b.WriteByte('\n')
	}
	b.WriteString("</ledger>")
	l.block, l.fresh = b.String(), true
	return l.block
}

func renderValue(v any) string {
	b, err := pyjson.MarshalOptions(v, pyjson.Options{UnicodeOK: true})
	if err != nil {
		return "<unrenderable>"
	}
	return string(b)
}
