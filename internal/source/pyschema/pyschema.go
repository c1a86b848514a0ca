// Package pyschema builds the OpenAI tool schemas upstream sends, from the
// upstream Python source itself: τ²-bench's Tool (src/tau2/environment/
// tool.py) turns a toolkit method into {"name", "description",
// "parameters"} with docstring_parser (Google style) for the descriptions
// and pydantic's create_model(...).model_json_schema() over the signature
// for the parameters. This package reads the same source files with
// pyliteral (no Python is run) and reproduces pydantic's JSON schema for
// the annotations upstream's tools use: str, int, float, bool, None, Any,
// dict, list, List/Dict/Optional/Union/Literal/Annotated, `X | Y`, type
// aliases, str enums and pydantic models (Field(...) defaults, descriptions
// and titles, class docstrings, extra="forbid") as $defs.
//
// Anything outside that set is an error naming the file and the symbol,
// never a guess.
package pyschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
)

// File is a parsed Python source file.
type File struct {
	// Path names the file in errors.
	Path string
	Mod  *pyliteral.Module
}

// ReadFile reads and parses a Python source file.
func ReadFile(path string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read upstream source: %w", err)
	}
	return Parse(path, src)
}

// Parse parses Python source; path names it in errors.
func Parse(path string, src []byte) (*File, error) {
	m, err := pyliteral.ReadModule(src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return &File{Path: path, Mod: m}, nil
}

// Toolkit is a toolkit class of upstream source (e.g. AirlineTools in
// domains/airline/tools.py) with the files its annotations' names resolve
// in: the toolkit's own file first, then the model files in order (what
// tools.py imports from data_model.py).
type Toolkit struct {
	file   *File
	class  *pyliteral.Class
	models []*File
}

// NewToolkit finds the toolkit class in file.
func NewToolkit(file *File, class string, models ...*File) (*Toolkit, error) {
	c := file.Mod.Class(class)
	if c == nil {
		return nil, fmt.Errorf("%s: class %s: %w", file.Path, class, pyliteral.ErrNoSymbol)
	}
	// Upstream's ToolKitType adds a base toolkit's tools after the class's
	// own; only toolkits directly over ToolKitBase are supported.
	for _, b := range c.Bases {
		if n, ok := b.(*pyliteral.Name); !ok || n.Dotted != "ToolKitBase" {
			return nil, fmt.Errorf("%s: class %s: bases other than ToolKitBase are not supported", file.Path, class)
		}
	}
	return &Toolkit{file: file, class: c, models: models}, nil
}

// Names lists the class's tools (methods decorated with is_tool) in
// definition order, as upstream's ToolKitType collects them. Discoverable
// tools (is_discoverable_tool) are not sent to the model and not listed.
// A redefined method keeps its first place and its last definition, as in a
// class's namespace.
func (k *Toolkit) Names() []string {
	var order []string
	last := map[string]*pyliteral.Func{}
	for _, f := range k.class.Methods {
		if _, seen := last[f.Name]; !seen {
			order = append(order, f.Name)
		}
		last[f.Name] = f
	}
	var out []string
	for _, name := range order {
		if _, ok := toolKind(last[name]); ok {
			out = append(out, name)
		}
	}
	return out
}

// toolKind reads @is_tool(ToolType.X) (default READ).
func toolKind(f *pyliteral.Func) (tool.Kind, bool) {
	for _, d := range f.Decorators {
		c, ok := d.(*pyliteral.Call)
		if !ok || c.Func != "is_tool" {
			continue
		}
		var arg any
		if len(c.Args) > 0 {
			arg = c.Args[0]
		} else if v, ok := c.Kwargs.Get("tool_type"); ok {
			arg = v
		} else {
			return tool.Read, true
		}
		if n, ok := arg.(*pyliteral.Name); ok {
			if kind, ok := strings.CutPrefix(n.Dotted, "ToolType."); ok {
				return tool.Kind(strings.ToLower(kind)), true
			}
		}
		return "", true
	}
	return "", false
}

// Spec returns a tool's kind, description and parameter schema as
// upstream's Tool.openai_schema builds them.
func (k *Toolkit) Spec(name string) (tool.Spec, error) {
	qual := k.class.Name + "." + name
	fail := func(err error) (tool.Spec, error) {
		return tool.Spec{}, fmt.Errorf("%s: %s: %w", k.file.Path, qual, err)
	}
	f, err := k.file.Mod.Func(qual)
	if err != nil {
		return tool.Spec{}, fmt.Errorf("%s: %w", k.file.Path, err)
	}
	kind, ok := toolKind(f)
	if !ok {
		return fail(errors.New("not decorated with @is_tool"))
	}
	doc, err := pyliteral.ParseDocstring(f.Doc)
	if err != nil {
		return fail(err)
	}
	desc := doc.Description()
	if doc.Short == "" {
		desc = name // upstream's _get_description falls back to the name
	}
	g := &gen{k: k, defs: &pyjson.Dict{}}
	params, err := g.parameters(f, doc)
	if err != nil {
		return fail(err)
	}
	// json.dumps' number and string spelling (floats keep their ".0"),
	// compact.
	py, err := pyjson.Marshal(params)
	if err != nil {
		return fail(err)
	}
	var raw bytes.Buffer
	if err := json.Compact(&raw, py); err != nil {
		return fail(err)
	}
	return tool.Spec{Kind: kind, Description: desc, Parameters: raw.Bytes()}, nil
}

// gen builds one schema; defs collects the $defs it references.
type gen struct {
	k     *Toolkit
	defs  *pyjson.Dict
	stack []string // models being built, to reject recursion
}

// field is one property of a model: pydantic's FieldInfo, reduced.
type field struct {
	name        string
	ann         any
	required    bool
	hasDefault  bool // a default shown in the schema (not default_factory)
	def         any
	description *string
	title       *string
}

// parameters is create_model("parameters", **params).model_json_schema()
// over the method's signature (self excluded, as for a bound method).
func (g *gen) parameters(f *pyliteral.Func, doc pyliteral.Docstring) (*pyjson.Dict, error) {
	var fields []field
	for i, p := range f.Params {
		if i == 0 && p.Name == "self" {
			continue
		}
		if p.Star != "" {
			return nil, fmt.Errorf("parameter %s%s: variadic parameters are not supported", p.Star, p.Name)
		}
		fl := field{name: p.Name, ann: p.Annotation, required: !p.HasDefault}
		if !p.HasAnnotation {
			if dp, ok := doc.Param(p.Name); ok && dp.Type != "" {
				return nil, fmt.Errorf("parameter %s: a type from the docstring (%s) is not supported", p.Name, dp.Type)
			}
			fl.ann = &pyliteral.Name{Dotted: "Any"}
		}
		if p.HasDefault {
			v, err := g.defaultValue(p.Default)
			if err != nil {
				return nil, fmt.Errorf("parameter %s: %w", p.Name, err)
			}
			fl.hasDefault, fl.def = true, v
		}
		if dp, ok := doc.Param(p.Name); ok {
			d := dp.Description
			fl.description = &d
		}
		fields = append(fields, fl)
	}
	obj, err := g.object("parameters", nil, fields, false)
	if err != nil {
		return nil, err
	}
	if g.defs.Len() > 0 {
		out := &pyjson.Dict{}
		out.Set("$defs", g.defs)
		for i, k := range obj.Keys {
			out.Set(k, obj.Values[i])
		}
		obj = out
	}
	return sortSchema(obj, "").(*pyjson.Dict), nil
}

// object is the schema of a model with the given fields.
func (g *gen) object(title string, doc *string, fields []field, forbid bool) (*pyjson.Dict, error) {
	d := &pyjson.Dict{}
	if forbid {
		d.Set("additionalProperties", false)
	}
	if doc != nil {
		d.Set("description", *doc)
	}
	props := &pyjson.Dict{}
	var required []any
	for _, fl := range fields {
		s, err := g.fieldSchema(fl)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", fl.name, err)
		}
		props.Set(fl.name, s)
		if fl.required {
			required = append(required, fl.name)
		}
	}
	d.Set("properties", props)
	if len(required) > 0 {
		d.Set("required", required)
	}
	d.Set("title", title)
	d.Set("type", "object")
	return d, nil
}

