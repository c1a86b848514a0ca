package pyjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Dict is an insertion-ordered JSON object, like a Python dict.
type Dict struct {
	Keys   []string
	Values []any
}

// Set adds or replaces a key, keeping the first insertion's position.
func (d *Dict) Set(k string, v any) {
	for i, kk := range d.Keys {
		if kk == k {
			d.Values[i] = v
			return
		}
	}
	d.Keys = append(d.Keys, k)
	d.Values = append(d.Values, v)
}

// Get returns the value stored under k.
func (d *Dict) Get(k string) (any, bool) {
	if d == nil {
		return nil, false
	}
	for i, kk := range d.Keys {
		if kk == k {
			return d.Values[i], true
		}
	}
	return nil, false
}

// Len is the number of keys.
func (d *Dict) Len() int {
	if d == nil {
		return 0
	}
	return len(d.Keys)
}

// EncodePy writes the dict in insertion order (sorted when SortKeys is set).
func (d *Dict) EncodePy(e *Encoder) {
	e.BeginObject()
	idx := make([]int, len(d.Keys))
	for i := range idx {
		idx[i] = i
	}
	if e.opts.SortKeys {
		sortIdx(idx, d.Keys)
	}
	for n, i := range idx {
		e.Key(d.Keys[i], n == 0)
		e.Value(d.Values[i])
	}
	e.EndObject(len(d.Keys) == 0)
}

func sortIdx(idx []int, keys []string) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && keys[idx[j]] < keys[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// MarshalJSON writes the dict as standard JSON, keeping key order.
func (d *Dict) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range d.Keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		vb, err := json.Marshal(d.Values[i])
		if err != nil {
			return nil, err
		}
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Decode parses JSON keeping object key order: objects become *Dict, arrays
// []any, numbers json.Number, strings string, booleans bool, null nil.
func Decode(data []byte) (any, error) {
	if json.Valid(data) { // the common case, without a token decoder
		return decodeValid(data)
	}
	return decodeTokens(data)
}

// decodeTokens decodes with encoding/json's token decoder, which also gives
// the errors for invalid input.
func decodeTokens(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("pyjson: trailing data after JSON value")
	}
	return v, nil
}

// decodeValid decodes valid JSON with the scanner (the same values as the
// token decoder gives).
func decodeValid(data []byte) (any, error) {
	b := bytes.TrimSpace(data)
	switch b[0] {
	case '{':
		d := &Dict{}
		err := Object(b, func(k string, raw []byte) error {
			v, err := decodeValid(raw)
			d.Set(k, v)
			return err
		})
		return d, err
	case '[':
		arr := []any{}
		err := Array(b, func(_ int, raw []byte) error {
			v, err := decodeValid(raw)
			arr = append(arr, v)
			return err
		})
		return arr, err
	case '"':
		return decodeKey(b)
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	return json.Number(b), nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			d := &Dict{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("pyjson: object key is not a string")
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				d.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return d, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("pyjson: unexpected delimiter %v", t)
	default:
		return t, nil
	}
}

// Equal reports whether two decoded values are equal the way Python compares
// the results of json.loads: dicts ignore key order, numbers compare by value
// (1 == 1.0).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, e1 := x.Float64()
		fy, e2 := y.Float64()
		return e1 == nil && e2 == nil && fx == fy
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i, k := range x.Keys {
			v, ok := y.Get(k)
			if !ok || !Equal(x.Values[i], v) {
				return false
			}
		}
		return true
	}
	return false
}
