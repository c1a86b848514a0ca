package omap

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/pyjson"
)

func TestOrderAndJSON(t *testing.T) {
	var m Map[int]
	if err := json.Unmarshal([]byte(`{"z": 1, "a": 2, "m": 3}`), &m); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Keys(), ","); got != "z,a,m" {
		t.Errorf("keys = %s", got)
	}
	m.Set("a", 20)
	m.Set("b", 4)
	m.Delete("z")
	if got := pyjson.String(m); got != `{"a": 20, "m": 3, "b": 4}` {
		t.Errorf("pyjson = %s", got)
	}
	b, _ := json.Marshal(m)
	if string(b) != `{"a":20,"m":3,"b":4}` {
		t.Errorf("json = %s", b)
	}
	c := m.Clone(func(v int) int { return v * 10 })
	c.Set("a", 0)
	if v, _ := m.Get("a"); v != 20 {
		t.Errorf("clone shares storage")
	}
	if v, _ := c.Get("m"); v != 30 {
		t.Errorf("clone value = %d", v)
	}
	var n Map[int]
	if err := json.Unmarshal([]byte(`[1]`), &n); err == nil {
		t.Errorf("array accepted as an object")
	}
	if err := json.Unmarshal([]byte(`null`), &n); err != nil || n.Len() != 0 {
		t.Errorf("null: %v %d", err, n.Len())
	}
}