func (g *gen) fieldSchema(fl field) (*pyjson.Dict, error) {
	ann, meta, err := g.unannotate(fl.ann)
	if err != nil {
		return nil, err
	}
	s, err := g.schema(ann)
	if err != nil {
		return nil, err
	}
	if fl.description == nil && meta != nil {
		fl.description = meta.description
	}
	titled, err := g.titled(ann)
	if err != nil {
		return nil, err
	}
	switch {
	case fl.title != nil:
		s.Set("title", *fl.title)
	case titled:
		s.Set("title", title(fl.name))
	}
	if fl.description != nil {
		s.Set("description", *fl.description)
	}
	if fl.hasDefault {
		s.Set("default", fl.def)
	}
	return s, nil
}

// unannotate strips Annotated[X, Field(...)] (through aliases), returning
// X and the Field's settings.
func (g *gen) unannotate(ann any) (any, *field, error) {
	for range 32 {
		switch a := ann.(type) {
		case *pyliteral.Subscript:
			if base(a) != "Annotated" {
				return ann, nil, nil
			}
			if len(a.Index) < 1 {
				return nil, nil, errors.New("Annotated without a type")
			}
			var meta *field
			for _, m := range a.Index[1:] {
				c, ok := m.(*pyliteral.Call)
				if !ok || !isField(c) {
					return nil, nil, errors.New("Annotated metadata other than Field(...) is not supported")
				}
				fl := field{required: true}
				if err := g.fieldCall(c, &fl); err != nil {
					return nil, nil, err
				}
				if fl.hasDefault || !fl.required {
					return nil, nil, errors.New("a default inside Annotated is not supported")
				}
				meta = &fl
			}
			return a.Index[0], meta, nil
		case *pyliteral.Name:
			r, err := g.resolve(a.Dotted)
			if err != nil || r.alias == nil {
				return ann, nil, nil
			}
			ann = r.alias.Value
		default:
			return ann, nil, nil
		}
	}
	return nil, nil, errors.New("type aliases nested too deeply")
}

