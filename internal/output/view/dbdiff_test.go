package view

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

func TestDiffRaw(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, got, want string
		lines           []string
	}{
		{"equal", `{"a":{"b":1}}`, `{"a":{"b":1}}`, nil},
		{"changed field", `{"users":{"u1":{"name":"x","age":3}}}`, `{"users":{"u1":{"name":"y","age":3}}}`,
			[]string{`db.users.u1.name: got "x", gold "y"`}},
		{"missing and extra", `{"t":{"b":2,"c":3}}`, `{"t":{"a":1,"b":2}}`,
			[]string{"db.t.a: missing, gold 1", "db.t.c: extra 3"}},
		{"array elements", `{"l":[1,2,3]}`, `{"l":[1,5,3]}`, []string{"db.l[1]: got 2, gold 5"}},
		{"array lengths", `{"l":[1,2]}`, `{"l":[1]}`, []string{"db.l: got [1,2], gold [1]"}},
		{"same number, other spelling", `{"n":1.0}`, `{"n":1}`, nil},
		{"object against array", `{"v":{}}`, `{"v":[]}`, []string{"db.v: got {}, gold []"}},
		{"null table", `{"v":null}`, `{"v":{}}`, []string{"db.v: got null, gold {}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out []string
			diffRaw("db", &jsonNode{raw: []byte(tc.got)}, &jsonNode{raw: []byte(tc.want)}, &out)
			if !slices.Equal(out, tc.lines) {
				t.Errorf("diff = %q; want %q", out, tc.lines)
			}
		})
	}
}

// dbPair is a database of two tables of n records and a copy of it with
// three records changed.
func dbPair(n int) (got, want []byte) {
	db := func(changed bool) []byte {
		users, orders := map[string]any{}, map[string]any{}
		for i := range n {
			u := map[string]any{"name": fmt.Sprintf("user %d", i), "address": map[string]any{"city": "Paris", "zip": "75001"}, "orders": []string{fmt.Sprintf("o%d", i)}}
			o := map[string]any{"status": "pending", "items": []map[string]any{{"id": i, "price": 12.5}}}
			if changed && (i == 1 || i == n/2 || i == n-1) {
				o["status"] = "cancelled"
			}
			users[fmt.Sprintf("u%d", i)], orders[fmt.Sprintf("o%d", i)] = u, o
		}
		b, _ := json.Marshal(map[string]any{"users": users, "orders": orders})
		return b
	}
	return db(true), db(false)
}

// BenchmarkDBDiff diffs a simulation's database against a gold one of a
// thousand records a table, as view does for each failed simulation; the
// gold is split once and reused, as for the trials of one task.
func BenchmarkDBDiff(b *testing.B) {
	got, want := dbPair(1000)
	gold := &jsonNode{raw: want}
	b.SetBytes(int64(len(got)))
	for b.Loop() {
		var out []string
		diffRaw("db", &jsonNode{raw: got}, gold, &out)
		if len(out) != 3 {
			b.Fatalf("%d differences; want 3", len(out))
		}
	}
}
