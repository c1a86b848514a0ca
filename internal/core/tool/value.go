package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The argument model. Upstream's toolkits call a tool with the model's JSON
// arguments as Python keyword arguments (Toolkit.use_tool: no schema
// validation), so a tool sees whatever json.loads made of each one and
// fails, if at all, where its Python code does. An argument struct field
// therefore has one of two kinds of type:
//
//   - a Value type (StrValue, IntValue, ...): the decoded JSON value as
//     json.loads hands it over, checked by the tool where and as upstream's
//     Python would (package pyjson gives it Python's str, repr, type names
//     and lookups; package pydantic validates the models upstream builds
//     from it). This is upstream's behaviour for any input.
//   - a plain Go type (string, *string, []string, bool, float64): decoded by
//     encoding/json, so a value of another JSON type fails before the tool
//     runs with "argument 'x' must be str, not float" (typeError) instead of
//     the text upstream's code would raise. Only the environment functions
//     the tasks' own actions call keep these (telecom's set_data_usage,
//     assert_*, ...), and telecom's set_network_mode_preference, where
//     upstream stores a non-str mode in the device model (see modeArgs).
//
// A policy gate that reads a write's arguments as their documented types
// asks for those types first (CheckTypes) and then reads them with Text and
// Texts; the tool itself never needs to.

// Value is a keyword argument as json.loads hands it to upstream: V is nil,
// bool, string, json.Number, []any or *pyjson.Dict (pyjson.Decode), and
// Passed says whether the call passed it at all (a parameter's default
// applies only when it did not; an explicit null is None).
type Value struct {
	V      any
	Passed bool
}

// UnmarshalJSON accepts any JSON value, object key order kept.
func (a *Value) UnmarshalJSON(b []byte) error {
	if s, err := plainString(b); err == nil { // the common case, without a decoder
		a.V, a.Passed = s, true
		return nil
	}
	v, err := pyjson.Decode(b)
	if err != nil {
		return err
	}
	a.V, a.Passed = v, true
	return nil
}

// Or returns the argument, or def (the parameter's default) when the call
// did not pass it.
func (a Value) Or(def any) any {
	if a.Passed {
		return a.V
	}
	return def
}

// Text is the argument if it is a string, else "" (a reading for gates and
// audits, which only need to know what a well-typed call asks for; the tool
// itself checks the type as upstream's code would).
func (a Value) Text() string {
	s, _ := a.V.(string)
	return s
}

// The Value types differ only in the JSON schema type they advertise (what
// New generates; domains that show upstream's schemas replace it).
type (
	StrValue     struct{ Value }
	IntValue     struct{ Value }
	NumValue     struct{ Value }
	BoolValue    struct{ Value }
	DictValue    struct{ Value }
	StrListValue struct{ Value } // an array of strings
)

func schemaType(t string) *pyjson.Dict {
	d := &pyjson.Dict{}
	d.Set("type", t)
	return d
}

// JSONSchema implements Schemer.
func (StrValue) JSONSchema() *pyjson.Dict { return schemaType("string") }

// JSONSchema implements Schemer.
func (IntValue) JSONSchema() *pyjson.Dict { return schemaType("integer") }

// JSONSchema implements Schemer.
func (NumValue) JSONSchema() *pyjson.Dict { return schemaType("number") }

// JSONSchema implements Schemer.
func (BoolValue) JSONSchema() *pyjson.Dict { return schemaType("boolean") }

// JSONSchema implements Schemer.
func (DictValue) JSONSchema() *pyjson.Dict { return schemaType("object") }

// JSONSchema implements Schemer.
func (StrListValue) JSONSchema() *pyjson.Dict {
	d := schemaType("array")
	d.Set("items", schemaType("string"))
	return d
}