// titled reports whether pydantic gives a field of this type a title: not
// when its schema is a reference to a model or an enum (also inside
// Optional).
func (g *gen) titled(ann any) (bool, error) {
	switch a := ann.(type) {
	case *pyliteral.Name:
		if builtin(a.Dotted) {
			return true, nil
		}
		r, err := g.resolve(a.Dotted)
		if err != nil {
			return false, err
		}
		if r.alias != nil {
			inner, _, err := g.unannotate(r.alias.Value)
			if err != nil {
				return false, err
			}
			return g.titled(inner)
		}
		return false, nil // a model or an enum: a $ref
	case *pyliteral.Subscript, *pyliteral.BitOr:
		members, err := g.unionMembers(ann)
		if err != nil {
			return false, err
		}
		var nonNull []any
		for _, m := range members {
			if m != nil {
				nonNull = append(nonNull, m)
			}
		}
		if len(members) > 1 && len(nonNull) == 1 { // Optional[X]: pydantic's nullable schema
			inner, _, err := g.unannotate(nonNull[0])
			if err != nil {
				return false, err
			}
			return g.titled(inner)
		}
		return true, nil
	}
	return true, nil
}

func base(s *pyliteral.Subscript) string {
	n, ok := s.Value.(*pyliteral.Name)
	if !ok {
		return ""
	}
	return strings.TrimPrefix(strings.TrimPrefix(n.Dotted, "typing."), "typing_extensions.")
}

func builtin(name string) bool {
	switch strings.TrimPrefix(name, "typing.") {
	case "str", "int", "float", "bool", "dict", "list", "Any", "Dict", "List":
		return true
	}
	return false
}

// unionMembers flattens Union/Optional/| into members (nil for None); any
// other type is one member.
func (g *gen) unionMembers(ann any) ([]any, error) {
	switch a := ann.(type) {
	case *pyliteral.BitOr:
		x, err := g.unionMembers(a.X)
		if err != nil {
			return nil, err
		}
		y, err := g.unionMembers(a.Y)
		if err != nil {
			return nil, err
		}
		return append(x, y...), nil
	case *pyliteral.Subscript:
		switch base(a) {
		case "Union":
			var out []any
			for _, m := range a.Index {
				ms, err := g.unionMembers(m)
				if err != nil {
					return nil, err
				}
				out = append(out, ms...)
			}
			return out, nil
		case "Optional":
			if len(a.Index) != 1 {
				return nil, errors.New("Optional takes one type")
			}
			ms, err := g.unionMembers(a.Index[0])
			if err != nil {
				return nil, err
			}
			return append(ms, nil), nil
		}
	}
	return []any{ann}, nil
}

