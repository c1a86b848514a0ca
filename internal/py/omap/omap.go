// Package omap is an insertion-ordered string-keyed map. Upstream databases
// are Python dicts whose order shows in tool outputs (a user's payment methods,
// a product's variants), so the ports keep that order.
//
// It is a top-level package, not internal, because the domains' exported
// database types are built of omap.Map.
package omap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Map keeps keys in insertion order. The zero value is an empty map.
type Map[V any] struct {
	keys  []string
	index map[string]int
	vals  []V
	lazy  *lazyVals[V] // non-nil while some values are still raw JSON
}

// lazyVals holds the raw JSON of a lazily decoded map's values; vals[i] is
// set by the first use of entry i.
type lazyVals[V any] struct {
	raw    [][]byte
	once   []sync.Once
	decode func([]byte) (V, error)
}

// Lazy reads a JSON object keeping key order but decodes each value only
// when it is first used (Get, All, Clone, encoding), safely from several
// goroutines, so a large table costs only what a job reads. It is for data
// validated beforehand (an upstream file whose hash is pinned, which the
// tests decode in full): a value that then fails to decode panics, naming
// its key. The raw bytes must not change.
func Lazy[V any](data []byte, decode func([]byte) (V, error)) (Map[V], error) {
	var e Entries
	err := pyjson.Object(data, func(k string, v []byte) error {
		e.Keys = append(e.Keys, k)
		e.Raw = append(e.Raw, v)
		return nil
	})
	if err != nil {
		return Map[V]{}, err
	}
	return LazyFrom(e, decode), nil
}

// Entries are one table's keys and raw values, split but not decoded.
type Entries struct {
	Keys []string
	Raw  [][]byte
}

// Tables splits an object of tables (a db.json) in one pass (see
// pyjson.Tables): the result holds the entries of names[i] at i. A table
// not in names is an error.
func Tables(data []byte, names ...string) ([]Entries, error) {
	out := make([]Entries, len(names))
	err := pyjson.Tables(data, func(table, key string, v []byte) error {
		i := slices.Index(names, table)
		if i < 0 {
			return fmt.Errorf("unknown table %q", table)
		}
		out[i].Keys = append(out[i].Keys, key)
		out[i].Raw = append(out[i].Raw, v)
		return nil
	})
	return out, err
}

// LazyFrom builds a lazily decoded map over entries already split (see
// Lazy). Duplicate keys keep the first position and the last value.
func LazyFrom[V any](e Entries, decode func([]byte) (V, error)) Map[V] {
	m := Map[V]{index: make(map[string]int, len(e.Keys))}
	lz := &lazyVals[V]{decode: decode}
	for i, k := range e.Keys {
		if j, dup := m.index[k]; dup {
			lz.raw[j] = e.Raw[i]
			continue
		}
		m.index[k] = len(m.keys)
		m.keys = append(m.keys, k)
		lz.raw = append(lz.raw, e.Raw[i])
	}
	m.vals = make([]V, len(m.keys))
	lz.once = make([]sync.Once, len(m.keys))
	m.lazy = lz
	return m
}

// at returns value i, decoding it first if the map is lazy.
func (m *Map[V]) at(i int) V {
	if lz := m.lazy; lz != nil {
		lz.once[i].Do(func() {
			v, err := lz.decode(lz.raw[i])
			if err != nil {
				panic(fmt.Sprintf("omap: lazily decoded value of key %q: %v", m.keys[i], err))
			}
			m.vals[i] = v
		})
	}
	return m.vals[i]
}

// materialize decodes every value and drops the raw JSON, before a change.
func (m *Map[V]) materialize() {
	if m.lazy == nil {
		return
	}
	for i := range m.keys {
		m.at(i)
	}
	m.lazy = nil
}

// Len is the number of entries.
func (m *Map[V]) Len() int {
	if m == nil {
		return 0
	}
	return len(m.keys)
}

// Get returns the value stored under k.
func (m *Map[V]) Get(k string) (V, bool) {
	if m == nil || m.index == nil {
		var zero V
		return zero, false
	}
	i, ok := m.index[k]
	if !ok {
		var zero V
		return zero, false
	}
	return m.at(i), true
}

// Has reports whether k is present.
func (m *Map[V]) Has(k string) bool {
	_, ok := m.Get(k)
	return ok
}

// Set stores v under k; a new key goes last.
func (m *Map[V]) Set(k string, v V) {
	m.materialize()
	if m.index == nil {
		m.index = make(map[string]int)
	}
	if i, ok := m.index[k]; ok {
		m.vals[i] = v
		return
	}
	m.index[k] = len(m.keys)
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
}

// Delete removes k, keeping the order of the rest.
func (m *Map[V]) Delete(k string) {
	i, ok := m.index[k]
	if !ok {
		return
	}
	m.materialize()
	m.keys = append(m.keys[:i:i], m.keys[i+1:]...)
	m.vals = append(m.vals[:i:i], m.vals[i+1:]...)
	delete(m.index, k)
	for j := i; j < len(m.keys); j++ {
		m.index[m.keys[j]] = j
	}
}

// Keys returns the keys in order. The slice must not be modified.
func (m *Map[V]) Keys() []string {
	if m == nil {
		return nil
	}
	return m.keys
}

// All iterates over entries in order.
func (m *Map[V]) All() func(yield func(string, V) bool) {
	return func(yield func(string, V) bool) {
		if m == nil {
			return
		}
		for i, k := range m.keys {
			if !yield(k, m.at(i)) {
				return
			}
		}
	}
}

// Clone copies the map; cloneV copies each value (nil copies values as they are).
func (m *Map[V]) Clone(cloneV func(V) V) Map[V] {
	if m == nil || len(m.keys) == 0 {
		return Map[V]{}
	}
	out := Map[V]{
		keys:  append([]string(nil), m.keys...),
		index: make(map[string]int, len(m.keys)),
		vals:  make([]V, len(m.vals)),
	}
	for i, k := range m.keys {
		out.index[k] = i
		if cloneV != nil {
			out.vals[i] = cloneV(m.at(i))
		} else {
			out.vals[i] = m.at(i)
		}
	}
	return out
}

// UnmarshalJSON reads a JSON object keeping key order; null is an empty
// map.
func (m *Map[V]) UnmarshalJSON(data []byte) error {
	*m = Map[V]{}
	return pyjson.Object(data, func(k string, raw []byte) error {
		var v V
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("omap key %q: %w", k, err)
		}
		m.Set(k, v)
		return nil
	})
}

// Untyped is a Map seen without its value type, for code that walks
// values by reflection (the view's database diff): *Map[V] implements it.
type Untyped interface {
	Keys() []string
	// Lookup is Get with the value boxed.
	Lookup(k string) (any, bool)
}

// Lookup is Get with the value boxed (Untyped).
func (m *Map[V]) Lookup(k string) (any, bool) {
	v, ok := m.Get(k)
	return v, ok
}

// MarshalJSON writes a JSON object in key order.
func (m Map[V]) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range m.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		vb, err := json.Marshal(m.at(i))
		if err != nil {
			return nil, err
		}
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// EncodePy writes the map as json.dumps writes a dict.
func (m Map[V]) EncodePy(e *pyjson.Encoder) {
	e.BeginObject()
	for i, k := range m.keys {
		e.Key(k, i == 0)
		e.Value(m.at(i))
	}
	e.EndObject(len(m.keys) == 0)
}
