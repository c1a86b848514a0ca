package tool

import (
	"reflect"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Schemer lets an argument type supply its own JSON schema.
type Schemer interface {
	JSONSchema() *pyjson.Dict
}

var schemerType = reflect.TypeFor[Schemer]()

func paramsOf(t reflect.Type) ([]Param, *pyjson.Dict) {
	schema := &pyjson.Dict{}
	props := &pyjson.Dict{}
	var required []any
	var params []Param
	if t.Kind() != reflect.Struct {
		panic("tool: argument type must be a struct, got " + t.String())
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		req := !strings.Contains(opts, "omitempty")
		params = append(params, Param{Name: name, Required: req})
		props.Set(name, fieldSchema(f.Type, f.Tag))
		if req {
			required = append(required, name)
		}
	}
	schema.Set("type", "object")
	schema.Set("properties", props)
	if len(required) > 0 {
		schema.Set("required", required)
	}
	return params, schema
}

func fieldSchema(t reflect.Type, tag reflect.StructTag) *pyjson.Dict {
	d := typeSchema(t)
	if desc := tag.Get("desc"); desc != "" {
		d.Set("description", desc)
	}
	if enum := tag.Get("enum"); enum != "" {
		var vals []any
		for _, v := range strings.Split(enum, ",") {
			vals = append(vals, v)
		}
		d.Set("enum", vals)
	}
	return d
}

func typeSchema(t reflect.Type) *pyjson.Dict {
	if t.Implements(schemerType) {
		return reflect.New(t).Elem().Interface().(Schemer).JSONSchema()
	}
	d := &pyjson.Dict{}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		d.Set("type", "string")
	case reflect.Bool:
		d.Set("type", "boolean")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		d.Set("type", "integer")
	case reflect.Float32, reflect.Float64:
		d.Set("type", "number")
	case reflect.Slice, reflect.Array:
		d.Set("type", "array")
		d.Set("items", typeSchema(t.Elem()))
	case reflect.Map:
		d.Set("type", "object")
		d.Set("additionalProperties", true)
	case reflect.Struct:
		_, obj := paramsOf(t)
		return obj
	case reflect.Interface:
		// any JSON value
	}
	return d
}
