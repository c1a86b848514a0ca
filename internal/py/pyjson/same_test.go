package pyjson

import (
	"encoding/json"
	"math"
	"testing"
)

type sameInner struct {
	F    float64
	P    *string
	L    []int
	hide any // unexported: the encoder skips it, sameValue compares it
}

type sameOuter struct {
	Name  string
	In    sameInner
	Ptr   *sameInner
	Any   any
	Raw   json.RawMessage
	Map   map[string]int
	Dump  sameDumped
	Array [2]bool
}

// sameDumped encodes itself from its unexported state.
type sameDumped struct{ v int }

func (d sameDumped) EncodePy(e *Encoder) { e.Value(d.v * 2) }

// TestSameDumpIsDumpEquality: SameDump agrees with comparing the dumps on
// values that are the same, that differ, and that differ while dumping the
// same.
func TestSameDumpIsDumpEquality(t *testing.T) {
	t.Parallel()
	s1, s2 := "x", "x"
	base := func() sameOuter {
		return sameOuter{Name: "n", In: sameInner{F: 1.5, P: &s1, L: []int{1, 2}}, Ptr: &sameInner{F: 2, P: &s2}, Any: 3.0,
			Raw: json.RawMessage(`{"a": 1}`), Dump: sameDumped{v: 1}, Array: [2]bool{true, false}}
	}
	cases := []struct {
		name string
		edit func(*sameOuter)
		same bool // the dumps are equal
	}{
		{"identical", func(*sameOuter) {}, true},
		{"equal pointee", func(o *sameOuter) { s := "x"; o.In.P = &s }, true},
		{"string", func(o *sameOuter) { o.Name = "m" }, false},
		{"negative zero", func(o *sameOuter) { o.In.F = math.Copysign(0, -1) }, false},
		{"NaN", func(o *sameOuter) { o.In.F = math.NaN() }, false},
		{"nil list", func(o *sameOuter) { o.In.L = nil }, false},
		{"empty list and nil", func(o *sameOuter) { o.Ptr.L = []int{} }, true},
		{"nil pointer", func(o *sameOuter) { o.Ptr = nil }, false},
		{"interface int for float", func(o *sameOuter) { o.Any = 3 }, false},
		{"raw bytes", func(o *sameOuter) { o.Raw = json.RawMessage(`{"a": 2}`) }, false},
		{"map", func(o *sameOuter) { o.Map = map[string]int{"k": 1} }, false},
		{"dumped state", func(o *sameOuter) { o.Dump.v = 2 }, false},
		{"unexported only", func(o *sameOuter) { o.In.hide = 1 }, true},
		{"array", func(o *sameOuter) { o.Array[1] = true }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := base(), base()
			tc.edit(&b)
			want := String(&a) == String(&b)
			if want != tc.same {
				t.Fatalf("case is wrong: dumps equal %v", want)
			}
			if got := SameDump(&a, &b); got != want {
				t.Errorf("SameDump = %v, dumps equal %v", got, want)
			}
			if got := SameDump(&b, &a); got != want {
				t.Errorf("SameDump (swapped) = %v, dumps equal %v", got, want)
			}
		})
	}
	// NaN is the same dump as itself, bit for bit.
	n := sameInner{F: math.NaN()}
	if !SameDump(&n, &sameInner{F: math.NaN()}) {
		t.Error("NaN: SameDump false, dumps equal")
	}
}
