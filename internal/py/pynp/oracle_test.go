package pynp

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
)

// TestOracle compares pynp with numpy itself over the reference BLAS
// (Debian's libblas3; LD_LIBRARY_PATH picks it when the system's libblas
// alternative is OpenBLAS, whose dot products differ in the last bits):
//
//	LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas \
//	LEDGERBENCH_NUMPY_ORACLE="/usr/bin/python3 testdata/oracle/numpy_oracle.py" \
//	go test ./internal/py/pynp -run Oracle
//
// skipped unless LEDGERBENCH_NUMPY_ORACLE is set.
func TestOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_NUMPY_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_NUMPY_ORACLE not set")
	}
	r := rand.New(rand.NewPCG(5, 6))
	var arrays [][]float64
	for i := range 400 {
		n := []int{0, 1, 2, 5, 15, 16, 17, 31, 100, 128, 129, 698, 1000, 3000}[i%14]
		a := make([]float64, n)
		distinct := []int{2, 3, 10, 1 << 30}[r.IntN(4)] // many ties, or none
		for j := range a {
			a[j] = float64(r.IntN(distinct)) / 7
			if distinct > 1000 {
				a[j] = r.NormFloat64()
			}
		}
		if i%50 == 7 { // sorted and reversed inputs
			slices.Sort(a)
			if i%100 == 7 {
				slices.Reverse(a)
			}
		}
		arrays = append(arrays, a)
	}
	var pairs [][2][]float64
	for range 100 {
		n := 1 + r.IntN(3100)
		a, b := make([]float64, n), make([]float64, n)
		for j := range a {
			a[j], b[j] = r.NormFloat64(), r.NormFloat64()
		}
		pairs = append(pairs, [2][]float64{a, b})
	}
	var want struct {
		Argsort [][]int  `json:"argsort"`
		Sum     []string `json:"sum"`
		Dot     []string `json:"dot"`
		Norm    []string `json:"norm"`
		Version string   `json:"version"`
	}
	oracletest.JSON(t, cmdline, map[string]any{"arrays": arrays, "pairs": pairs}, &want)
	hex := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
	bad := 0
	for i, a := range arrays {
		if got := Argsort(a); !slices.Equal(got, want.Argsort[i]) {
			bad++
			t.Errorf("argsort of %d values (%v…): differs", len(a), a[:min(5, len(a))])
		}
		if got := PairwiseSum(a); got != hex(want.Sum[i]) {
			t.Errorf("sum of %d values: %v; numpy %v", len(a), got, hex(want.Sum[i]))
		}
	}
	for i, p := range pairs {
		if got := Dot(p[0], p[1]); got != hex(want.Dot[i]) {
			t.Errorf("dot of %d: %v; numpy %v", len(p[0]), got, hex(want.Dot[i]))
		}
		if got := math.Sqrt(Dot(p[0], p[0])); got != hex(want.Norm[i]) {
			t.Errorf("norm of %d: %v; numpy %v", len(p[0]), got, hex(want.Norm[i]))
		}
	}
	t.Logf("numpy %s: %d/%d argsorts, %d sums, %d dots and norms compared", want.Version, len(arrays)-bad, len(arrays), len(arrays), len(pairs))
}