// schema is pydantic's JSON schema of a type annotation.
func (g *gen) schema(ann any) (*pyjson.Dict, error) {
	switch a := ann.(type) {
	case nil:
		return typed("null"), nil
	case string: // a forward reference
		return g.schema(&pyliteral.Name{Dotted: a})
	case *pyliteral.Name:
		return g.named(a.Dotted)
	case *pyliteral.BitOr:
		return g.union(a)
	case *pyliteral.Subscript:
		switch base(a) {
		case "Union", "Optional":
			return g.union(a)
		case "List", "list":
			if len(a.Index) != 1 {
				return nil, errors.New("List takes one type")
			}
			items, err := g.inner(a.Index[0])
			if err != nil {
				return nil, err
			}
			d := &pyjson.Dict{}
			d.Set("items", items)
			d.Set("type", "array")
			return d, nil
		case "Dict", "dict":
			if len(a.Index) != 2 {
				return nil, errors.New("Dict takes two types")
			}
			if k, ok := a.Index[0].(*pyliteral.Name); !ok || k.Dotted != "str" {
				return nil, errors.New("Dict keys other than str are not supported")
			}
			vals, err := g.inner(a.Index[1])
			if err != nil {
				return nil, err
			}
			d := &pyjson.Dict{}
			d.Set("additionalProperties", vals)
			d.Set("type", "object")
			return d, nil
		case "Literal":
			return literal(a.Index)
		case "Annotated":
			inner, _, err := g.unannotate(a)
			if err != nil {
				return nil, err
			}
			return g.schema(inner)
		}
		return nil, fmt.Errorf("type %s[...] is not supported", base(a))
	}
	return nil, fmt.Errorf("annotation %s is not supported", pyjson.Repr(ann))
}

// inner is the schema of a type nested in another (a list's items, a
// union's member): Annotated metadata there is not supported.
func (g *gen) inner(ann any) (*pyjson.Dict, error) {
	a, meta, err := g.unannotate(ann)
	if err != nil {
		return nil, err
	}
	if meta != nil {
		return nil, errors.New("Annotated[..., Field(...)] inside another type is not supported")
	}
	return g.schema(a)
}

func (g *gen) union(ann any) (*pyjson.Dict, error) {
	members, err := g.unionMembers(ann)
	if err != nil {
		return nil, err
	}
	if len(members) == 1 {
		return g.inner(members[0])
	}
	var anyOf []any
	null := false
	for _, m := range members {
		if m == nil {
			null = true
			continue
		}
		s, err := g.inner(m)
		if err != nil {
			return nil, err
		}
		anyOf = append(anyOf, s)
	}
	if null { // pydantic's nullable schema puts null last
		anyOf = append(anyOf, typed("null"))
	}
	if len(anyOf) == 1 {
		return anyOf[0].(*pyjson.Dict), nil
	}
	d := &pyjson.Dict{}
	d.Set("anyOf", anyOf)
	return d, nil
}

func literal(vals []any) (*pyjson.Dict, error) {
	t, err := valuesType(vals)
	if err != nil {
		return nil, fmt.Errorf("Literal: %w", err)
	}
	d := &pyjson.Dict{}
	if len(vals) == 1 {
		d.Set("const", vals[0])
	} else {
		d.Set("enum", vals)
	}
	if t != "" {
		d.Set("type", t)
	}
	return d, nil
}

// valuesType is the JSON type pydantic gives a Literal's or an enum's values
// ("" when they have more than one).
func valuesType(vals []any) (string, error) {
	t := ""
	for i, v := range vals {
		var vt string
		switch v.(type) {
		case string:
			vt = "string"
		case json.Number:
			vt = "integer"
		case bool:
			vt = "boolean"
		default:
			return "", fmt.Errorf("value %s is not supported", pyjson.Repr(v))
		}
		if i > 0 && vt != t {
			return "", nil
		}
		t = vt
	}
	return t, nil
}

func typed(t string) *pyjson.Dict {
	d := &pyjson.Dict{}
	d.Set("type", t)
	return d
}