// CheckTypes is the one check a policy gate makes before it reads a write's
// arguments as their documented types (the tool itself takes any JSON value,
// as upstream's does). Every Value field of the argument struct args (a
// pointer or a struct) must hold its documented type: a StrValue a str (one
// of its `enum` tag's values when it has one), a StrListValue a list of str
// (or null) items, an IntValue an int, a NumValue an int or float, a
// BoolValue a bool, a DictValue a dict; null only for an optional parameter
// (omitempty: one with a default). rules say what a type cannot (Objects,
// NonNegative, Positive, Note) or leave a parameter to the caller (Except).
// Every problem is reported, in field order, joined by "; ", in the words of
// a Python TypeError ("argument 'order_id' must be str, not int").
func CheckTypes(args any, rules ...Rule) error {
	v := reflect.Indirect(reflect.ValueOf(args))
	if v.Kind() != reflect.Struct {
		return nil
	}
	byName := map[string][]Rule{}
	for _, r := range rules {
		byName[r.name] = append(byName[r.name], r)
	}
	var problems []string
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		x, ok := valueOf(v.Field(i))
		if !ok || tag == "" {
			continue
		}
		rs := byName[tag]
		if slices.ContainsFunc(rs, func(r Rule) bool { return r.except }) {
			continue
		}
		if !x.Passed || (x.V == nil && strings.Contains(opts, "omitempty")) {
			continue
		}
		problem := typeProblem(tag, f, x.V)
		for _, r := range rs {
			if problem == "" && r.check != nil {
				problem = r.check(tag, x.V)
			}
			if problem != "" && r.note != "" {
				problem += " (" + r.note + ")"
			}
		}
		if problem != "" {
			problems = append(problems, problem)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(problems, "; "))
}

// valueOf is the Value a field holds: a Value type, or a struct embedding
// Value first (a domain's own list types).
func valueOf(f reflect.Value) (Value, bool) {
	if f.Type() == reflect.TypeFor[Value]() {
		return f.Interface().(Value), true
	}
	if f.Kind() == reflect.Struct && f.NumField() > 0 && f.Type().Field(0).Type == reflect.TypeFor[Value]() {
		return f.Field(0).Interface().(Value), true
	}
	return Value{}, false
}

// typeProblem checks a value against its field's documented type and enum
// ("" when it is fine; a domain's own type is left to its rules).
func typeProblem(name string, f reflect.StructField, x any) string {
	want, ok := documentedType(f.Type)
	if !ok {
		return ""
	}
	if f.Type == reflect.TypeFor[StrListValue]() {
		return checkStrList(name, x)
	}
	if got := typeName(x); got != want && (want != "float" || got != "int") {
		return fmt.Sprintf("argument '%s' must be %s, not %s", name, want, got)
	}
	if s, isStr := x.(string); isStr && f.Tag.Get("enum") != "" {
		if vals := strings.Split(f.Tag.Get("enum"), ","); !slices.Contains(vals, s) {
			return fmt.Sprintf("argument '%s' must be one of %s, not %s", name, pyjson.Repr(vals), short(x))
		}
	}
	return ""
}

// typeName is a value's Python type name, None for null.
func typeName(x any) string {
	if x == nil {
		return "None"
	}
	return pyjson.TypeName(x)
}

// short is a value as a problem quotes it.
func short(x any) string { return clip.Runes(pyjson.Repr(x), 40, "…") }

// Rule is what CheckTypes asks of one parameter beyond its type.
type Rule struct {
	name   string
	except bool
	note   string
	check  func(name string, x any) string
}

// Except leaves the named parameters to the caller (a gate with its own
// rule for them).
func Except(names ...string) []Rule {
	out := make([]Rule, len(names))
	for i, n := range names {
		out[i] = Rule{name: n, except: true}
	}
	return out
}

// Note adds a remark to the parameter's problem ("any non-empty string
// counts as true").
func Note(name, note string) Rule { return Rule{name: name, note: note} }

