package telehealth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
)

// ToolsDir is the folder of upstream's tool modules inside the telehealth
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

// LoadSchemas reads the get_info() dict of every tool, in ALL_TOOLS order,
// from the pulled tool modules under dir (the telehealth folder). A missing
// file, a get_info that is not a literal or a dict not shaped
// {"type": "function", "function": {"name", "description", "parameters"}}
// is an error naming the file and the symbol.
func LoadSchemas(dir string) ([]Schema, error) {
	defs := newTools()
	out := make([]Schema, len(defs))
	for i, def := range defs {
		path := filepath.Join(dir, ToolsDir, def.tool.Name+".py")
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("telehealth: tool schema of %s: %w", def.tool.Name, err)
		}
		s, err := parseSchema(src, def.tool.Name)
		if err != nil {
			return nil, fmt.Errorf("telehealth: %s: %s.get_info: %w", path, def.class, err)
		}
		out[i] = s
	}
	return out, nil
}

// parseSchema reads the get_info() dict of one tool module.
func parseSchema(src []byte, name string) (Schema, error) {
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
