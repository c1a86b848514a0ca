package pycalc

import (
	"math"
	"math/big"
)

// The C library functions complex powers use (hypot, atan2, exp, log, cos,
// sin), correctly rounded like glibc's in all but rare cases. Go's math
// package is less accurate: its cosine near π/2, for one, is off in the
// last several digits, which a complex number's str() shows.

// piDigits is π to 450 significant digits (about 1490 bits): enough to
// reduce any finite float64 argument of sin and cos.
const piDigits = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196442881097566593344612847564823378678316527120190914564856692346034861045432664821339360726024914127372458700660631558817488152092096282925409171536436789259036001133053054882046652138414695194151160943305727036575959195309218611738193261179310511854"

const libmPrec = 192

func bigPi(prec uint) *big.Float {
	pi, _, _ := big.ParseFloat(piDigits, 10, prec, big.ToNearestEven)
	return pi
}

// hypot is sqrt(x*x + y*y) rounded once.
func hypot(x, y float64) float64 {
	if math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsNaN(y) {
		return math.Hypot(x, y)
	}
	const prec = 2 * libmPrec
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	by := new(big.Float).SetPrec(prec).SetFloat64(y)
	s := new(big.Float).SetPrec(prec).Mul(bx, bx)
	s.Add(s, by.Mul(by, by))
	f, _ := s.Sqrt(s).Float64()
	return f
}

// atan2 is the angle of (x, y), correctly rounded for finite non-zero
// arguments; the special cases are C99's, as math.Atan2 has them.
func atan2(y, x float64) float64 {
	if y == 0 || x == 0 || math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsNaN(y) {
		return math.Atan2(y, x)
	}
	const prec = libmPrec
	t := new(big.Float).SetPrec(prec).Quo(
		new(big.Float).SetPrec(prec).SetFloat64(math.Abs(y)),
		new(big.Float).SetPrec(prec).SetFloat64(math.Abs(x)))
	pi := bigPi(prec)
	halfPi := new(big.Float).SetPrec(prec).SetMantExp(pi, -1)
	var theta *big.Float
	if t.Cmp(big.NewFloat(1)) > 0 {
		// atan(t) = π/2 - atan(1/t)
		inv := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1), t)
		theta = new(big.Float).SetPrec(prec).Sub(halfPi, bigAtan(inv, prec))
	} else {
		theta = bigAtan(t, prec)
	}
	if x < 0 {
		theta.Sub(pi, theta)
	}
	if y < 0 {
		theta.Neg(theta)
	}
	f, _ := theta.Float64()
	return f
}

// bigAtan is atan(t) for 0 <= t <= 1: halve the angle until t is small,
// then sum the series.
func bigAtan(t *big.Float, prec uint) *big.Float {
	t = new(big.Float).SetPrec(prec).Set(t)
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	halvings := 0
	for t.Sign() != 0 && t.MantExp(nil) > -10 {
		// atan(t) = 2 atan(t / (1 + sqrt(1 + t²)))
		s := new(big.Float).SetPrec(prec).Mul(t, t)
		s.Add(s, one).Sqrt(s).Add(s, one)
		t.Quo(t, s)
		halvings++
	}
	t2 := new(big.Float).SetPrec(prec).Mul(t, t)
	sum := new(big.Float).SetPrec(prec).Set(t)
	term := new(big.Float).SetPrec(prec).Set(t)
	tmp := new(big.Float).SetPrec(prec)
	for k := int64(3); ; k += 2 {
		term.Mul(term, t2).Neg(term)
		tmp.Quo(term, new(big.Float).SetInt64(k))
		if tmp.Sign() == 0 || tmp.MantExp(nil)-sum.MantExp(nil) < -int(prec) {
			break
		}
		sum.Add(sum, tmp)
	}
	return sum.SetMantExp(sum, halvings)
}

// exp is e**t, correctly rounded.
func exp(t float64) float64 {
	switch {
	case math.IsNaN(t) || math.IsInf(t, 0):
		return math.Exp(t)
	case t > 710:
		return math.Inf(1)
	case t < -746:
		return 0
	case t == 0:
		return 1
	}
	f, _ := bigExp(new(big.Float).SetPrec(libmPrec).SetFloat64(t), libmPrec).Float64()
	return f
}

// log is the natural logarithm, correctly rounded, for x >= 0.
func log(x float64) float64 {
	if x <= 0 || x == 1 || math.IsNaN(x) || math.IsInf(x, 0) {
		return math.Log(x)
	}
	f, _ := bigLog(new(big.Float).SetPrec(libmPrec).SetFloat64(x), libmPrec).Float64()
	return f
}

// sinCos returns sin(x) and cos(x), correctly rounded: x is reduced by the
// nearest multiple of π/2 with enough bits of π, then the series are
// summed.
func sinCos(x float64) (sin, cos float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN(), math.NaN()
	}
	if x == 0 {
		return x, 1
	}
	_, e := math.Frexp(x)
	prec := uint(libmPrec + max(e, 0))
	halfPi := bigPi(prec + 64)
	halfPi.SetMantExp(halfPi, -1)
	bx := new(big.Float).SetPrec(prec + 64).SetFloat64(x)
	q := new(big.Float).SetPrec(prec+64).Quo(bx, halfPi)
	k, _ := q.Int(nil)
	// round to nearest: Int truncates toward zero
	frac := new(big.Float).SetPrec(prec+64).Sub(q, new(big.Float).SetInt(k))
	if frac.Cmp(big.NewFloat(0.5)) > 0 {
		k.Add(k, big.NewInt(1))
	} else if frac.Cmp(big.NewFloat(-0.5)) < 0 {
		k.Sub(k, big.NewInt(1))
	}
	r := new(big.Float).SetPrec(prec+64).Mul(halfPi, new(big.Float).SetPrec(prec+64).SetInt(k))
	r.Sub(bx, r).SetPrec(libmPrec)
	s, c := bigSinCos(r)
	switch new(big.Int).And(k, big.NewInt(3)).Int64() {
	case 1:
		s, c = c, s.Neg(s)
	case 2:
		s, c = s.Neg(s), c.Neg(c)
	case 3:
		s, c = c.Neg(c), s
	}
	sin, _ = s.Float64()
	cos, _ = c.Float64()
	return sin, cos
}

// bigSinCos sums the series of sin and cos for |r| <= π/4.
func bigSinCos(r *big.Float) (sin, cos *big.Float) {
	prec := r.Prec()
	r2 := new(big.Float).SetPrec(prec).Mul(r, r)
	sin = new(big.Float).SetPrec(prec).Set(r)
	cos = new(big.Float).SetPrec(prec).SetInt64(1)
	st := new(big.Float).SetPrec(prec).Set(r)
	ct := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); n < 200; n++ {
		// st = (-1)^n r^(2n+1)/(2n+1)!, ct = (-1)^n r^(2n)/(2n)!
		ct.Mul(ct, r2).Quo(ct, new(big.Float).SetInt64((2*n-1)*(2*n))).Neg(ct)
		st.Mul(st, r2).Quo(st, new(big.Float).SetInt64((2*n)*(2*n+1))).Neg(st)
		if ct.Sign() == 0 || ct.MantExp(nil) < -int(prec)-4 {
			break
		}
		sin.Add(sin, st)
		cos.Add(cos, ct)
	}
	return sin, cos
}
