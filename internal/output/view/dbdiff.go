package view

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// maxDiffs bounds the database differences listed for one simulation.
const maxDiffs = 40

// dbDiffs computes which database fields differ between the database a
// trajectory produced and the gold one, by replaying both (the record says
// only that they differ). The gold databases are rebuilt once per task.
type dbDiffs struct {
	gold map[[2]string][2]any // the gold env's DumpDB
	n    int                  // simulations diffed
}

func (x *dbDiffs) diff(ctx context.Context, dom envs.Domain, task *tasks.Task, r *results.Record) ([]string, error) {
	k := [2]string{dom.Name(), task.ID}
	want, ok := x.gold[k]
	if !ok {
		env, err := evaluator.GoldEnv(ctx, dom, task)
		if err != nil {
			return nil, err
		}
		a, u := env.DumpDB()
		want = [2]any{a, u}
		x.gold[k] = want
	}
	env, _, err := evaluator.ReplayEnv(ctx, dom, task, r.Messages, false)
	if err != nil {
		return nil, err
	}
	a, u := env.DumpDB()
	var out []string
	for i, got := range []any{a, u} {
		if err := walk([]string{"db", "user_db"}[i], reflect.ValueOf(got), reflect.ValueOf(want[i]), &out); err != nil {
			return nil, fmt.Errorf("dump database: %w", err)
		}
	}
	return out, nil
}

// walk appends diffRaw's lines for the JSON encodings of got and want
// (as encoding/json writes them) without encoding what both share: a
// replayed database shares every record it did not change with the gold
// one (both are copies on write of the loaded database), so a value
// reached through the same pointer is the same and is skipped. Structs,
// omap tables and slices are walked as diffRaw walks the objects and
// arrays they encode to (members in sorted order, missing and extra
// ones, elements of equal-length arrays); anything else, or a struct
// whose encoding this does not follow field by field (an embedded field,
// a tag option other than omitempty, a custom marshaler), is encoded and
// compared by diffRaw.
func walk(path string, got, want reflect.Value, out *[]string) error {
	if len(*out) > maxDiffs {
		return nil
	}
	if !got.IsValid() || !want.IsValid() || got.Type() != want.Type() {
		return goJSON.leaf(path, got, want, out)
	}
	if g, ok := asTable(got); ok {
		w, _ := asTable(want)
		return walkTable(path, g, w, out, goJSON)
	}
	if implements(got, selfMarshaledType) {
		return walkPy(path, got, want, out)
	}
	if marshals(got) {
		return goJSON.leaf(path, got, want, out)
	}
	switch got.Kind() {
	case reflect.Pointer:
		if got.IsNil() || want.IsNil() {
			return goJSON.leaf(path, got, want, out)
		}
		if got.Pointer() == want.Pointer() {
			return nil
		}
		return walk(path, got.Elem(), want.Elem(), out)
	case reflect.Struct:
		fields, ok := jsonFields(got.Type())
		if !ok {
			return goJSON.leaf(path, got, want, out)
		}
		return walkStruct(path, fields, got, want, out)
	case reflect.Slice:
		if got.IsNil() || want.IsNil() || got.Len() != want.Len() || got.Type().Elem().Kind() == reflect.Uint8 {
			return goJSON.leaf(path, got, want, out) // null, unequal lengths, base64
		}
		return goJSON.elements(path, got, want, out)
	}
	return goJSON.leaf(path, got, want, out)
}

// codec is how the values walked encode: as encoding/json encodes them,
// or (py) as pyjson does, inside a pyjson.SelfMarshaled value.
type codec struct{ py bool }

var (
	goJSON = codec{}
	pyJSON = codec{py: true}
)

func (c codec) walk(path string, got, want reflect.Value, out *[]string) error {
	if c.py {
		return walkPy(path, got, want, out)
	}
	return walk(path, got, want, out)
}

