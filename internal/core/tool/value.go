package tool

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

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

// CheckTypes is the check a policy gate makes before it reads a call's
// arguments as their documented types (the tool itself takes any JSON value,
// as upstream's does): every Value field of the argument struct args (a
// pointer or a struct) holds its type or null — a StrValue a str, a
// StrListValue a list of str (or null) items, an IntValue an int, a
// NumValue an int or float, a BoolValue a bool, a DictValue a dict. The
// first field that does not fails with the text a plain Go field of that
// type gives when the value does not decode, e.g. "argument 'order_id' must
// be str, not int". The parameters named in except are left to the caller
// (a gate with its own rule for them).
func CheckTypes(args any, except ...string) error {
	v := reflect.Indirect(reflect.ValueOf(args))
	if v.Kind() != reflect.Struct {
		return nil
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		want, ok := documentedType(f.Type)
		if !ok || name == "" || slices.Contains(except, name) {
			continue
		}
		x := v.Field(i).Field(0).Interface().(Value).V
		if x == nil {
			continue
		}
		if f.Type == reflect.TypeFor[StrListValue]() {
			if err := checkStrList(name, x); err != nil {
				return err
			}
			continue
		}
		if got := pyjson.TypeName(x); got != want && (want != "float" || got != "int") {
			return fmt.Errorf("argument '%s' must be %s, not %s", name, want, got)
		}
	}
	return nil
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

func checkStrList(name string, x any) error {
	list, ok := x.([]any)
	if !ok {
		return fmt.Errorf("argument '%s' must be list, not %s", name, pyjson.TypeName(x))
	}
	for i, it := range list {
		if _, ok := it.(string); !ok && it != nil {
			return fmt.Errorf("argument '%s' must be str in every item, not %s (item %d)", name, pyjson.TypeName(it), i)
		}
	}
	return nil
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
