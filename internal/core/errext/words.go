package errext

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"time"
)

// Decoders name Go types ("into time.Duration", "Go value of type
// results.Tau2File"); the functions here say the same in a file's terms, at
// the place that decodes the file.

var durationType = reflect.TypeFor[time.Duration]()

// Kind names what a value of type t holds in a data file: "a whole
// number", "a duration such as 90s or 5m", "a list", "a mapping" (a
// struct or map; JSON callers say "an object").
func Kind(t reflect.Type) string {
	if t == durationType {
		return "a duration such as 90s or 5m"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return Kind(t.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "a mapping"
}

// jsonError is a JSON decoding error worded in the data's terms; it
// unwraps to encoding/json's error.
type jsonError struct {
	msg string
	err error
}

func (e jsonError) Error() string { return e.msg }
func (e jsonError) Unwrap() error { return e.err }

// JSON words a JSON value of the wrong type ("json: field
// simulations.trial: a string where a whole number was expected"); other
// errors are returned as they are.
func JSON(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil {
		return err
	}
	want := Kind(te.Type)
	if want == "a mapping" {
		want = "an object (a mapping of keys)"
	}
	found := jsonKind(te.Value)
	if te.Field != "" {
		return jsonError{"json: field " + te.Field + ": " + found + " where " + want + " was expected", err}
	}
	return jsonError{"json: " + found + " where " + want + " was expected", err}
}

// jsonKind names a JSON value from encoding/json's words ("array",
// "number 1.5").
func jsonKind(v string) string {
	word, _, _ := strings.Cut(v, " ")
	switch word {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "number":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	}
	return v
}
