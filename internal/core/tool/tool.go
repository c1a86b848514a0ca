// Package tool defines environment tools: typed Go functions with a name, a
// kind, an OpenAI function schema generated from their argument struct, and
// the calling convention of τ²-bench (raw JSON keyword arguments, no schema
// validation, Python's error texts for unknown or missing arguments).
//
// Tools are defined once per domain over a state type S and dispatched by a
// Set[S]; a simulation passes its own state to every call, so nothing is
// allocated per simulation to make tools available.
//
// It is a top-level package, not internal, because envs.Domain and the agents'
// signatures hand out tool.Info: a domain or agent outside this module needs it.
package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Kind classifies a tool as upstream does. Only write tools change state.
type Kind string

const (
	Read    Kind = "read"
	Write   Kind = "write"
	Think   Kind = "think"
	Generic Kind = "generic"
)

// Info is what the outside world (agents, metrics, the gate) knows of a tool.
type Info struct {
	Name        string
	Kind        Kind
	Description string
	// Parameters is the JSON schema of the arguments object.
	Parameters json.RawMessage
	// Params lists parameter names in signature order.
	Params []Param
}

// Mutates reports whether the tool changes environment state. In every ported
// domain exactly the write tools mutate.
func (i Info) Mutates() bool { return i.Kind == Write }

// OpenAISchema returns {"type":"function","function":{name,description,parameters}}
// in upstream's key order, compact, with json.dumps' spelling of strings and
// numbers.
func (i Info) OpenAISchema() json.RawMessage {
	d := &pyjson.Dict{}
	fn := &pyjson.Dict{}
	fn.Set("name", i.Name)
	fn.Set("description", i.Description)
	if len(bytes.TrimSpace(i.Parameters)) > 0 {
		fn.Set("parameters", i.Parameters)
	} else {
		fn.Set("parameters", nil)
	}
	d.Set("type", "function")
	d.Set("function", fn)
	py, err := pyjson.Marshal(d)
	var b bytes.Buffer
	if err == nil {
		err = json.Compact(&b, py)
	}
	if err != nil {
		panic(fmt.Sprintf("tool %s: parameters schema is not JSON: %v", i.Name, err)) // set up by New or Described
	}
	return b.Bytes()
}

// Param is one keyword parameter of a tool.
type Param struct {
	Name     string
	Required bool
}

// Tool is a tool over state S.
type Tool[S any] struct {
	Info
	// decode checks and decodes a call's arguments into a new *A; run
	// calls the implementation with what decode returned.
	decode func(class string, info Info, args json.RawMessage) (any, error)
	run    func(ctx context.Context, s S, a any) (any, error)
	// class, when set, names the Python class that defines the tool in
	// its argument errors instead of the set's (a mixin's method).
	class string
}

// WithClass returns the tool with the Python class that defines it named
// in its argument errors (upstream's TypeError texts use the method's
// qualified name: a mixin's tool in a composed toolkit names the mixin).
func (t Tool[S]) WithClass(class string) Tool[S] {
	t.class = class
	return t
}

// classOr is the class named in t's argument errors.
func (t Tool[S]) classOr(set string) string {
	if t.class != "" {
		return t.class
	}
	return set
}

// Func is the shape of a typed tool implementation.
type Func[S, A any] func(ctx context.Context, s S, a A) (any, error)

// New builds a tool whose arguments decode into A, a struct whose json tags
// name the parameters in signature order. A field is optional when its tag has
// omitempty (a Python parameter with a default); otherwise it is required.
// Field tags `desc:"…"` and `enum:"a,b"` go into the schema. Domains that
// show the model upstream's text pass an empty desc and take descriptions
// and schemas from upstream's source with Set.Described.
func New[S, A any](name string, kind Kind, desc string, fn Func[S, A]) Tool[S] {
	at := reflect.TypeFor[A]()
	params, schema := paramsOf(at)
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema: %v", name, err)) // programming error at domain set-up
	}
	return Tool[S]{
		Info:   Info{Name: name, Kind: kind, Description: desc, Parameters: raw, Params: params},
		decode: decodeArgs[A],
		run: func(ctx context.Context, s S, a any) (any, error) {
			return fn(ctx, s, *a.(*A))
		},
	}
}

// decodeArgs is a tool's argument decoder for Set.Call and Set.Decode: it
// checks the keyword arguments (CheckArgs) and decodes them into a new A with
// encoding/json.
func decodeArgs[A any](class string, info Info, args json.RawMessage) (any, error) {
	a := new(A)
	if err := CheckArgs(class, info, args); err != nil {
		return nil, err
	}
	if err := decodeInto(args, a); err != nil {
		return nil, err
	}
	return a, nil
}

// plainString decodes a JSON string of printable ASCII without escapes
// (anything else is left to pyjson.Decode).
func plainString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", errNotPlain
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' {
			return "", errNotPlain
		}
	}
	return string(raw[1 : len(raw)-1]), nil
}

var errNotPlain = errors.New("not a plain string")