// named is the schema of a bare name: a builtin, an alias, an enum or a
// model ($ref into $defs).
func (g *gen) named(name string) (*pyjson.Dict, error) {
	switch strings.TrimPrefix(name, "typing.") {
	case "str":
		return typed("string"), nil
	case "int":
		return typed("integer"), nil
	case "float":
		return typed("number"), nil
	case "bool":
		return typed("boolean"), nil
	case "Any":
		return &pyjson.Dict{}, nil
	case "dict", "Dict":
		d := &pyjson.Dict{}
		d.Set("additionalProperties", true)
		d.Set("type", "object")
		return d, nil
	case "list", "List":
		d := &pyjson.Dict{}
		d.Set("items", &pyjson.Dict{})
		d.Set("type", "array")
		return d, nil
	}
	r, err := g.resolve(name)
	if err != nil {
		return nil, err
	}
	if r.alias != nil {
		return g.schema(r.alias.Value)
	}
	if err := g.define(r); err != nil {
		return nil, err
	}
	d := &pyjson.Dict{}
	d.Set("$ref", "#/$defs/"+r.class.Name)
	return d, nil
}

// resolved is what a name refers to: a class (model or enum) or a type
// alias (a module-level assignment), and the file that defines it.
type resolved struct {
	file  *File
	class *pyliteral.Class
	alias *pyliteral.Var
}

func (g *gen) resolve(name string) (resolved, error) {
	for _, f := range append([]*File{g.k.file}, g.k.models...) {
		if c := f.Mod.Class(name); c != nil {
			return resolved{file: f, class: c}, nil
		}
		if v := f.Mod.Var(name); v != nil {
			if v.Err != nil {
				return resolved{}, fmt.Errorf("%s: %s (line %d): %w", f.Path, name, v.Line, v.Err)
			}
			return resolved{file: f, alias: v}, nil
		}
	}
	return resolved{}, fmt.Errorf("name %s is not defined in %s: %w", name, g.files(), pyliteral.ErrNoSymbol)
}

func (g *gen) files() string {
	names := []string{g.k.file.Path}
	for _, f := range g.k.models {
		names = append(names, f.Path)
	}
	return strings.Join(names, ", ")
}

// classKind tells enums from models by their bases.
func (g *gen) classKind(c *pyliteral.Class, depth int) (string, error) {
	if depth > 32 {
		return "", errors.New("class hierarchy too deep")
	}
	for _, b := range c.Bases {
		n, ok := b.(*pyliteral.Name)
		if !ok {
			return "", fmt.Errorf("class %s: base %s is not supported", c.Name, pyjson.Repr(b))
		}
		switch strings.TrimPrefix(strings.TrimPrefix(n.Dotted, "enum."), "pydantic.") {
		case "Enum", "StrEnum", "IntEnum":
			return "enum", nil
		case "BaseModel", modelNoExtra:
			return "model", nil
		case "str", "int", "object":
			continue
		}
		r, err := g.resolve(n.Dotted)
		if err != nil || r.class == nil {
			return "", fmt.Errorf("class %s: base %s: not a known model or enum", c.Name, n.Dotted)
		}
		return g.classKind(r.class, depth+1)
	}
	return "", fmt.Errorf("class %s is neither a pydantic model nor an enum", c.Name)
}

// modelNoExtra is tau2.utils.pydantic_utils.BaseModelNoExtra, a BaseModel
// with model_config = ConfigDict(extra="forbid"). That file holds no
// model-facing text and is not pulled; this is its behaviour.
const modelNoExtra = "BaseModelNoExtra"

// define adds a model's or an enum's schema to $defs.
func (g *gen) define(r resolved) error {
	c := r.class
	if _, ok := g.defs.Get(c.Name); ok {
		return nil
	}
	if slices.Contains(g.stack, c.Name) {
		return fmt.Errorf("recursive model %s is not supported", c.Name)
	}
	g.stack = append(g.stack, c.Name)
	defer func() { g.stack = g.stack[:len(g.stack)-1] }()
	kind, err := g.classKind(c, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", r.file.Path, err)
	}
	var doc *string
	if c.HasDoc {
		d := pyliteral.CleanDoc(c.Doc)
		doc = &d
	}
	if kind == "enum" {
		s, err := enumSchema(c, doc)
		if err != nil {
			return fmt.Errorf("%s: %w", r.file.Path, err)
		}
		g.defs.Set(c.Name, s)
		return nil
	}
	fields, forbid, err := g.modelFields(c, 0)
	if err != nil {
		return fmt.Errorf("%s: class %s: %w", r.file.Path, c.Name, err)
	}
	s, err := g.object(c.Name, doc, fields, forbid)
	if err != nil {
		return fmt.Errorf("%s: class %s: %w", r.file.Path, c.Name, err)
	}
	g.defs.Set(c.Name, s)
	return nil
}

