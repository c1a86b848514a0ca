package retail

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/data"
	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/tool"
)

// upstreamTool is one entry of derived/tool_schemas.json.
type upstreamTool struct {
	Name         string `json:"name"`
	Type         string `json:"type"`
	MutatesState bool   `json:"mutates_state"`
	Schema       struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"schema"`
}

// paramShape is what must match: parameter names in order, their resolved
// types, and the required set.
type paramShape struct {
	Names    []string
	Types    []string
	Required []string
}

func shapeOf(t *testing.T, raw json.RawMessage) paramShape {
	t.Helper()
	var s struct {
		Properties orderedProps               `json:"properties"`
		Required   []string                   `json:"required"`
		Defs       map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	var sh paramShape
	for _, p := range s.Properties {
		sh.Names = append(sh.Names, p.name)
		sh.Types = append(sh.Types, typeOf(t, p.schema, s.Defs))
	}
	sh.Required = s.Required
	if sh.Required == nil {
		sh.Required = []string{}
	}
	return sh
}

type prop struct {
	name   string
	schema json.RawMessage
}

type orderedProps []prop

func (o *orderedProps) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*o = append(*o, prop{k.(string), v})
	}
	return nil
}

// typeOf renders a property schema's type, resolving $ref and anyOf, e.g.
// "string", "array<string>", "string|null".
func typeOf(t *testing.T, raw json.RawMessage, defs map[string]json.RawMessage) string {
	t.Helper()
	var s struct {
		Type  string            `json:"type"`
		Items json.RawMessage   `json:"items"`
		Ref   string            `json:"$ref"`
		AnyOf []json.RawMessage `json:"anyOf"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	switch {
	case s.Ref != "":
		return typeOf(t, defs[strings.TrimPrefix(s.Ref, "#/$defs/")], defs)
	case len(s.AnyOf) > 0:
		var parts []string
		for _, a := range s.AnyOf {
			parts = append(parts, typeOf(t, a, defs))
		}
		return strings.Join(parts, "|")
	case s.Type == "array":
		return "array<" + typeOf(t, s.Items, defs) + ">"
	}
	return s.Type
}

func TestToolSchemasMatchUpstream(t *testing.T) {
	path := filepath.Join(datatest.Root(t), data.Tau2, "derived", "tool_schemas.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]map[string][]upstreamTool
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	want := all["retail"]["assistant"]
	if len(all["retail"]["user"]) != 0 {
		t.Errorf("upstream has retail user tools; we have none")
	}
	d := New(&DB{}, "", nil)
	got := d.AgentTools()
	if len(got) != len(want) {
		t.Fatalf("got %d tools; want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.Name {
			t.Errorf("tool %d: name %q; want %q", i, g.Name, w.Name)
			continue
		}
		if string(g.Kind) != w.Type || g.Mutates() != w.MutatesState {
			t.Errorf("%s: kind %s (mutates %v); want %s (mutates %v)", g.Name, g.Kind, g.Mutates(), w.Type, w.MutatesState)
		}
		if gs, ws := shapeOf(t, g.Parameters), shapeOf(t, w.Schema.Function.Parameters); !reflect.DeepEqual(gs, ws) {
			t.Errorf("%s: parameters %+v; want %+v", g.Name, gs, ws)
		}
		var params []string
		for _, p := range g.Params {
			params = append(params, p.Name)
		}
		if ws := shapeOf(t, w.Schema.Function.Parameters); !reflect.DeepEqual(params, ws.Names) && !(len(params) == 0 && len(ws.Names) == 0) {
			t.Errorf("%s: Params %v; want %v", g.Name, params, ws.Names)
		}
		if g.Description == "" || g.Description == w.Name {
			t.Errorf("%s: missing description", g.Name)
		}
		var fn struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(g.OpenAISchema(), &fn); err != nil || fn.Function.Name != g.Name {
			t.Errorf("%s: OpenAISchema %s (%v)", g.Name, g.OpenAISchema(), err)
		}
	}
}

func TestToolKinds(t *testing.T) {
	d := New(&DB{}, "", nil)
	writes := map[string]bool{
		"cancel_pending_order": true, "exchange_delivered_order_items": true, "modify_pending_order_address": true,
		"modify_pending_order_items": true, "modify_pending_order_payment": true, "modify_user_address": true,
		"return_delivered_order_items": true,
	}
	for _, info := range d.AgentTools() {
		if info.Mutates() != writes[info.Name] {
			t.Errorf("%s: Mutates() = %v", info.Name, info.Mutates())
		}
		if info.Kind == tool.Think {
			t.Errorf("%s: no retail tool is a think tool", info.Name)
		}
	}
}