func (c codec) encode(v reflect.Value) ([]byte, error) {
	if c.py {
		return encodePy(v)
	}
	return encode(v)
}

// leaf compares the encodings of got and want with diffRaw.
func (c codec) leaf(path string, got, want reflect.Value, out *[]string) error {
	g, err := c.encode(got)
	if err != nil {
		return err
	}
	w, err := c.encode(want)
	if err != nil {
		return err
	}
	diffRaw(path, g, w, out)
	return nil
}

// elements walks two slices or arrays of one length element by element,
// as diffRaw walks arrays of one length; nothing when they share their
// elements.
func (c codec) elements(path string, got, want reflect.Value, out *[]string) error {
	if got.Kind() == reflect.Slice && got.Len() > 0 && got.Pointer() == want.Pointer() {
		return nil
	}
	for i := range got.Len() {
		if err := c.walk(fmt.Sprintf("%s[%d]", path, i), got.Index(i), want.Index(i), out); err != nil {
			return err
		}
	}
	return nil
}

// encode is a value as encoding/json encodes it: through its address when
// it has one, as encoding/json encodes an addressable value (its pointer
// methods count).
func encode(v reflect.Value) ([]byte, error) {
	switch {
	case !v.IsValid():
		return json.Marshal(nil)
	case v.CanAddr():
		return json.Marshal(v.Addr().Interface())
	}
	return json.Marshal(v.Interface())
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	tableType         = reflect.TypeFor[omap.Untyped]()
	selfMarshaledType = reflect.TypeFor[pyjson.SelfMarshaled]()
	pyMarshalerType   = reflect.TypeFor[pyjson.Marshaler]()
)

// implements reports whether v's type, or its pointer type when v is
// addressable, implements iface (the methods an encoder calls on v).
func implements(v reflect.Value, iface reflect.Type) bool {
	return v.Type().Implements(iface) || v.CanAddr() && reflect.PointerTo(v.Type()).Implements(iface)
}

// marshals reports whether encoding/json encodes v by a method of its.
func marshals(v reflect.Value) bool {
	return implements(v, marshalerType) || implements(v, textMarshalerType)
}