func enumSchema(c *pyliteral.Class, doc *string) (*pyjson.Dict, error) {
	var vals []any
	for _, v := range c.Vars {
		if v.HasAnnotation || strings.HasPrefix(v.Name, "_") {
			continue
		}
		if v.Err != nil {
			return nil, fmt.Errorf("enum %s.%s: %w", c.Name, v.Name, v.Err)
		}
		vals = append(vals, v.Value)
	}
	t, err := valuesType(vals)
	if err != nil {
		return nil, fmt.Errorf("enum %s: %w", c.Name, err)
	}
	d := &pyjson.Dict{}
	if doc != nil {
		d.Set("description", *doc)
	}
	d.Set("enum", vals)
	d.Set("title", c.Name)
	if t != "" {
		d.Set("type", t)
	}
	return d, nil
}

// modelFields collects a model's fields as pydantic does: the bases'
// fields first, a redefined field keeping its first place.
func (g *gen) modelFields(c *pyliteral.Class, depth int) ([]field, bool, error) {
	if depth > 32 {
		return nil, false, errors.New("class hierarchy too deep")
	}
	var fields []field
	forbid := false
	for _, b := range c.Bases {
		n := b.(*pyliteral.Name) // classKind checked
		switch strings.TrimPrefix(n.Dotted, "pydantic.") {
		case "BaseModel":
			continue
		case modelNoExtra:
			forbid = true
			continue
		}
		r, err := g.resolve(n.Dotted)
		if err != nil {
			return nil, false, err
		}
		bf, bforbid, err := g.modelFields(r.class, depth+1)
		if err != nil {
			return nil, false, err
		}
		fields = append(fields, bf...)
		forbid = forbid || bforbid
	}
	if c.Keywords != nil && c.Keywords.Kwargs.Len() > 0 {
		return nil, false, errors.New("class keywords are not supported")
	}
	for _, v := range c.Vars {
		if v.Name == "model_config" {
			return nil, false, errors.New("model_config is not supported")
		}
		if !v.HasAnnotation || strings.HasPrefix(v.Name, "_") {
			continue
		}
		if v.Err != nil {
			return nil, false, fmt.Errorf("field %s (line %d): %w", v.Name, v.Line, v.Err)
		}
		if s, ok := v.Annotation.(*pyliteral.Subscript); ok && base(s) == "ClassVar" {
			continue
		}
		fl := field{name: v.Name, ann: v.Annotation, required: true}
		if v.HasValue {
			if c, ok := v.Value.(*pyliteral.Call); ok && isField(c) {
				if err := g.fieldCall(c, &fl); err != nil {
					return nil, false, fmt.Errorf("field %s: %w", v.Name, err)
				}
			} else {
				d, err := g.defaultValue(v.Value)
				if err != nil {
					return nil, false, fmt.Errorf("field %s: %w", v.Name, err)
				}
				fl.required, fl.hasDefault, fl.def = false, true, d
			}
		}
		if i := slices.IndexFunc(fields, func(f field) bool { return f.name == v.Name }); i >= 0 {
			fields[i] = fl
		} else {
			fields = append(fields, fl)
		}
	}
	return fields, forbid, nil
}

func isField(c *pyliteral.Call) bool {
	return c.Func == "Field" || c.Func == "pydantic.Field"
}

// fieldCall applies Field(default, description=..., ...) to fl.
func (g *gen) fieldCall(c *pyliteral.Call, fl *field) error {
	setDefault := func(v any) error {
		if _, ok := v.(pyliteral.Ellipsis); ok {
			fl.required = true
			return nil
		}
		d, err := g.defaultValue(v)
		if err != nil {
			return err
		}
		fl.required, fl.hasDefault, fl.def = false, true, d
		return nil
	}
	switch len(c.Args) {
	case 0:
	case 1:
		if err := setDefault(c.Args[0]); err != nil {
			return err
		}
	default:
		return errors.New("Field takes one positional argument")
	}
	for i, k := range c.Kwargs.Keys {
		v := c.Kwargs.Values[i]
		switch k {
		case "default":
			if err := setDefault(v); err != nil {
				return err
			}
		case "default_factory":
			fl.required, fl.hasDefault = false, false
		case "description", "title":
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("Field(%s=...) must be a string", k)
			}
			if k == "description" {
				fl.description = &s
			} else {
				fl.title = &s
			}
		default:
			return fmt.Errorf("Field(%s=...) is not supported", k)
		}
	}
	return nil
}