// decodeInto decodes a call's keyword arguments into the tool's argument
// struct (empty arguments and {} leave it zero).
func decodeInto[A any](args json.RawMessage, a *A) error {
	if t := bytes.TrimSpace(args); len(t) > 0 && !bytes.Equal(t, []byte("{}")) {
		if err := json.Unmarshal(args, a); err != nil {
			return typeError(err)
		}
	}
	return nil
}

// WithSchema replaces the generated parameter schema (for parameters whose
// upstream schema is not expressible with struct tags, e.g. anyOf).
func (t Tool[S]) WithSchema(raw json.RawMessage) Tool[S] {
	t.Parameters = raw
	return t
}

// Spec is what upstream shows the model of a tool, with its kind: the
// description and the JSON schema of the parameters as upstream's own code
// generates them.
type Spec struct {
	Kind        Kind
	Description string
	Parameters  json.RawMessage
}

// Source supplies the specs of a toolkit's tools, e.g. read from upstream's
// Python source (internal/source/pyschema).
type Source interface {
	// Names lists the toolkit's tools in upstream order.
	Names() []string
	// Spec returns one tool's spec.
	Spec(name string) (Spec, error)
}

// Described returns a copy of the set whose tools show the model the
// descriptions and parameter schemas of src. The set must have src's tools
// in src's order, each of src's kind, with the parameters (names, order,
// required-ness) its schema declares; any difference is an error.
func (s *Set[S]) Described(src Source) (*Set[S], error) {
	names := src.Names()
	var ours []string
	for _, t := range s.tools {
		ours = append(ours, t.Name)
	}
	if !slices.Equal(names, ours) {
		for _, n := range ours {
			if !slices.Contains(names, n) {
				return nil, fmt.Errorf("%s.%s: no such tool upstream (upstream has %v)", s.class, n, names)
			}
		}
		for _, n := range names {
			if !slices.Contains(ours, n) {
				return nil, fmt.Errorf("%s.%s: upstream tool missing here", s.class, n)
			}
		}
		return nil, fmt.Errorf("%s: upstream tool order %v, ours %v", s.class, names, ours)
	}
	tools := slices.Clone(s.tools)
	for i := range tools {
		t := &tools[i]
		spec, err := src.Spec(t.Name)
		if err != nil {
			return nil, err
		}
		if spec.Kind != t.Kind {
			return nil, fmt.Errorf("%s.%s: upstream kind %s, ours %s", s.class, t.Name, spec.Kind, t.Kind)
		}
		params, err := schemaParams(spec.Parameters)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", s.class, t.Name, err)
		}
		if !slices.Equal(params, t.Params) {
			return nil, fmt.Errorf("%s.%s: upstream parameters %v, ours %v", s.class, t.Name, params, t.Params)
		}
		t.Description, t.Parameters = spec.Description, spec.Parameters
	}
	return NewSet(s.class, tools...), nil
}

// schemaParams lists the parameters an object schema declares.
func schemaParams(schema json.RawMessage) ([]Param, error) {
	v, err := pyjson.Decode(schema)
	if err != nil {
		return nil, fmt.Errorf("parameters schema: %w", err)
	}
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return nil, errors.New("parameters schema is not an object")
	}
	props, _ := d.Get("properties")
	pd, ok := props.(*pyjson.Dict)
	if !ok {
		return nil, errors.New("parameters schema has no properties object")
	}
	req, _ := d.Get("required")
	reqs, _ := req.([]any)
	var out []Param
	for _, k := range pd.Keys {
		out = append(out, Param{Name: k, Required: slices.Contains(reqs, any(k))})
	}
	return out, nil
}

// typeError turns a JSON type mismatch into a Python-flavoured TypeError text.
// Upstream passes wrong types into the code, where they fail with various
// Python texts; only the error flag matters for the reward.
func typeError(err error) error {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		return fmt.Errorf("argument '%s' must be %s, not %s", ute.Field, pyTypeName(ute.Type), pyValueName(ute.Value))
	}
	return err
}

func pyTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "str"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "int"
	case reflect.Float64, reflect.Float32:
		return "float"
	case reflect.Bool:
		return "bool"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "dict"
	}
	return t.String()
}

func pyValueName(v string) string {
	switch v {
	case "string":
		return "str"
	case "number":
		return "float"
	case "bool":
		return "bool"
	case "array":
		return "list"
	case "object":
		return "dict"
	}
	if strings.HasPrefix(v, "number") {
		return "float"
	}
	return v
}

// Set dispatches calls by name for one toolkit, reproducing Python's
// keyword-argument errors with the toolkit's class name.
type Set[S any] struct {
	class string
	tools []Tool[S]
	index map[string]int
}

// NewSet builds a toolkit. class is the upstream Python class name used in
// argument error texts (e.g. "AirlineTools").
func NewSet[S any](class string, tools ...Tool[S]) *Set[S] {
	s := &Set[S]{class: class, tools: tools, index: make(map[string]int, len(tools))}
	for i, t := range tools {
		if _, dup := s.index[t.Name]; dup {
			panic("tool: duplicate tool " + t.Name)
		}
		s.index[t.Name] = i
	}
	return s
}

