// Package table gives each simulation a cheap copy-on-write view of a domain
// table. The loaded database is shared and never modified; a simulation copies
// a record only when a tool first changes it, so a fresh environment costs a
// few small allocations however large the database is.
package table

import (
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Table is a copy-on-write view over a shared base map of records.
type Table[V any] struct {
	base  *omap.Map[*V]
	own   map[string]*V // records this view copied or added
	added []string      // keys added by this view, in order
	clone func(*V) *V
}

// New returns a view over base; clone deep-copies one record.
func New[V any](base *omap.Map[*V], clone func(*V) *V) Table[V] {
	return Table[V]{base: base, clone: clone}
}

// Get returns the current record under k. The record must not be modified:
// use Mut for that.
func (t *Table[V]) Get(k string) (*V, bool) {
	if v, ok := t.own[k]; ok {
		return v, true
	}
	return t.base.Get(k)
}

// Has reports whether k exists.
func (t *Table[V]) Has(k string) bool {
	_, ok := t.Get(k)
	return ok
}

// Mut returns a record under k that this view owns and may modify.
func (t *Table[V]) Mut(k string) (*V, bool) {
	if v, ok := t.own[k]; ok {
		return v, true
	}
	v, ok := t.base.Get(k)
	if !ok {
		return nil, false
	}
	c := t.clone(v)
	if t.own == nil {
		t.own = make(map[string]*V, 4)
	}
	t.own[k] = c
	return c, true
}

// Add inserts a new record (or replaces the current one, keeping its place).
func (t *Table[V]) Add(k string, v *V) {
	if t.own == nil {
		t.own = make(map[string]*V, 4)
	}
	_, existed := t.Get(k)
	t.own[k] = v
	if !existed {
		t.added = append(t.added, k)
	}
}

// Len is the number of records.
func (t *Table[V]) Len() int { return t.base.Len() + len(t.added) }

// All iterates over records in order: the base's, then the added ones.
func (t *Table[V]) All() func(yield func(string, *V) bool) {
	return func(yield func(string, *V) bool) {
		for _, k := range t.base.Keys() {
			v, _ := t.Get(k)
			if !yield(k, v) {
				return
			}
		}
		for _, k := range t.added {
			if !yield(k, t.own[k]) {
				return
			}
		}
	}
}

// Touched returns the keys this view owns (changed or added); their order is
// not specified.
func (t *Table[V]) Touched() []string {
	out := make([]string, 0, len(t.own))
	for k := range t.own {
		out = append(out, k)
	}
	return out
}

// Snapshot returns the view's current records in order, independent of
// later changes to the view: the records it owns are copied, the others are
// the shared base records (which must not be modified).
func (t *Table[V]) Snapshot() omap.Map[*V] {
	var m omap.Map[*V]
	for k, v := range t.All() {
		if _, owned := t.own[k]; owned {
			v = t.clone(v)
		}
		m.Set(k, v)
	}
	return m
}

// Equal reports whether two views over the same base hold equal records in
// the same order, comparing only the records either view touched. Records are
// compared by their Python JSON dump, as upstream compares database hashes.
func Equal[V any](a, b *Table[V]) bool {
	if len(a.added) != len(b.added) {
		return false
	}
	for i := range a.added {
		if a.added[i] != b.added[i] {
			return false
		}
	}
	for k := range a.own {
		if !sameRecord(a, b, k) {
			return false
		}
	}
	for k := range b.own {
		if _, seen := a.own[k]; !seen && !sameRecord(a, b, k) {
			return false
		}
	}
	return true
}

func sameRecord[V any](a, b *Table[V], k string) bool {
	va, _ := a.Get(k)
	vb, _ := b.Get(k)
	if va == vb {
		return true
	}
	if va == nil || vb == nil {
		return false
	}
	return pyjson.SameDump(va, vb)
}

// EncodePy writes the whole table as a JSON object in order.
func (t Table[V]) EncodePy(e *pyjson.Encoder) {
	e.BeginObject()
	first := true
	for k, v := range t.All() {
		e.Key(k, first)
		first = false
		e.Value(v)
	}
	e.EndObject(first)
}
