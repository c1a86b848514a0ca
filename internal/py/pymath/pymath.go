// Package pymath is CPython's math functions where Go's differ in the last
// bit: Python's math.log calls the C library's log, which (glibc's) is
// correctly rounded, while Go's math.Log is within one ulp. Code that must
// reproduce Python's floating-point results exactly (rank_bm25's idf) uses
// these.
package pymath

import "math"

// Log is math.log(x): the natural logarithm correctly rounded to the
// nearest float64 (special values as math.Log: NaN for x < 0, -Inf at 0).
// With x = m·2^e (m in [√½, √2)) and c = k/128 the nearest such to m, it
// evaluates ln c + 2·atanh((m−c)/(m+c)) + e·ln2 in double-double
// arithmetic (about 106 bits; ln c from logTab) and rounds once.
func Log(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return math.Log(x)
	}
	m, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	k := int(m*128 + 0.5) // 91…181
	c := float64(k) / 128
	r := logTab[k-91]
	if m != c {
		// s = (m−c)/(m+c), |s| < 1/360: m−c is exact (Sterbenz), m+c is
		// split exactly; the series needs about seven terms.
		s := dd{m - c, 0}.div(twoSum(m, c))
		s2 := s.mul(s)
		sum, term := s, s
		for n := 3.0; n < 200; n += 2 {
			term = term.mul(s2)
			t := term.divFloat(n)
			sum = sum.add(t)
			if math.Abs(t.hi) < 1e-34*math.Abs(sum.hi) {
				break
			}
		}
		r = r.add(sum.add(sum)) // + 2·atanh(s) = ln(m/c)
	}
	if e != 0 {
		r = ln2.mulFloat(float64(e)).add(r)
	}
	return r.hi + r.lo
}

// dd is a double-double: the unevaluated sum hi+lo, |lo| ≤ ulp(hi)/2.
type dd struct{ hi, lo float64 }

// ln2 to double-double precision.
var ln2 = dd{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56}

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (a dd) add(b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func (a dd) mul(b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func (a dd) mulFloat(b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += a.lo * b
	return quickTwoSum(p.hi, p.lo)
}

func (a dd) divFloat(b float64) dd {
	q1 := a.hi / b
	p := twoProd(q1, b)
	s := twoSum(a.hi, -p.hi)
	s.lo -= p.lo
	s.lo += a.lo
	q2 := (s.hi + s.lo) / b
	return quickTwoSum(q1, q2)
}

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	r := a.add(b.mulFloat(-q1))
	q2 := r.hi / b.hi
	r = r.add(b.mulFloat(-q2))
	q3 := r.hi / b.hi
	q := quickTwoSum(q1, q2)
	return q.add(dd{q3, 0})
}