// NonNegative asks an IntValue for an int from 0 to 2^63-1.
func NonNegative(name string) Rule {
	return Rule{name: name, check: func(name string, x any) string {
		if n, ok := x.(json.Number); ok {
			if i, err := strconv.ParseInt(string(n), 10, 64); err == nil && i >= 0 {
				return ""
			}
		}
		return fmt.Sprintf("argument '%s' must be a non-negative int, not %s", name, short(x))
	}}
}

// Positive asks a NumValue for a finite number above 0.
func Positive(name string) Rule {
	return Rule{name: name, check: func(name string, x any) string {
		if n, ok := x.(json.Number); ok {
			if f, err := strconv.ParseFloat(string(n), 64); err == nil && f > 0 {
				return ""
			}
		}
		return fmt.Sprintf("argument '%s' must be a positive number, not %s", name, short(x))
	}}
}

// Field is a field of the objects of a list parameter and its Python type
// (str or int).
type Field struct{ Name, Type string }

// Objects asks a list parameter for objects whose fields have their types
// (null or missing fields are reported apart, as incomplete), and for at
// least one object when nonEmpty.
func Objects(name string, nonEmpty bool, fields ...Field) Rule {
	var desc []string
	for _, f := range fields {
		desc = append(desc, f.Type+" "+f.Name)
	}
	what := "a list of objects with " + strings.Join(desc, ", ")
	if nonEmpty {
		what = "a non-empty " + strings.TrimPrefix(what, "a ")
	}
	return Rule{name: name, check: func(name string, x any) string {
		bad := fmt.Sprintf("argument '%s' must be %s, not %s", name, what, short(x))
		items, ok := x.([]any)
		if !ok || (nonEmpty && len(items) == 0) {
			return bad
		}
		missing := false
		for _, it := range items {
			if it == nil {
				missing = true
				continue
			}
			d, ok := it.(*pyjson.Dict)
			if !ok {
				return bad
			}
			for _, f := range fields {
				v, _ := d.Get(f.Name)
				if v == nil {
					missing = true
					continue
				}
				if got := pyjson.TypeName(v); got != f.Type || (f.Type == "int" && !int64Number(v)) {
					return bad
				}
			}
		}
		if missing {
			names := make([]string, len(fields))
			for i, f := range fields {
				names[i] = f.Name
			}
			return fmt.Sprintf("argument '%s' needs %s in every item", name, strings.Join(names, ", "))
		}
		return ""
	}}
}

// int64Number reports a JSON integer within 64 bits.
func int64Number(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	_, err := strconv.ParseInt(string(n), 10, 64)
	return err == nil
}

// Texts is a list argument's str items, "" for any other item, nil when it
// is not a list (a gate's reading after CheckTypes).
func (a Value) Texts() []string {
	list, ok := a.V.([]any)
	if !ok {
		return nil
	}
	out := make([]string, len(list))
	for i, it := range list {
		out[i], _ = it.(string)
	}
	return out
}

// documentedType is the Python type name of a Value type's documented type
// (a NumValue takes an int too); ok is false for other types.
func documentedType(t reflect.Type) (name string, ok bool) {
	switch t {
	case reflect.TypeFor[StrValue]():
		return "str", true
	case reflect.TypeFor[IntValue]():
		return "int", true
	case reflect.TypeFor[NumValue]():
		return "float", true
	case reflect.TypeFor[BoolValue]():
		return "bool", true
	case reflect.TypeFor[DictValue]():
		return "dict", true
	case reflect.TypeFor[StrListValue]():
		return "list", true
	}
	return "", false
}

func checkStrList(name string, x any) string {
	list, ok := x.([]any)
	if !ok {
		return fmt.Sprintf("argument '%s' must be list, not %s", name, typeName(x))
	}
	for i, it := range list {
		if _, ok := it.(string); !ok && it != nil {
			return fmt.Sprintf("argument '%s' must be str in every item, not %s (item %d)", name, pyjson.TypeName(it), i)
		}
	}
	return ""
}
