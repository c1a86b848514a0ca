package pycalc

import (
	"math"
	"math/big"
)

// pow returns x**y correctly rounded, for finite x > 0 and finite y != 0.
// CPython calls the C library's pow, which on glibc is accurate to about
// half an ulp; Go's math.Pow is not, and its last digit shows in repr.
// Integer powers are computed exactly when small enough; everything else
// goes through exp(y*ln x) at 256 bits.
func pow(x, y float64) float64 {
	const prec = 256
	if y == math.Trunc(y) && math.Abs(y) <= 1<<20 {
		n := int64(math.Abs(y))
		// Exact when the result has at most a few thousand bits.
		p := uint(prec)
		if exact := 53 * uint64(n); exact <= 8192 {
			p = uint(exact) + 64
		}
		r := new(big.Float).SetPrec(p).SetInt64(1)
		b := new(big.Float).SetPrec(p).SetFloat64(x)
		for k := n; k > 0; k >>= 1 {
			if k&1 == 1 {
				r.Mul(r, b)
			}
			if k > 1 {
				b.Mul(b, b)
			}
		}
		if y < 0 {
			r = new(big.Float).SetPrec(p).Quo(new(big.Float).SetPrec(p).SetInt64(1), r)
		}
		f, _ := r.Float64()
		return f
	}
	lx := bigLog(new(big.Float).SetPrec(prec).SetFloat64(x), prec)
	t := lx.Mul(lx, new(big.Float).SetPrec(prec).SetFloat64(y))
	// Out of float64 range either way: let the caller see inf or 0.
	if tf, _ := t.Float64(); tf > 710 {
		return math.Inf(1)
	} else if tf < -746 {
		return 0
	}
	f, _ := bigExp(t, prec).Float64()
	return f
}

// bigLog returns ln(x) for x > 0.
func bigLog(x *big.Float, prec uint) *big.Float {
	// x = m * 2**e with m in [0.5, 1); ln x = e*ln2 + ln m.
	m := new(big.Float).SetPrec(prec + 32)
	e := x.MantExp(m)
	r := logNear1(m, prec+32)
	if e != 0 {
		ln2 := logNear1(new(big.Float).SetPrec(prec+32).SetFloat64(0.5), prec+32)
		ln2.Neg(ln2)
		r.Add(r, ln2.Mul(ln2, new(big.Float).SetInt64(int64(e))))
	}
	return r.SetPrec(prec)
}

// logNear1 returns ln(m) for m in [0.5, 1] by taking square roots until m
// is close to 1, then the series 2*atanh((m-1)/(m+1)).
func logNear1(m *big.Float, prec uint) *big.Float {
	m = new(big.Float).SetPrec(prec).Set(m)
	const roots = 12
	for i := 0; i < roots; i++ {
		m.Sqrt(m)
	}
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	num := new(big.Float).SetPrec(prec).Sub(m, one)
	den := new(big.Float).SetPrec(prec).Add(m, one)
	z := num.Quo(num, den)
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	sum := new(big.Float).SetPrec(prec).Set(z)
	term := new(big.Float).SetPrec(prec).Set(z)
	tmp := new(big.Float).SetPrec(prec)
	for k := int64(3); ; k += 2 {
		term.Mul(term, z2)
		tmp.Quo(term, new(big.Float).SetInt64(k))
		if tmp.Sign() == 0 || tmp.MantExp(nil)-sum.MantExp(nil) < -int(prec) {
			break
		}
		sum.Add(sum, tmp)
	}
	// ln m = 2**roots * 2 * atanh(z)
	return sum.SetMantExp(sum, roots+1)
}

// bigExp returns e**t for |t| < ~750.
func bigExp(t *big.Float, prec uint) *big.Float {
	p := prec + 32
	// t = k*ln2 + r, |r| <= ln2/2.
	ln2 := logNear1(new(big.Float).SetPrec(p).SetFloat64(0.5), p)
	ln2.Neg(ln2)
	q := new(big.Float).SetPrec(p).Quo(t, ln2)
	qf, _ := q.Float64()
	k := math.Round(qf)
	r := new(big.Float).SetPrec(p).Sub(t, new(big.Float).SetPrec(p).Mul(ln2, new(big.Float).SetFloat64(k)))
	// e**r = (e**(r/2**s))**(2**s)
	const s = 16
	r.SetMantExp(r, -s)
	sum := new(big.Float).SetPrec(p).SetInt64(1)
	term := new(big.Float).SetPrec(p).SetInt64(1)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(n))
		if term.Sign() == 0 || term.MantExp(nil) < -int(p) {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < s; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

// posPow is the C library's pow(x, y) for x >= 0 (or NaN), correctly
// rounded where the result is finite and not trivial.
func posPow(x, y float64) float64 {
	switch {
	case x == 1 || y == 0:
		return 1
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0:
		return math.Pow(x, y)
	}
	return pow(x, y)
}
