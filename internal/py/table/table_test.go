package table

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

type rec struct {
	ID   string   `json:"id"`
	Tags []string `json:"tags"`
}

func cloneRec(r *rec) *rec {
	c := *r
	c.Tags = append([]string(nil), r.Tags...)
	return &c
}

func base() *omap.Map[*rec] {
	m := &omap.Map[*rec]{}
	m.Set("a", &rec{ID: "a", Tags: []string{"x"}})
	m.Set("b", &rec{ID: "b"})
	return m
}

func TestCopyOnWrite(t *testing.T) {
	t.Parallel()
	b := base()
	t1 := New(b, cloneRec)
	t2 := New(b, cloneRec)
	r, _ := t1.Mut("a")
	r.Tags = append(r.Tags, "y")
	if orig, _ := b.Get("a"); len(orig.Tags) != 1 {
		t.Fatalf("Mut changed the shared base: %v", orig.Tags)
	}
	if got, _ := t2.Get("a"); len(got.Tags) != 1 {
		t.Fatalf("Mut leaked into another view")
	}
	if Equal(&t1, &t2) {
		t.Errorf("Equal after a change should be false")
	}
	r2, _ := t2.Mut("a")
	r2.Tags = append(r2.Tags, "y")
	if !Equal(&t1, &t2) {
		t.Errorf("Equal after the same change should be true")
	}
	t1.Add("c", &rec{ID: "c"})
	if Equal(&t1, &t2) {
		t.Errorf("Equal with an extra record should be false")
	}
	t2.Add("c", &rec{ID: "c"})
	if !Equal(&t1, &t2) {
		t.Errorf("Equal after the same add should be true")
	}
	if got, want := pyjson.String(t1), `{"a": {"id": "a", "tags": ["x", "y"]}, "b": {"id": "b", "tags": []}, "c": {"id": "c", "tags": []}}`; got != want {
		t.Errorf("dump = %s; want %s", got, want)
	}
	if t1.Len() != 3 || !t1.Has("c") || t1.Has("z") {
		t.Errorf("Len/Has wrong")
	}
	if _, ok := t1.Mut("z"); ok {
		t.Errorf("Mut of a missing key succeeded")
	}
}

// TestSnapshot: a snapshot keeps the view's records in order and shares only
// the untouched base records; later changes to the view do not reach it.
func TestSnapshot(t *testing.T) {
	t.Parallel()
	b := base()
	v := New(b, cloneRec)
	r, _ := v.Mut("a")
	r.Tags = append(r.Tags, "y")
	v.Add("c", &rec{ID: "c"})
	snap := v.Snapshot()
	if got, want := pyjson.String(&snap), `{"a": {"id": "a", "tags": ["x", "y"]}, "b": {"id": "b", "tags": []}, "c": {"id": "c", "tags": []}}`; got != want {
		t.Errorf("snapshot = %s; want %s", got, want)
	}
	r.Tags = append(r.Tags, "z")
	if a, _ := snap.Get("a"); len(a.Tags) != 2 {
		t.Errorf("a change after Snapshot reached it: %v", a.Tags)
	}
	sb, _ := snap.Get("b")
	bb, _ := b.Get("b")
	if sb != bb {
		t.Errorf("an untouched record was copied")
	}
}

func BenchmarkNewView(b *testing.B) {
	m := base()
	b.ReportAllocs()
	for b.Loop() {
		v := New(m, cloneRec)
		_, _ = v.Get("a")
	}
}
