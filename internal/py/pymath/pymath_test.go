package pymath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
)

// bigLog is ln(x) to 300 bits: x = m·2^e, ln m = 2·atanh((m-1)/(m+1)).
func bigLog(x float64) *big.Float {
	const prec = 300
	m, e := math.Frexp(x)
	bm := new(big.Float).SetPrec(prec).SetFloat64(m)
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	s := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).Sub(bm, one), new(big.Float).SetPrec(prec).Add(bm, one))
	s2 := new(big.Float).SetPrec(prec).Mul(s, s)
	sum := new(big.Float).SetPrec(prec).Set(s)
	term := new(big.Float).SetPrec(prec).Set(s)
	for k := int64(3); k < 400; k += 2 {
		term.Mul(term, s2)
		sum.Add(sum, new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetPrec(prec).SetInt64(k)))
	}
	sum.Mul(sum, new(big.Float).SetPrec(prec).SetInt64(2))
	// ln 2 = 2·atanh(1/3)
	third := new(big.Float).SetPrec(prec).Quo(one, new(big.Float).SetPrec(prec).SetInt64(3))
	t2 := new(big.Float).SetPrec(prec).Mul(third, third)
	ln2 := new(big.Float).SetPrec(prec).Set(third)
	tm := new(big.Float).SetPrec(prec).Set(third)
	for k := int64(3); k < 600; k += 2 {
		tm.Mul(tm, t2)
		ln2.Add(ln2, new(big.Float).SetPrec(prec).Quo(tm, new(big.Float).SetPrec(prec).SetInt64(k)))
	}
	ln2.Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(2))
	return sum.Add(sum, ln2.Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(e))))
}

// TestLogCorrectlyRounded: Log is the float64 nearest the true logarithm
// for rank_bm25's arguments (k + 0.5) and random ones.
func TestLogCorrectlyRounded(t *testing.T) {
	t.Parallel()
	xs := []float64{0.5, 1, 1.5, 2, 698.5, 1e-300, 1e300, math.MaxFloat64, math.SmallestNonzeroFloat64 * 4}
	for k := 0; k < 3000; k += 7 {
		xs = append(xs, float64(k)+0.5)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		xs = append(xs, math.Exp(r.Float64()*200-100))
	}
	for _, x := range xs {
		want, _ := bigLog(x).Float64() // rounds to nearest
		if got := Log(x); got != want {
			t.Errorf("Log(%v) = %v; correctly rounded %v", x, got, want)
		}
	}
	for _, x := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if got, want := Log(x), math.Log(x); !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("Log(%v) = %v; want %v", x, got, want)
		}
	}
}

// TestLogTable: each entry of logTab is ln(k/128) to 300 bits, rounded to
// the nearest double-double.
func TestLogTable(t *testing.T) {
	t.Parallel()
	for i, got := range logTab {
		k := 91 + i
		v := bigLog(float64(k) / 128)
		hi, _ := v.Float64()
		lo, _ := new(big.Float).SetPrec(300).Sub(v, new(big.Float).SetFloat64(hi)).Float64()
		if got != (dd{hi, lo}) {
			t.Errorf("ln(%d/128): %v; want %v", k, got, dd{hi, lo})
		}
	}
}

// TestLogEveryIDFArgument: Log is correctly rounded at every k + 0.5 for
// k below 38,437 (rank_bm25's arguments for a corpus of fewer documents),
// a tenth of them by default, all with LEDGERBENCH_PYMATH_EXHAUSTIVE=1
// (about 15 s of CPU).
func TestLogEveryIDFArgument(t *testing.T) {
	t.Parallel()
	step := 10
	if os.Getenv("LEDGERBENCH_PYMATH_EXHAUSTIVE") != "" {
		step = 1
	}
	const n, workers = 38437, 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := w * step; k < n; k += workers * step {
				x := float64(k) + 0.5
				if want, _ := bigLog(x).Float64(); Log(x) != want {
					t.Errorf("Log(%v) = %v; correctly rounded %v", x, Log(x), want)
				}
			}
		})
	}
	wg.Wait()
}
