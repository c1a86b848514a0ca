package view

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Shapes of database values the walk must follow as encoding/json encodes
// them, and shapes it must leave to the encoding (custom marshalers,
// embedded fields, tag options, maps, []byte).

type diffRecord struct {
	Status  string            `json:"status"`
	Amount  float64           `json:"amount,omitempty"`
	Items   []string          `json:"items"`
	Tags    []string          `json:"tags,omitempty"`
	Note    *string           `json:"note,omitempty"`
	Meta    map[string]int    `json:"meta,omitempty"`
	Blob    []byte            `json:"blob,omitempty"`
	Lines   []diffLine        `json:"lines"`
	Nested  omap.Map[string]  `json:"nested"`
	Custom  diffCustom        `json:"custom"`
	Ptr     *diffLine         `json:"ptr"`
	Any     any               `json:"any,omitempty"`
	Counted diffStringCount   `json:"counted"`
	Alias   diffEmbedding     `json:"alias"`
	Named   int               `json:",omitempty"`
	Skipped string            `json:"-"`
	quiet   string            //nolint:unused // an unexported field is not encoded
	Extras  map[string]string `json:"extras"`
}

type diffLine struct {
	Item  string `json:"item"`
	Price int    `json:"price"`
}

// diffCustom encodes by a method (a leaf for the walk).
type diffCustom struct{ V int }

func (c diffCustom) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf(`{"v": %d}`, c.V)), nil }

// diffStringCount has a tag option the walk does not follow (",string").
type diffStringCount struct {
	N int `json:"n,string"`
}

// diffEmbedding promotes an embedded struct's fields.
type diffEmbedding struct {
	diffLine
	Extra string `json:"extra"`
}

type diffDB struct {
	Orders   omap.Map[*diffRecord] `json:"orders"`
	Products omap.Map[*diffLine]   `json:"products"`
	Count    int                   `json:"count"`
}

// diffPyDB encodes as pyjson encodes it (as airline's DB does).
type diffPyDB struct {
	Orders   omap.Map[*diffRecord] `json:"orders"`
	Products omap.Map[*diffLine]   `json:"products,omitempty"`
	Count    int                   `json:"count,omitempty"`
}

func (db *diffPyDB) MarshalJSON() ([]byte, error) { return pyjson.Marshal(db) }
func (*diffPyDB) MarshalsByPyjson()               {}

func pyOf(db *diffDB) *diffPyDB { return &diffPyDB{db.Orders, db.Products, db.Count} }

// reference is the dump-and-compare diff the walk replaces: both values
// encoded whole, then diffRaw.
func reference(path string, got, want any) []string {
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	var out []string
	diffRaw(path, g, w, &out)
	return out
}

