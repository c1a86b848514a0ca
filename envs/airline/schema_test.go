package airline

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/data"
	"github.com/ledgerbench/ledgerbench/internal/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/pyjson"
)

// TestSchemas compares the tools with upstream's schemas as sent to the model
// (derived/tool_schemas.json): names and order, kinds, mutation flags, and
// per parameter the name, order, type structure ($ref and anyOf resolved),
// enums and required set. Descriptions are ours and not compared.
func TestSchemas(t *testing.T) {
	d := testDomain(t)
	path := filepath.Join(datatest.Root(t), data.Tau2, "derived", "tool_schemas.json")
	var all map[string]struct {
		Assistant []struct {
			Name    string          `json:"name"`
			Type    string          `json:"type"`
			Mutates bool            `json:"mutates_state"`
			Schema  json.RawMessage `json:"schema"`
		} `json:"assistant"`
		User []json.RawMessage `json:"user"`
	}
	readJSON(t, path, &all)
	up := all[Name]
	if len(up.User) != 0 || d.UserTools() != nil {
		t.Errorf("user tools: upstream %d, ours %d; want none", len(up.User), len(d.UserTools()))
	}
	ours := d.AgentTools()
	if len(ours) != len(up.Assistant) {
		t.Fatalf("%d tools; upstream has %d", len(ours), len(up.Assistant))
	}
	for i, u := range up.Assistant {
		o := ours[i]
		if o.Name != u.Name {
			t.Errorf("tool %d is %s; upstream %s", i, o.Name, u.Name)
			continue
		}
		if string(o.Kind) != u.Type || o.Mutates() != u.Mutates {
			t.Errorf("%s: kind %s mutates %v; upstream %s %v", o.Name, o.Kind, o.Mutates(), u.Type, u.Mutates)
		}
		var fn struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(u.Schema, &fn); err != nil {
			t.Fatal(err)
		}
		if o.Description == "" || o.Description == fn.Function.Description {
			t.Errorf("%s: description must be our own words", o.Name)
		}
		want := structure(t, fn.Function.Parameters)
		got := structure(t, o.Parameters)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s parameters:\n got %s\nwant %s", o.Name, pyjson.String(got), pyjson.String(want))
		}
		// The OpenAI wrapper is well formed.
		var wrap struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(o.OpenAISchema(), &wrap); err != nil || wrap.Type != "function" || wrap.Function.Name != o.Name {
			t.Errorf("%s: OpenAISchema = %s (%v)", o.Name, o.OpenAISchema(), err)
		}
	}
}

// structure reduces a JSON schema to what must match: types, property names
// in order, items, anyOf alternatives, enums, required names and
// additionalProperties, with $refs into $defs resolved.
func structure(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	v, err := pyjson.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := v.(*pyjson.Dict)
	defs, _ := root.Get("$defs")
	var walk func(any) any
	walk = func(n any) any {
		d, ok := n.(*pyjson.Dict)
		if !ok {
			return n
		}
		if ref, ok := d.Get("$ref"); ok {
			name := strings.TrimPrefix(ref.(string), "#/$defs/")
			def, ok := defs.(*pyjson.Dict).Get(name)
			if !ok {
				t.Fatalf("unresolved $ref %s", ref)
			}
			return walk(def)
		}
		out := map[string]any{}
		for i, k := range d.Keys {
			val := d.Values[i]
			switch k {
			case "type", "enum", "additionalProperties":
				out[k] = pyjson.String(val)
			case "required":
				out[k] = pyjson.String(val)
			case "items":
				out[k] = walk(val)
			case "anyOf":
				var alts []any
				for _, a := range val.([]any) {
					alts = append(alts, walk(a))
				}
				out[k] = alts
			case "properties":
				var props [][2]any
				p := val.(*pyjson.Dict)
				for j, name := range p.Keys {
					props = append(props, [2]any{name, walk(p.Values[j])})
				}
				out[k] = props
			}
		}
		return out
	}
	return walk(root)
}
