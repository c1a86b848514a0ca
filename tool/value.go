package tool

import "github.com/ledgerbench/ledgerbench/pyjson"

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
//     the text upstream's code would raise. Domains keep these where their
//     gates and audits read the typed values and no recorded run passes
//     another type; the domains' oracle tests list the divergence.

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
