package pyjson

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Options selects json.dumps arguments. The zero value is json.dumps' default:
// no indent, separators ", " and ": ", ensure_ascii=True.
type Options struct {
	// Indent, when > 0, pretty-prints with that many spaces and "," item
	// separators, as json.dumps(indent=n) does.
	Indent int
	// UnicodeOK turns ensure_ascii off: non-ASCII characters are written as is.
	UnicodeOK bool
	// SortKeys sorts object keys (json.dumps(sort_keys=True)).
	SortKeys bool
}

// Marshaler is implemented by types that write themselves, such as ordered
// maps.
type Marshaler interface {
	EncodePy(e *Encoder)
}

// Encoder accumulates output. It is exposed so Marshaler implementations can
// write their parts.
type Encoder struct {
	buf   []byte
	opts  Options
	depth int
	err   error
}

// Marshal encodes v as json.dumps(v) would.
func Marshal(v any) ([]byte, error) {
	return MarshalOptions(v, Options{})
}

// MarshalOptions encodes v with the given json.dumps options.
func MarshalOptions(v any, o Options) ([]byte, error) {
	e := &Encoder{opts: o}
	e.Value(v)
	if e.err != nil {
		return nil, e.err
	}
	return e.buf, nil
}

// String is Marshal for callers that want a string and know v encodes.
func String(v any) string {
	b, err := Marshal(v)
	if err != nil {
		return fmt.Sprintf("<pyjson: %v>", err)
	}
	return string(b)
}

// BeginObject, Key, EndObject, BeginArray, Elem and EndArray let a Marshaler
// write a container with the encoder's separators and indentation.
func (e *Encoder) BeginObject() { e.buf = append(e.buf, '{'); e.depth++ }

// Key writes an object key; first tells whether it is the first member.
func (e *Encoder) Key(k string, first bool) {
	e.sep(first)
	e.str(k)
	e.buf = append(e.buf, ": "...)
}

// EndObject closes an object; empty tells whether it had no members.
func (e *Encoder) EndObject(empty bool) {
	e.depth--
	if !empty {
		e.newline()
	}
	e.buf = append(e.buf, '}')
}

// BeginArray opens an array.
func (e *Encoder) BeginArray() { e.buf = append(e.buf, '['); e.depth++ }

// Elem starts an array element.
func (e *Encoder) Elem(first bool) { e.sep(first) }

// EndArray closes an array.
func (e *Encoder) EndArray(empty bool) {
	e.depth--
	if !empty {
		e.newline()
	}
	e.buf = append(e.buf, ']')
}

func (e *Encoder) sep(first bool) {
	if !first {
		if e.opts.Indent > 0 {
			e.buf = append(e.buf, ',')
		} else {
			e.buf = append(e.buf, ", "...)
		}
	}
	e.newline()
}

func (e *Encoder) newline() {
	if e.opts.Indent <= 0 {
		return
	}
	e.buf = append(e.buf, '\n')
	for i := 0; i < e.depth*e.opts.Indent; i++ {
		e.buf = append(e.buf, ' ')
	}
}

// Value writes any supported value.
func (e *Encoder) Value(v any) {
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case Marshaler:
		x.EncodePy(e)
	case string:
		e.str(x)
	case bool:
		e.Bool(x)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case float64:
		e.Float(x)
	case json.Number:
		e.number(x)
	case json.RawMessage:
		val, err := Decode(x)
		if err != nil {
			e.fail(err)
			return
		}
		e.Value(val)
	case []any:
		e.BeginArray()
		for i, el := range x {
			e.Elem(i == 0)
			e.Value(el)
		}
		e.EndArray(len(x) == 0)
	case map[string]any:
		e.goMap(reflect.ValueOf(x))
	default:
		e.reflectValue(reflect.ValueOf(v))
	}
}

// Bool writes true or false.
func (e *Encoder) Bool(b bool) {
	if b {
		e.buf = append(e.buf, "true"...)
	} else {
		e.buf = append(e.buf, "false"...)
	}
}

// Float writes a float as json.dumps does (Python repr; NaN and Infinity as
// Python writes them).
func (e *Encoder) Float(f float64) {
	s := Float(f)
	switch s {
	case "nan":
		s = "NaN"
	case "inf":
		s = "Infinity"
	case "-inf":
		s = "-Infinity"
	}
	e.buf = append(e.buf, s...)
}

// String writes a JSON string.
func (e *Encoder) String(s string) { e.str(s) }

func (e *Encoder) number(n json.Number) {
	s := string(n)
	if strings.ContainsAny(s, ".eE") {
		f, err := n.Float64()
		if err != nil {
			e.fail(err)
			return
		}
		e.Float(f)
		return
	}
	e.buf = append(e.buf, s...)
}

func (e *Encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
	e.buf = append(e.buf, "null"...)
}