// defaultValue is a default as pydantic writes it into the schema: literals
// as they are, an enum member as its value.
func (g *gen) defaultValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool, json.Number, float64:
		return x, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			d, err := g.defaultValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case pyliteral.Tuple:
		return g.defaultValue([]any(x))
	case *pyjson.Dict:
		out := &pyjson.Dict{}
		for i, k := range x.Keys {
			d, err := g.defaultValue(x.Values[i])
			if err != nil {
				return nil, err
			}
			out.Set(k, d)
		}
		return out, nil
	case *pyliteral.Name:
		cls, member, ok := strings.Cut(x.Dotted, ".")
		if ok {
			r, err := g.resolve(cls)
			if err == nil && r.class != nil {
				if m := r.class.Var(member); m != nil && !m.HasAnnotation && m.Err == nil {
					if kind, err := g.classKind(r.class, 0); err == nil && kind == "enum" {
						return m.Value, nil
					}
				}
			}
		}
	}
	return nil, fmt.Errorf("default %s is not supported", pyjson.Repr(v))
}

// title is pydantic's default field title: str.title() with '_' as ' '.
func title(name string) string {
	var b strings.Builder
	prevCased := false
	for _, r := range name {
		cased := unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)
		switch {
		case cased && !prevCased:
			b.WriteRune(unicode.ToTitle(r))
		case cased:
			b.WriteRune(unicode.ToLower(r))
		case r == '_':
			b.WriteRune(' ')
		default:
			b.WriteRune(r)
		}
		prevCased = cased
	}
	return strings.TrimSpace(b.String())
}

// sortSchema orders keys as pydantic's GenerateJsonSchema.sort does:
// alphabetically, except the keys of "properties" and "default" objects,
// which keep their order.
func sortSchema(v any, parent string) any {
	switch x := v.(type) {
	case *pyjson.Dict:
		keys := slices.Clone(x.Keys)
		if parent != "properties" && parent != "default" {
			slices.Sort(keys)
		}
		out := &pyjson.Dict{}
		for _, k := range keys {
			val, _ := x.Get(k)
			out.Set(k, sortSchema(val, k))
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sortSchema(e, parent)
		}
		return out
	}
	return v
}

// Load reads a toolkit class from upstream source files: the file that
// defines it and the model files its annotations' names come from.
func Load(path, class string, modelPaths ...string) (*Toolkit, error) {
	f, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	var models []*File
	for _, p := range modelPaths {
		m, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		models = append(models, m)
	}
	return NewToolkit(f, class, models...)
}

// Described loads a toolkit class from upstream source (see Load) and
// returns set with its descriptions and parameter schemas (tool.Set.Described).
func Described[S any](set *tool.Set[S], path, class string, modelPaths ...string) (*tool.Set[S], error) {
	kit, err := Load(path, class, modelPaths...)
	if err != nil {
		return nil, err
	}
	out, err := set.Described(kit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ModelSchema is pydantic's Model.model_json_schema() for a model class of
// file (annotations resolved in file, then in models): upstream sends such
// schemas as response formats.
func ModelSchema(file *File, class string, models ...*File) (*pyjson.Dict, error) {
	g := &gen{k: &Toolkit{file: file, models: models}, defs: &pyjson.Dict{}}
	r, err := g.resolve(class)
	if err != nil {
		return nil, err
	}
	if err := g.define(r); err != nil {
		return nil, err
	}
	v, _ := g.defs.Get(class)
	root := v.(*pyjson.Dict)
	if g.defs.Len() > 1 {
		defs := &pyjson.Dict{}
		for i, k := range g.defs.Keys {
			if k != class {
				defs.Set(k, g.defs.Values[i])
			}
		}
		out := &pyjson.Dict{}
		out.Set("$defs", defs)
		for i, k := range root.Keys {
			out.Set(k, root.Values[i])
		}
		root = out
	}
	return sortSchema(root, "").(*pyjson.Dict), nil
}
