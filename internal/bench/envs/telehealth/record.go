package telehealth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Database records are typed structs that also remember which keys their
// JSON object had, in order. Upstream keeps each record as a dict: key order
// shows when a tool json.dumps a record, some keys are missing from some
// records (a lookup then raises KeyError), and tools add keys at the end.
//
// A record type embeds keys and declares its fields with json tags; a field
// tagged omitempty may be absent, the others are required when loading.
// Fields of type any hold values as json.loads makes them (pyjson.Decode).
// Float fields accept only float literals and int fields only integers, so
// the int/float distinction of the data survives.

// keys is the ordered key list of one record.
type keys struct{ order []string }

func (k *keys) has(name string) bool { return slices.Contains(k.order, name) }

// add appends name if it is new (a dict assignment to a new key).
func (k *keys) add(name string) {
	if !k.has(name) {
		k.order = append(k.order, name)
	}
}

// clone copies the key list so a copy of a record can add keys.
func (k keys) clone() keys { return keys{order: slices.Clone(k.order)} }

func (k *keys) keyList() *keys { return k }

// object is implemented by record types (through the embedded keys).
type object interface{ keyList() *keys }

type fieldInfo struct {
	index    int
	optional bool
	kind     fieldKind
}

type fieldKind uint8

const (
	kindOther fieldKind = iota
	kindAny
	kindFloat
)

type objectInfo struct {
	fields map[string]fieldInfo
	names  []string // declared order, for the required check
}

// infoCache maps a record type to its field table. It only ever caches
// facts about types, like encoding/json's.
var infoCache sync.Map

var anyType = reflect.TypeFor[any]()

func infoOf(t reflect.Type) *objectInfo {
	if v, ok := infoCache.Load(t); ok {
		return v.(*objectInfo)
	}
	info := &objectInfo{fields: map[string]fieldInfo{}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "" || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fi := fieldInfo{index: i, optional: strings.Contains(opts, "omitempty")}
		switch {
		case f.Type == anyType:
			fi.kind = kindAny
		case f.Type.Kind() == reflect.Float64:
			fi.kind = kindFloat
		}
		info.fields[name] = fi
		info.names = append(info.names, name)
	}
	v, _ := infoCache.LoadOrStore(t, info)
	return v.(*objectInfo)
}

// decodeObject reads a JSON object into the record o, keeping key order.
func decodeObject(data []byte, o object) error {
	rv := reflect.ValueOf(o).Elem()
	info := infoOf(rv.Type())
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("expected a JSON object")
	}
	k := o.keyList()
	k.order = k.order[:0]
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		name := kt.(string)
		fi, ok := info.fields[name]
		if !ok {
			return fmt.Errorf("unknown field %q", name)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("field %q: %w", name, err)
		}
		fv := rv.Field(fi.index)
		switch fi.kind {
		case kindAny:
			v, err := pyjson.Decode(raw)
			if err != nil {
				return fmt.Errorf("field %q: %w", name, err)
			}
			if v != nil {
				fv.Set(reflect.ValueOf(v))
			} else {
				fv.SetZero()
			}
		case kindFloat:
			t := bytes.TrimSpace(raw)
			if !bytes.ContainsAny(t, ".eE") {
				return fmt.Errorf("field %q: want a float literal such as 30.0, got %s", name, t)
			}
			fallthrough
		default:
			if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
				return fmt.Errorf("field %q: %w", name, err)
			}
		}
		k.add(name) // a repeated key keeps its first place and its last value
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	for _, name := range info.names {
		if !info.fields[name].optional && !k.has(name) {
			return fmt.Errorf("missing field %q", name)
		}
	}
	return nil
}

// encodeObject writes the record as json.dumps writes the dict: its keys in
// order.
func encodeObject(e *pyjson.Encoder, o object) {
	rv := reflect.ValueOf(o).Elem()
	info := infoOf(rv.Type())
	order := o.keyList().order
	e.BeginObject()
	for i, name := range order {
		e.Key(name, i == 0)
		fv := rv.Field(info.fields[name].index)
		if fv.Kind() == reflect.Struct {
			e.Value(fv.Addr().Interface())
		} else {
			e.Value(fv.Interface())
		}
	}
	e.EndObject(len(order) == 0)
}
