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

// ToolsDir is the folder of upstream's tool modules inside an environment's
// folder; each tool lives in <name>.py and describes itself in get_info().
const ToolsDir = "tools"

// Schema is one tool's function schema as upstream's get_info() returns it.
type Schema struct {
	Name        string
	Description string
	// Parameters is the JSON of get_info()["function"]["parameters"], keys
	// in source order.
	Parameters json.RawMessage
}

// ParseSchema reads the get_info() dict of one tool module: a literal
// {"type": "function", "function": {"name", "description", "parameters"}}
// whose name is name.
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

// Tool names one upstream tool: its function name (its module is
// tools/<Name>.py) and its class.
type Tool struct {
	Name, Class string
}

// LoadSchemas reads the get_info() dict of every tool from the pulled tool
// modules under dir (an environment's folder), in the order given. A missing
// file, a get_info that is not a literal or a dict of the wrong shape is an
// error naming the file and the symbol.
func LoadSchemas(dir string, tools []Tool) ([]Schema, error) {
	out := make([]Schema, len(tools))
	for i, t := range tools {
		path := filepath.Join(dir, ToolsDir, t.Name+".py")
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("tool schema of %s: %w", t.Name, err)
		}
		s, err := ParseSchema(src, t.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: %s.get_info: %w", path, t.Class, err)
		}
		out[i] = s
	}
	return out, nil
}

// CheckToolOrder checks that tools/__init__.py under dir lists the tool
// classes in ALL_TOOLS in the given order (the order upstream shows the
// model its tools).
func CheckToolOrder(dir string, tools []Tool) error {
	path := filepath.Join(dir, ToolsDir, "__init__.py")
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("tool list: %w", err)
	}
	m, err := pyliteral.ReadModule(src)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	v := m.Var("ALL_TOOLS")
	if v == nil || v.Err != nil {
		return fmt.Errorf("%s: no ALL_TOOLS = [...] list of tool classes", path)
	}
	list, ok := v.Value.([]any)
	if !ok {
		return fmt.Errorf("%s: line %d: ALL_TOOLS is not a list", path, v.Line)
	}
	var got, want []string
	for _, it := range list {
		n, ok := it.(*pyliteral.Name)
		if !ok {
			return fmt.Errorf("%s: line %d: ALL_TOOLS holds something other than a class name", path, v.Line)
		}
		got = append(got, n.Dotted)
	}
	for _, t := range tools {
		want = append(want, t.Class)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("%s: ALL_TOOLS is %v; this port has %v", path, got, want)
	}
	return nil
}

// SchemaSource is upstream's get_info() schemas as a tool.Source for
// tool.Set.Described; the kinds (which get_info does not state) are the
// set's own.
type SchemaSource[S any] struct {
	Schemas []Schema
	Tools   *tool.Set[S]
}

// Names lists the tools in schema order.
func (s SchemaSource[S]) Names() []string {
	names := make([]string, len(s.Schemas))
	for i, sc := range s.Schemas {
		names[i] = sc.Name
	}
	return names
}

// Spec returns one tool's description and parameters with the set's kind.
func (s SchemaSource[S]) Spec(name string) (tool.Spec, error) {
	for _, sc := range s.Schemas {
		if sc.Name == name {
			info, _ := s.Tools.Lookup(name)
			return tool.Spec{Kind: info.Kind, Description: sc.Description, Parameters: sc.Parameters}, nil
		}
	}
	return tool.Spec{}, fmt.Errorf("no schema for tool %s", name)
}