// walkPy is walk inside a value whose JSON is pyjson.Marshal's, compacted
// (a pyjson.SelfMarshaled type, and what it holds): structs by pyjson's
// members, omap tables by their entries (their EncodePy), slices and
// arrays by element (a nil slice is pyjson's []), the rest by encodePy.
func walkPy(path string, got, want reflect.Value, out *[]string) error {
	if len(*out) > maxDiffs {
		return nil
	}
	if !got.IsValid() || !want.IsValid() || got.Type() != want.Type() {
		return pyJSON.leaf(path, got, want, out)
	}
	if g, ok := asTable(got); ok {
		w, _ := asTable(want)
		return walkTable(path, g, w, out, pyJSON)
	}
	if got.Kind() == reflect.Pointer && !got.IsNil() && !want.IsNil() && got.Pointer() == want.Pointer() {
		return nil
	}
	if got.Kind() != reflect.Pointer && implements(got, pyMarshalerType) || got.Type().Implements(pyMarshalerType) {
		return pyJSON.leaf(path, got, want, out)
	}
	switch got.Kind() {
	case reflect.Pointer:
		if got.IsNil() || want.IsNil() {
			return pyJSON.leaf(path, got, want, out)
		}
		return walkPy(path, got.Elem(), want.Elem(), out)
	case reflect.Struct:
		members := pyjson.Members(got.Type())
		names := make(map[string]bool, len(members))
		for _, m := range members {
			if names[m.Name] {
				return pyJSON.leaf(path, got, want, out) // a name twice: the later wins
			}
			names[m.Name] = true
		}
		slices.SortStableFunc(members, func(a, b pyjson.Member) int { return strings.Compare(a.Name, b.Name) })
		for _, m := range members {
			if len(*out) > maxDiffs {
				return nil
			}
			g, w := got.Field(m.Index), want.Field(m.Index)
			gok := !m.OmitEmpty || !pyjson.Empty(g)
			wok := !m.OmitEmpty || !pyjson.Empty(w)
			if err := member(path+"."+m.Name, gok, wok, g, w, out, pyJSON); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice, reflect.Array:
		if got.Len() != want.Len() || got.Type().Elem().Kind() == reflect.Uint8 {
			return pyJSON.leaf(path, got, want, out)
		}
		return pyJSON.elements(path, got, want, out)
	}
	return pyJSON.leaf(path, got, want, out)
}

// encodePy is a value's part of a pyjson.SelfMarshaled's JSON: pyjson's
// encoding, compacted (and HTML-escaped) as encoding/json compacts what a
// MarshalJSON returns.
func encodePy(v reflect.Value) ([]byte, error) {
	var x any
	switch {
	case !v.IsValid():
	case v.CanAddr():
		x = v.Addr().Interface()
	default:
		x = v.Interface()
	}
	b, err := pyjson.Marshal(x)
	if err != nil {
		return nil, err
	}
	return json.Marshal(json.RawMessage(b))
}

// asTable is v as an omap table (an omap.Map value, which encodes as an
// object of its entries).
func asTable(v reflect.Value) (omap.Untyped, bool) {
	if v.Kind() != reflect.Struct || !reflect.PointerTo(v.Type()).Implements(tableType) {
		return nil, false
	}
	if v.CanAddr() {
		return v.Addr().Interface().(omap.Untyped), true
	}
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p.Interface().(omap.Untyped), true
}

// walkTable walks two tables as diffRaw walks the objects they encode to.
func walkTable(path string, got, want omap.Untyped, out *[]string, c codec) error {
	keys := slices.Clone(want.Keys())
	for _, k := range got.Keys() {
		if _, ok := want.Lookup(k); !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if len(*out) > maxDiffs {
			return nil
		}
		gv, gok := got.Lookup(k)
		wv, wok := want.Lookup(k)
		if err := member(path+"."+k, gok, wok, reflect.ValueOf(gv), reflect.ValueOf(wv), out, c); err != nil {
			return err
		}
	}
	return nil
}

// member is diffRaw's step for one member of two objects: present in one
// only, or walked.
func member(path string, gok, wok bool, got, want reflect.Value, out *[]string, c codec) error {
	switch {
	case gok && wok:
		return c.walk(path, got, want, out)
	case wok:
		w, err := c.encode(want)
		if err != nil {
			return err
		}
		add(out, fmt.Sprintf("%s: missing, gold %s", path, short(w)))
	case gok:
		g, err := c.encode(got)
		if err != nil {
			return err
		}
		add(out, fmt.Sprintf("%s: extra %s", path, short(g)))
	}
	return nil
}

// jsonField is a struct field as encoding/json encodes it.
type jsonField struct {
	name      string
	index     int
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type → []jsonField (nil: not followed)

// jsonFields are t's encoded fields in name order, or ok false for a
// struct whose encoding walk does not follow field by field.
func jsonFields(t reflect.Type) (fields []jsonField, ok bool) {
	if v, ok := fieldCache.Load(t); ok {
		fields = v.([]jsonField)
		return fields, fields != nil
	}
	fields = structFields(t)
	fieldCache.Store(t, fields)
	return fields, fields != nil
}

func structFields(t reflect.Type) []jsonField {
	fields := []jsonField{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts != "" && opts != "omitempty" {
			return nil
		}
		if name == "" {
			name = f.Name
		}
		if !plainName(name) || seen[name] {
			return nil
		}
		seen[name] = true
		fields = append(fields, jsonField{name, i, opts == "omitempty"})
	}
	slices.SortFunc(fields, func(a, b jsonField) int { return strings.Compare(a.name, b.name) })
	return fields
}

// plainName: a member name encoding/json takes from a tag as it is.
func plainName(s string) bool {
	for _, c := range s {
		if !(c == '_' || c == '-' || c == '.' || unicode.IsLetter(c) || unicode.IsDigit(c)) {
			return false
		}
	}
	return s != ""
}

// walkStruct walks two structs as diffRaw walks the objects they encode
// to: an omitempty field with an empty value is no member.
func walkStruct(path string, fields []jsonField, got, want reflect.Value, out *[]string) error {
	for _, f := range fields {
		if len(*out) > maxDiffs {
			return nil
		}
		g, w := got.Field(f.index), want.Field(f.index)
		gok := !f.omitEmpty || !isEmpty(g)
		wok := !f.omitEmpty || !isEmpty(w)
		if err := member(path+"."+f.name, gok, wok, g, w, out, goJSON); err != nil {
			return err
		}
	}
	return nil
}

// isEmpty is encoding/json's test for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// diffRaw appends "path: got X, gold Y" lines for every difference,
// decoding only the branches whose bytes differ.
func diffRaw(path string, got, want json.RawMessage, out *[]string) {
	if len(*out) > maxDiffs || bytes.Equal(got, want) {
		return
	}
	if g, w, ok := objects(got, want); ok {
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			gv, gok := g[k]
			wv, wok := w[k]
			switch {
			case !gok:
				add(out, fmt.Sprintf("%s.%s: missing, gold %s", path, k, short(wv)))
			case !wok:
				add(out, fmt.Sprintf("%s.%s: extra %s", path, k, short(gv)))
			default:
				diffRaw(path+"."+k, gv, wv, out)
			}
		}
		return
	}
	if ga, wa, ok := arrays(got, want); ok && len(ga) == len(wa) {
		for i := range wa {
			diffRaw(fmt.Sprintf("%s[%d]", path, i), ga[i], wa[i], out)
		}
		return
	}
	var gv, wv any
	if json.Unmarshal(got, &gv) == nil && json.Unmarshal(want, &wv) == nil {
		a, _ := json.Marshal(gv)
		b, _ := json.Marshal(wv)
		if bytes.Equal(a, b) {
			return // same value, other spelling
		}
	}
	add(out, fmt.Sprintf("%s: got %s, gold %s", path, short(got), short(want)))
}

// objects splits two JSON objects into their members (a later duplicate
// key wins, as encoding/json decodes); ok is false unless both are
// objects. The database dumps are megabytes: a single-pass scanner
// (pyjson.Object) splits them several times faster than encoding/json.
func objects(got, want json.RawMessage) (g, w map[string]json.RawMessage, ok bool) {
	split := func(raw json.RawMessage) (map[string]json.RawMessage, bool) {
		if first(raw) != '{' {
			return nil, false
		}
		m := map[string]json.RawMessage{}
		err := pyjson.Object(raw, func(k string, v []byte) error {
			m[k] = v
			return nil
		})
		return m, err == nil
	}
	if g, ok = split(got); !ok {
		return nil, nil, false
	}
	w, ok = split(want)
	return g, w, ok
}

// arrays splits two JSON arrays into their elements; ok is false unless
// both are arrays (null is not one).
func arrays(got, want json.RawMessage) (g, w [][]byte, ok bool) {
	if first(got) != '[' || first(want) != '[' {
		return nil, nil, false
	}
	g, gerr := pyjson.Elements(got)
	w, werr := pyjson.Elements(want)
	return g, w, gerr == nil && werr == nil
}

// first is raw's first byte after JSON whitespace (0 when none).
func first(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

func add(out *[]string, s string) {
	if len(*out) < maxDiffs {
		*out = append(*out, s)
	} else if len(*out) == maxDiffs {
		*out = append(*out, "… (more differences)")
	}
}

func short(raw json.RawMessage) string {
	return clip.Runes(strings.ReplaceAll(string(raw), "\n", " "), 200, "…")
}