const hexDigits = "0123456789abcdef"

func (e *Encoder) str(s string) {
	e.buf = AppendString(e.buf, s, !e.opts.UnicodeOK)
}

// AppendString appends s as a JSON string literal, escaping like Python's
// json module (ensureASCII selects ensure_ascii). Runs of bytes that need no
// escape are copied at once. Invalid UTF-8 (which a Python str cannot hold)
// is written as U+FFFD so the output stays valid JSON.
func AppendString(b []byte, s string, ensureASCII bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (c != 0x7f || !ensureASCII) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if !ensureASCII {
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		if r >= 0x10000 {
			r -= 0x10000
			b = appendU(b, 0xd800|((r>>10)&0x3ff))
			b = appendU(b, 0xdc00|(r&0x3ff))
		} else {
			b = appendU(b, r)
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[(r>>12)&0xf], hexDigits[(r>>8)&0xf], hexDigits[(r>>4)&0xf], hexDigits[r&0xf])
}

func (e *Encoder) goMap(v reflect.Value) {
	keys := v.MapKeys()
	ks := make([]string, len(keys))
	for i, k := range keys {
		ks[i] = k.String()
	}
	// Go maps have no order: sort so output is at least deterministic. Use an
	// ordered type (Dict, omap) where upstream's insertion order matters.
	sort.Strings(ks)
	e.BeginObject()
	for i, k := range ks {
		e.Key(k, i == 0)
		e.Value(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())).Interface())
	}
	e.EndObject(len(ks) == 0)
}

var marshalerType = reflect.TypeFor[Marshaler]()

func (e *Encoder) reflectValue(v reflect.Value) {
	if !v.IsValid() {
		e.buf = append(e.buf, "null"...)
		return
	}
	if v.Type().Implements(marshalerType) {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		v.Interface().(Marshaler).EncodePy(e)
		return
	}
	if v.Kind() != reflect.Pointer && v.CanAddr() && reflect.PointerTo(v.Type()).Implements(marshalerType) {
		v.Addr().Interface().(Marshaler).EncodePy(e)
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.reflectValue(v.Elem())
	case reflect.String:
		if v.Type() == reflect.TypeFor[json.Number]() {
			e.number(json.Number(v.String()))
			return
		}
		e.str(v.String())
	case reflect.Bool:
		e.Bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		e.Float(v.Float())
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			e.Value(json.RawMessage(v.Bytes()))
			return
		}
		fallthrough
	case reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			// A nil slice is an empty list: Python models default lists to [].
			e.buf = append(e.buf, "[]"...)
			return
		}
		e.BeginArray()
		n := v.Len()
		for i := 0; i < n; i++ {
			e.Elem(i == 0)
			e.reflectValue(v.Index(i))
		}
		e.EndArray(n == 0)
	case reflect.Map:
		if v.IsNil() {
			e.buf = append(e.buf, "{}"...)
			return
		}
		e.goMap(v)
	case reflect.Struct:
		e.structValue(v)
	default:
		e.fail(fmt.Errorf("pyjson: unsupported type %s", v.Type()))
	}
}

type field struct {
	name      string
	index     int
	omitEmpty bool
}

// SelfMarshaled marks a type whose MarshalJSON returns Marshal of itself:
// its encoding/json JSON is then Marshal's, compacted, and code that walks
// values by reflection (the view's database diff) may follow it by
// Marshal's rules (Members, Empty).
type SelfMarshaled interface{ MarshalsByPyjson() }

// Member is a struct field as Marshal encodes it.
type Member struct {
	Name      string
	Index     int
	OmitEmpty bool
}

// Members are struct type t's fields as Marshal encodes them, in order.
func Members(t reflect.Type) []Member {
	fs := fieldsOf(t)
	out := make([]Member, len(fs))
	for i, f := range fs {
		out[i] = Member{f.name, f.index, f.omitEmpty}
	}
	return out
}

// Empty is Marshal's omitempty test.
func Empty(v reflect.Value) bool { return isEmpty(v) }

var fieldCache sync.Map // reflect.Type -> []field

func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var fs []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		fs = append(fs, field{name: name, index: i, omitEmpty: strings.Contains(opts, "omitempty")})
	}
	fieldCache.Store(t, fs)
	return fs
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return v.IsNil() || (v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface && v.Len() == 0)
	case reflect.String:
		return v.Len() == 0
	}
	return false
}

func (e *Encoder) structValue(v reflect.Value) {
	fs := fieldsOf(v.Type())
	e.BeginObject()
	first := true
	for _, f := range fs {
		fv := v.Field(f.index)
		if f.omitEmpty && isEmpty(fv) {
			continue
		}
		e.Key(f.name, first)
		first = false
		e.reflectValue(fv)
	}
	e.EndObject(first)
}
