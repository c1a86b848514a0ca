package omap

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

func TestOrderAndJSON(t *testing.T) {
	t.Parallel()
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

func TestLazy(t *testing.T) {
	t.Parallel()
	src := `{"z": {"n": 1}, "a": {"n": 2}, "z": {"n": 3}, "m": {"n": 4}}`
	decoded := 0
	decode := func(b []byte) (*struct{ N int }, error) {
		decoded++
		var v struct{ N int }
		err := json.Unmarshal(b, &v)
		return &v, err
	}
	m, err := Lazy([]byte(src), decode)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Keys(), ","); got != "z,a,m" || m.Len() != 3 {
		t.Errorf("keys = %s (len %d); want z,a,m", got, m.Len())
	}
	if decoded != 0 {
		t.Errorf("%d values decoded before use; want 0", decoded)
	}
	v, ok := m.Get("z")
	if !ok || v.N != 3 {
		t.Errorf("Get(z) = %v, %v; want the last duplicate's value 3", v, ok)
	}
	if again, _ := m.Get("z"); again != v || decoded != 1 {
		t.Errorf("a second Get decoded again (%d decodes)", decoded)
	}
	var eager Map[*struct{ N int }]
	if err := json.Unmarshal([]byte(src), &eager); err != nil {
		t.Fatal(err)
	}
	if got, want := pyjson.String(m), pyjson.String(eager); got != want {
		t.Errorf("lazy dump %s; eager dump %s", got, want)
	}
	if decoded != 3 {
		t.Errorf("%d decodes after the dump; want 3", decoded)
	}
	m.Set("b", &struct{ N int }{5})
	m.Delete("a")
	if got := pyjson.String(m); got != `{"z": {"N": 3}, "m": {"N": 4}, "b": {"N": 5}}` {
		t.Errorf("after changes %s", got)
	}
	if _, err := Lazy([]byte(`[1]`), decode); err == nil {
		t.Errorf("Lazy of an array: no error")
	}
}

func TestLazyConcurrent(t *testing.T) {
	t.Parallel()
	m, err := Lazy([]byte(`{"a": 1, "b": 2}`), func(b []byte) (int, error) {
		var n int
		return n, json.Unmarshal(b, &n)
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int)
	for range 8 {
		go func() {
			s := 0
			for _, v := range m.All() {
				s += v
			}
			done <- s
		}()
	}
	for range 8 {
		if s := <-done; s != 3 {
			t.Errorf("sum = %d; want 3", s)
		}
	}
}

func TestLazyBadValuePanics(t *testing.T) {
	t.Parallel()
	m, err := Lazy([]byte(`{"a": "x"}`), func(b []byte) (int, error) {
		var n int
		return n, json.Unmarshal(b, &n)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `"a"`) {
			t.Errorf("recover() = %v; want a panic naming key a", r)
		}
	}()
	m.Get("a")
}