func walked(t *testing.T, path string, got, want any) []string {
	t.Helper()
	var out []string
	if err := walk(path, reflect.ValueOf(got), reflect.ValueOf(want), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// randomDB builds a database and a copy on write of it with random
// changes: changed records are new pointers, the others shared.
func randomDB(r *rand.Rand) (got, want *diffDB) {
	str := func() string { return []string{"a", "b", "<c>", "", "pending", "x&y"}[r.IntN(6)] }
	strs := func() []string {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		s := make([]string, r.IntN(3)+1)
		for i := range s {
			s[i] = str()
		}
		return s
	}
	record := func() *diffRecord {
		rec := &diffRecord{Status: str(), Amount: float64(r.IntN(3)) / 2, Items: strs(), Tags: strs(),
			Custom: diffCustom{r.IntN(2)}, Counted: diffStringCount{r.IntN(2)}, Named: r.IntN(2),
			Alias: diffEmbedding{diffLine{str(), r.IntN(2)}, str()}, Skipped: str(), quiet: str()}
		if r.IntN(2) == 0 {
			n := str()
			rec.Note = &n
		}
		if r.IntN(2) == 0 {
			rec.Meta = map[string]int{str(): r.IntN(3)}
		}
		if r.IntN(2) == 0 {
			rec.Blob = []byte(str())
		}
		for range r.IntN(3) {
			rec.Lines = append(rec.Lines, diffLine{str(), r.IntN(3)})
		}
		for range r.IntN(3) {
			rec.Nested.Set(str(), str())
		}
		if r.IntN(2) == 0 {
			rec.Ptr = &diffLine{str(), r.IntN(2)}
		}
		switch r.IntN(3) {
		case 0:
			rec.Any = str()
		case 1:
			rec.Any = []any{1, str()}
		}
		if r.IntN(2) == 0 {
			rec.Extras = map[string]string{str(): str()}
		}
		return rec
	}
	want = &diffDB{Count: r.IntN(2)}
	for i := range r.IntN(6) {
		want.Orders.Set(fmt.Sprintf("#%d", i), record())
	}
	for i := range r.IntN(4) {
		want.Products.Set(fmt.Sprintf("p%d", i), &diffLine{str(), r.IntN(3)})
	}
	got = &diffDB{Count: want.Count}
	if r.IntN(4) == 0 {
		got.Count = r.IntN(2)
	}
	for k, v := range want.Orders.All() {
		switch r.IntN(5) {
		case 0: // deleted
		case 1: // changed
			got.Orders.Set(k, record())
		case 2: // copied unchanged
			c := *v
			got.Orders.Set(k, &c)
		default: // shared
			got.Orders.Set(k, v)
		}
	}
	for i := range r.IntN(2) {
		got.Orders.Set(fmt.Sprintf("#new%d", i), record())
	}
	if r.IntN(2) == 0 {
		got.Products = want.Products
	} else {
		for k, v := range want.Products.All() {
			if r.IntN(3) == 0 {
				v = &diffLine{str(), r.IntN(3)}
			}
			got.Products.Set(k, v)
		}
	}
	return got, want
}

// TestWalkMatchesDumpDiff: on databases copied on write with random
// changes, walking the values gives the lines of encoding both whole and
// comparing the JSON, in the same order, cut at the same place.
func TestWalkMatchesDumpDiff(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	cut := 0
	for i := range 3000 {
		got, want := randomDB(r)
		ref := reference("db", got, want)
		if w := walked(t, "db", got, want); !slices.Equal(w, ref) {
			t.Fatalf("database %d: walk\n  %s\nwant (dump and diff)\n  %s", i, strings.Join(w, "\n  "), strings.Join(ref, "\n  "))
		}
		if len(ref) > maxDiffs {
			cut++
		}
		pg, pw := pyOf(got), pyOf(want)
		if w, ref := walked(t, "db", pg, pw), reference("db", pg, pw); !slices.Equal(w, ref) {
			t.Fatalf("database %d encoded by pyjson: walk\n  %s\nwant (dump and diff)\n  %s", i, strings.Join(w, "\n  "), strings.Join(ref, "\n  "))
		}
	}
	// Values, not pointers, at the top; and nil (a domain without a user
	// database) against nil and against a value.
	g, w := randomDB(r)
	for _, c := range []struct{ got, want any }{{*g, *w}, {nil, nil}, {nil, w}, {g, nil}, {g.Orders, w.Orders}} {
		if got, ref := walked(t, "db", c.got, c.want), reference("db", c.got, c.want); !slices.Equal(got, ref) {
			t.Errorf("%T vs %T: walk %q; want %q", c.got, c.want, got, ref)
		}
	}
	t.Logf("%d of 3000 diffs cut at %d lines", cut, maxDiffs)
}

// TestWalkCutsLongDiffs: a diff longer than maxDiffs ends with the same
// marker after the same lines.
func TestWalkCutsLongDiffs(t *testing.T) {
	t.Parallel()
	want, got := &diffDB{}, &diffDB{}
	for i := range 3 * maxDiffs {
		k := fmt.Sprintf("#%03d", i)
		want.Orders.Set(k, &diffRecord{Status: "a"})
		got.Orders.Set(k, &diffRecord{Status: "b"})
	}
	w, ref := walked(t, "db", got, want), reference("db", got, want)
	if !slices.Equal(w, ref) || len(w) != maxDiffs+1 || !strings.HasPrefix(w[maxDiffs], "…") {
		t.Fatalf("walk %d lines (last %q); want the dump diff's %d", len(w), w[len(w)-1], len(ref))
	}
}
