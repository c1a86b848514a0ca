package pyjson

import (
	"bytes"
	"math"
	"reflect"
)

// SameDump reports whether a and b encode to the same JSON, String(a) ==
// String(b), as upstream compares databases by the hashes of their dumps.
// Values of one type with the same content, field by field (unexported
// fields included, floats bit for bit, so 0.0 and -0.0 differ as their
// dumps do), encode the same and are not encoded; anything else (another
// type, a Go map, a nil list beside an empty one, …) is decided by
// encoding both.
func SameDump(a, b any) bool {
	if sameValue(reflect.ValueOf(a), reflect.ValueOf(b), 0) {
		return true
	}
	return String(a) == String(b)
}

// maxDepth bounds sameValue's recursion (a cyclic value is left to the
// encoder).
const maxDepth = 64

// sameValue reports whether a and b are of one type and have the same
// content; false means only that it cannot tell.
func sameValue(a, b reflect.Value, depth int) bool {
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	if a.Type() != b.Type() || depth > maxDepth {
		return false
	}
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.String:
		return a.String() == b.String()
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() && b.IsNil()
		}
		return a.Pointer() == b.Pointer() || sameValue(a.Elem(), b.Elem(), depth+1)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() && b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem(), depth+1)
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		if a.Len() == 0 || a.Pointer() == b.Pointer() {
			return true
		}
		if a.Type().Elem().Kind() == reflect.Uint8 {
			return bytes.Equal(a.Bytes(), b.Bytes())
		}
		fallthrough
	case reflect.Array:
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i), depth+1) {
				return false
			}
		}
		return true
	}
	return false // maps (encoded sorted), funcs, channels, complex numbers
}