// Infos lists the tools in order.
func (s *Set[S]) Infos() []Info {
	out := make([]Info, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.Info
	}
	return out
}

// Lookup returns a tool's info.
func (s *Set[S]) Lookup(name string) (Info, bool) {
	i, ok := s.index[name]
	if !ok {
		return Info{}, false
	}
	return s.tools[i].Info, true
}

// Class is the Python class name used in error texts.
func (s *Set[S]) Class() string { return s.class }

// ErrNotFound is wrapped by the error for an unknown tool name.
var ErrNotFound = errors.New("tool not found")

type notFound struct{ name string }

func (e notFound) Error() string { return fmt.Sprintf("Tool '%s' not found.", e.name) }
func (e notFound) Unwrap() error { return ErrNotFound }

// Call runs a tool and returns its raw result. Errors are the exception text
// upstream would raise (the tool message content is "Error: " + text).
func (s *Set[S]) Call(ctx context.Context, st S, name string, args json.RawMessage) (any, error) {
	i, ok := s.index[name]
	if !ok {
		return nil, notFound{name}
	}
	t := s.tools[i]
	a, err := t.decode(t.classOr(s.class), t.Info, args)
	if err != nil {
		return nil, err
	}
	return t.run(ctx, st, a)
}

// Decode decodes a call's arguments as Call would before running the tool:
// the keyword-argument checks, then the tool's argument struct A, returned as
// *A. An error is the one Call would return without running the tool.
func (s *Set[S]) Decode(name string, args json.RawMessage) (any, error) {
	i, ok := s.index[name]
	if !ok {
		return nil, notFound{name}
	}
	t := s.tools[i]
	return t.decode(t.classOr(s.class), t.Info, args)
}

// CallContent runs a tool and formats its result as the tool message content
// (upstream's to_json_str).
func (s *Set[S]) CallContent(ctx context.Context, st S, name string, args json.RawMessage) (string, error) {
	res, err := s.Call(ctx, st, name, args)
	if err != nil {
		return "", err
	}
	return Content(res), nil
}

// Content formats a tool result: strings as they are, anything else with
// json.dumps defaults. Tools that upstream returns as plain dicts with numbers
// must put Python's str() of those numbers in the dict themselves (see
// pyjson.Dict), because upstream stringifies them.
func Content(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyjson.String(v)
}

// CheckArgs validates the keyword arguments like a Python call would: the
// arguments must be a JSON object, with no unknown keys and every required
// parameter present.
func CheckArgs(class string, info Info, args json.RawMessage) error {
	keys, err := objectKeys(args)
	if err != nil {
		return fmt.Errorf("%s.%s() argument after ** must be a mapping, not %s", class, info.Name, err.Error())
	}
	return checkKeys(class, info, keys)
}

// checkKeys is CheckArgs on the keys of an object.
func checkKeys(class string, info Info, keys []string) error {
	for _, k := range keys {
		known := false
		for _, p := range info.Params {
			if p.Name == k {
				known = true
				break
			}
		}
		if !known {
			return fmt.Errorf("%s.%s() got an unexpected keyword argument '%s'", class, info.Name, k)
		}
	}
	var missing []string
	for _, p := range info.Params {
		if !p.Required {
			continue
		}
		found := false
		for _, k := range keys {
			if k == p.Name {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, "'"+p.Name+"'")
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s.%s() missing 1 required positional argument: %s", class, info.Name, missing[0])
	case 2:
		return fmt.Errorf("%s.%s() missing 2 required positional arguments: %s and %s", class, info.Name, missing[0], missing[1])
	default:
		return fmt.Errorf("%s.%s() missing %d required positional arguments: %s, and %s", class, info.Name, len(missing),
			strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1])
	}
}

// objectKeys returns the keys of a JSON object in order. An empty input counts
// as an empty object. The error text names the Python type of a non-object.
func objectKeys(args json.RawMessage) ([]string, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		return nil, nil
	}
	if trimmed[0] == '{' && json.Valid(trimmed) { // the common case, without a token decoder
		var keys []string
		err := pyjson.Object(trimmed, func(k string, _ []byte) error {
			keys = append(keys, k)
			return nil
		})
		return keys, err
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	tok, err := dec.Token()
	if err != nil {
		return nil, errors.New("str")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		switch tok.(type) {
		case string:
			return nil, errors.New("str")
		case json.Number, float64:
			return nil, errors.New("float")
		case bool:
			return nil, errors.New("bool")
		case nil:
			return nil, errors.New("NoneType")
		}
		return nil, errors.New("list")
	}
	var keys []string
	depth := 0
	expectKey := true
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, errors.New("str")
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				depth++
			case '}', ']':
				if depth == 0 {
					return keys, nil
				}
				depth--
				if depth == 0 {
					expectKey = true
				}
			}
			continue
		}
		if depth == 0 {
			if expectKey {
				keys = append(keys, tok.(string))
				expectKey = false
			} else {
				expectKey = true
			}
		}
	}
}
