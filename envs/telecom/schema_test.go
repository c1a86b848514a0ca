package telecom

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/data"
	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/tool"
)

type upstreamTool struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Mutates  bool   `json:"mutates_state"`
	Function struct {
		Function struct {
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"schema"`
}

// paramSchema is the part of a parameters schema the comparison reads.
type paramSchema struct {
	Defs       map[string]json.RawMessage `json:"$defs"`
	Properties orderedProps               `json:"properties"`
	Required   []string                   `json:"required"`
}

// orderedProps keeps property names in order.
type orderedProps struct {
	names []string
	raw   map[string]json.RawMessage
}

func (o *orderedProps) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &o.raw); err != nil {
		return err
	}
	dec := json.NewDecoder(bytesReader(b))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		o.names = append(o.names, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// types resolves a property schema to its set of JSON types, following
// $ref into $defs and taking the union over anyOf.
func types(raw json.RawMessage, defs map[string]json.RawMessage) []string {
	var s struct {
		Type  any               `json:"type"`
		Ref   string            `json:"$ref"`
		AnyOf []json.RawMessage `json:"anyOf"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return []string{"<invalid>"}
	}
	var out []string
	switch t := s.Type.(type) {
	case string:
		out = append(out, t)
	case []any:
		for _, x := range t {
			out = append(out, x.(string))
		}
	}
	if s.Ref != "" {
		out = append(out, types(defs[filepath.Base(s.Ref)], defs)...)
	}
	for _, a := range s.AnyOf {
		out = append(out, types(a, defs)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestToolSchemas checks names, order, kinds, parameter names and order,
// resolved types and required sets against upstream's schemas, and that the
// descriptions are our own.
func TestToolSchemas(t *testing.T) {
	d := domainForTest(t)
	b, err := os.ReadFile(filepath.Join(datatest.Root(t), data.Tau2, "derived", "tool_schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]map[string][]upstreamTool
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	for side, ours := range map[string][]tool.Info{"assistant": d.AgentTools(), "user": d.UserTools()} {
		want := all["telecom"][side]
		if len(ours) != len(want) {
			t.Fatalf("%s: %d tools; upstream has %d", side, len(ours), len(want))
		}
		for i, w := range want {
			g := ours[i]
			if g.Name != w.Name {
				t.Errorf("%s tool %d: name %q; upstream %q", side, i, g.Name, w.Name)
				continue
			}
			if string(g.Kind) != w.Type || g.Mutates() != w.Mutates {
				t.Errorf("%s: kind %s (mutates %v); upstream %s (%v)", g.Name, g.Kind, g.Mutates(), w.Type, w.Mutates)
			}
			if g.Description == w.Function.Function.Description {
				t.Errorf("%s: description is upstream's text; write our own", g.Name)
			}
			var gs, ws paramSchema
			if err := json.Unmarshal(g.Parameters, &gs); err != nil {
				t.Fatalf("%s: our schema: %v", g.Name, err)
			}
			if err := json.Unmarshal(w.Function.Function.Parameters, &ws); err != nil {
				t.Fatalf("%s: upstream schema: %v", g.Name, err)
			}
			if !slices.Equal(gs.Properties.names, ws.Properties.names) {
				t.Errorf("%s: parameters %v; upstream %v", g.Name, gs.Properties.names, ws.Properties.names)
				continue
			}
			var paramNames []string
			for _, p := range g.Params {
				paramNames = append(paramNames, p.Name)
			}
			if !slices.Equal(paramNames, ws.Properties.names) {
				t.Errorf("%s: call parameters %v; upstream %v", g.Name, paramNames, ws.Properties.names)
			}
			for _, p := range ws.Properties.names {
				gt, wt := types(gs.Properties.raw[p], gs.Defs), types(ws.Properties.raw[p], ws.Defs)
				if !slices.Equal(gt, wt) {
					t.Errorf("%s.%s: types %v; upstream %v", g.Name, p, gt, wt)
				}
			}
			gr, wr := slices.Sorted(slices.Values(gs.Required)), slices.Sorted(slices.Values(ws.Required))
			if !slices.Equal(gr, wr) {
				t.Errorf("%s: required %v; upstream %v", g.Name, gr, wr)
			}
		}
	}
}
