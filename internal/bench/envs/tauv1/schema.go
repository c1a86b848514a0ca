package tauv1

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
)

// ToolsDir is the folder of upstream's tool modules inside a domain folder;
// each tool lives in <name>.py and describes itself in get_info().
const ToolsDir = "tools"

// Schema is one tool's function schema as upstream's get_info() returns it.
type Schema struct {
	Name        string
	Description string
	// Parameters is the JSON of get_info()["function"]["parameters"], keys
	// in source order.
	Parameters json.RawMessage
}

// Def names one upstream tool: its function name (and module file
// <Name>.py) and its class.
type Def struct {
	Name, Class string
}

// LoadSchemas reads the get_info() dict of every tool of defs, in order,
// from the pulled tool modules under dir (the domain folder). A missing
// file, a get_info that is not a literal or a dict not shaped
// {"type": "function", "function": {"name", "description", "parameters"}}
// is an error naming the file and the symbol; domain prefixes it.
func LoadSchemas(domain, dir string, defs []Def) ([]Schema, error) {
	out := make([]Schema, len(defs))
	for i, def := range defs {
		path := filepath.Join(dir, ToolsDir, def.Name+".py")
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: tool schema of %s: %w", domain, def.Name, err)
		}
		s, err := ParseSchema(src, def.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %s.get_info: %w", domain, path, def.Class, err)
		}
		out[i] = s
	}
	return out, nil
}

// ParseSchema reads the get_info() dict of one tool module.
func ParseSchema(src []byte, name string) (Schema, error) {
	r, err := pyliteral.FuncReturn(src, "get_info")
	if err != nil {
		return Schema{}, err
	}
	top, ok := r.Value.(*pyjson.Dict)
	if !ok || !slices.Equal(top.Keys, []string{"type", "function"}) {
		return Schema{}, fmt.Errorf("line %d: want a dict with keys type, function", r.Line)
	}
	if typ, _ := top.Get("type"); typ != "function" {
		return Schema{}, fmt.Errorf("line %d: type is %v, want \"function\"", r.Line, typ)
	}
	fv, _ := top.Get("function")
	fn, ok := fv.(*pyjson.Dict)
	if !ok || !slices.Equal(fn.Keys, []string{"name", "description", "parameters"}) {
		return Schema{}, fmt.Errorf("line %d: function: want a dict with keys name, description, parameters", r.Line)
	}
	nv, _ := fn.Get("name")
	dv, _ := fn.Get("description")
	pv, _ := fn.Get("parameters")
	n, _ := nv.(string)
	desc, okDesc := dv.(string)
	params, okParams := pv.(*pyjson.Dict)
	switch {
	case n != name:
		return Schema{}, fmt.Errorf("line %d: function name %q, want %q", r.Line, n, name)
	case !okDesc:
		return Schema{}, fmt.Errorf("line %d: description is not a string", r.Line)
	case !okParams:
		return Schema{}, fmt.Errorf("line %d: parameters is not a dict", r.Line)
	}
	raw, err := params.MarshalJSON()
	if err != nil {
		return Schema{}, fmt.Errorf("line %d: parameters: %w", r.Line, err)
	}
	return Schema{Name: n, Description: desc, Parameters: raw}, nil
}

// Describe returns a copy of the toolkit whose tools show the model the
// schemas (in the toolkit's order), checking that they declare the
// parameters the tools take (tool.Set.Described). The kinds, which get_info
// does not state, are the tools' own.
func Describe[S any](tools *tool.Set[S], schemas []Schema) (*tool.Set[S], error) {
	return tools.Described(schemaSource[S]{schemas: schemas, tools: tools})
}

type schemaSource[S any] struct {
	schemas []Schema
	tools   *tool.Set[S]
}

func (s schemaSource[S]) Names() []string {
	names := make([]string, len(s.schemas))
	for i, sc := range s.schemas {
		names[i] = sc.Name
	}
	return names
}

func (s schemaSource[S]) Spec(name string) (tool.Spec, error) {
	for _, sc := range s.schemas {
		if sc.Name == name {
			info, _ := s.tools.Lookup(name)
			return tool.Spec{Kind: info.Kind, Description: sc.Description, Parameters: sc.Parameters}, nil
		}
	}
	return tool.Spec{}, fmt.Errorf("no schema for tool %s", name)
}
