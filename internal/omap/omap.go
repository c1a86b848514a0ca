// Package omap is an insertion-ordered string-keyed map. Upstream databases
// are Python dicts whose order shows in tool outputs (a user's payment methods,
// a product's variants), so the ports keep that order.
package omap

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/pyjson"
)

// Map keeps keys in insertion order. The zero value is an empty map.
type Map[V any] struct {
	keys  []string
	index map[string]int
	vals  []V
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
	return m.vals[i], true
}

// Has reports whether k is present.
func (m *Map[V]) Has(k string) bool {
	_, ok := m.Get(k)
	return ok
}

// Set stores v under k; a new key goes last.
func (m *Map[V]) Set(k string, v V) {
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
			if !yield(k, m.vals[i]) {
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
			out.vals[i] = cloneV(m.vals[i])
		} else {
			out.vals[i] = m.vals[i]
		}
	}
	return out
}

// UnmarshalJSON reads a JSON object keeping key order.
func (m *Map[V]) UnmarshalJSON(data []byte) error {
	*m = Map[V]{}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("omap: expected a JSON object")
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		k := kt.(string)
		var v V
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("omap key %q: %w", k, err)
		}
		m.Set(k, v)
	}
	_, err = dec.Token()
	return err
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
		vb, err := json.Marshal(m.vals[i])
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
		e.Value(m.vals[i])
	}
	e.EndObject(len(m.keys) == 0)
}
