package pycalc

import (
	"fmt"
	"math"
	"math/big"
)

// maxIntBits bounds int results. CPython would grind through larger ones
// for minutes or run out of memory; Eval raises the OverflowError the
// final float() would raise on such a number instead.
const maxIntBits = 1 << 22

func errTooLarge() *Error { return errOverflow("int too large to convert to float") }

func typeError(format string, args ...any) *Error {
	return &Error{Type: "TypeError", Msg: fmt.Sprintf(format, args...)}
}

func (n *node) eval() (Value, error) {
	switch n.op {
	case "num":
		return literal(n.text), nil
	case "...":
		return Value{kind: kEllipsis}, nil
	case "()":
		return Value{kind: kTuple}, nil
	case "neg", "pos":
		x, err := n.a.eval()
		if err != nil {
			return Value{}, err
		}
		return unary(n.op, x)
	case "call":
		return n.call()
	}
	x, err := n.a.eval()
	if err != nil {
		return Value{}, err
	}
	y, err := n.b.eval()
	if err != nil {
		return Value{}, err
	}
	return binary(n.op, x, y)
}

func unary(op string, x Value) (Value, error) {
	if !x.isNumber() {
		sym := "-"
		if op == "pos" {
			sym = "+"
		}
		return Value{}, typeError("bad operand type for unary %s: '%s'", sym, x.Type())
	}
	if op == "pos" {
		return x, nil
	}
	switch x.kind {
	case kInt:
		return intValue(new(big.Int).Neg(x.i)), nil
	case kFloat:
		return floatValue(-x.f), nil
	}
	return complexValue(cplx{-x.c.re, -x.c.im}), nil
}

// call evaluates f(), f(x), f(*x) or f(**x): nothing here is callable, so
// it fails once the callee and the argument are evaluated.
func (n *node) call() (Value, error) {
	f, err := n.a.eval()
	if err != nil {
		return Value{}, err
	}
	if n.b != nil {
		arg, err := n.b.eval()
		if err != nil {
			return Value{}, err
		}
		if (n.star == 1 && arg.kind != kTuple) || n.star == 2 {
			fs, err := f.str()
			if err != nil {
				return Value{}, err
			}
			if n.star == 1 {
				return Value{}, typeError("%s argument after * must be an iterable, not %s", fs, arg.Type())
			}
			return Value{}, typeError("%s argument after ** must be a mapping, not %s", fs, arg.Type())
		}
	}
	return Value{}, typeError("'%s' object is not callable", f.Type())
}

func unsupported(op string, x, y Value) *Error {
	if op == "**" {
		op = "** or pow()"
	}
	return typeError("unsupported operand type(s) for %s: '%s' and '%s'", op, x.Type(), y.Type())
}

func binary(op string, x, y Value) (Value, error) {
	if !x.isNumber() || !y.isNumber() {
		return sequenceOp(op, x, y)
	}
	switch {
	case x.kind == kComplex || y.kind == kComplex:
		return complexOp(op, x, y)
	case x.kind == kInt && y.kind == kInt:
		return intOp(op, x.i, y.i)
	}
	a, err := x.asFloat()
	if err != nil {
		return Value{}, err
	}
	b, err := y.asFloat()
	if err != nil {
		return Value{}, err
	}
	return floatOp(op, a, b)
}

// sequenceOp is an operation with the empty tuple or Ellipsis.
func sequenceOp(op string, x, y Value) (Value, error) {
	switch {
	case op == "+" && x.kind == kTuple && y.kind == kTuple:
		return x, nil
	case op == "+" && x.kind == kTuple:
		return Value{}, typeError("can only concatenate tuple (not \"%s\") to tuple", y.Type())
	case op == "*" && (x.kind == kTuple || y.kind == kTuple):
		// Sequence repetition: the left operand is the sequence if it is one.
		count := y
		if x.kind != kTuple {
			count = x
		}
		if count.kind != kInt {
			return Value{}, typeError("can't multiply sequence by non-int of type '%s'", count.Type())
		}
		if !count.i.IsInt64() {
			return Value{}, errOverflow("cannot fit 'int' into an index-sized integer")
		}
		return Value{kind: kTuple}, nil
	}
	return Value{}, unsupported(op, x, y)
}

func intOp(op string, x, y *big.Int) (Value, error) {
	bounded := func(i *big.Int) (Value, error) {
		if i.BitLen() > maxIntBits {
			return Value{}, errTooLarge()
		}
		return intValue(i), nil
	}
	switch op {
	case "+":
		return bounded(new(big.Int).Add(x, y))
	case "-":
		return bounded(new(big.Int).Sub(x, y))
	case "*":
		if x.BitLen()+y.BitLen() > maxIntBits+1 {
			return Value{}, errTooLarge()
		}
		return bounded(new(big.Int).Mul(x, y))
	case "/":
		return intTrueDiv(x, y)
	case "//", "%":
		if y.Sign() == 0 {
			if op == "%" {
				return Value{}, errZeroDiv("integer modulo by zero")
			}
			return Value{}, errZeroDiv("integer division or modulo by zero")
		}
		q, m := new(big.Int).QuoRem(x, y, new(big.Int))
		if m.Sign() != 0 && (m.Sign() < 0) != (y.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
			m.Add(m, y)
		}
		if op == "%" {
			return intValue(m), nil
		}
		return intValue(q), nil
	}
	// **: a negative exponent makes it a float power.
	if y.Sign() < 0 {
		a, err := intToFloat(x)
		if err != nil {
			return Value{}, err
		}
		b, err := intToFloat(y)
		if err != nil {
			return Value{}, err
		}
		return floatPow(a, b)
	}
	if x.CmpAbs(big.NewInt(1)) <= 0 {
		// 0, 1 and -1 stay small whatever the exponent.
		switch {
		case y.Sign() == 0:
			return intValue(big.NewInt(1)), nil
		case x.Sign() < 0 && y.Bit(0) == 0:
			return intValue(big.NewInt(1)), nil
		}
		return intValue(new(big.Int).Set(x)), nil
	}
	if !y.IsInt64() || int64(x.BitLen()-1)*y.Int64() > maxIntBits {
		return Value{}, errTooLarge()
	}
	return bounded(new(big.Int).Exp(x, y, nil))
}

// intTrueDiv is int / int, correctly rounded; a zero quotient keeps the
// sign the exact quotient has.
func intTrueDiv(x, y *big.Int) (Value, error) {
	if y.Sign() == 0 {
		return Value{}, errZeroDiv("division by zero")
	}
	f, _ := new(big.Rat).SetFrac(x, y).Float64()
	if math.IsInf(f, 0) {
		return Value{}, errOverflow("integer division result too large for a float")
	}
	if f == 0 && (x.Sign() < 0) != (y.Sign() < 0) {
		f = math.Copysign(0, -1)
	}
	return floatValue(f), nil
}

func floatOp(op string, x, y float64) (Value, error) {
	switch op {
	case "+":
		return floatValue(x + y), nil
	case "-":
		return floatValue(x - y), nil
	case "*":
		return floatValue(x * y), nil
	case "/":
		if y == 0 {
			return Value{}, errZeroDiv("float division by zero")
		}
		return floatValue(x / y), nil
	case "//":
		if y == 0 {
			return Value{}, errZeroDiv("float floor division by zero")
		}
		return floatValue(floorDiv(x, y)), nil
	case "%":
		if y == 0 {
			return Value{}, errZeroDiv("float modulo")
		}
		return floatValue(floatRem(x, y)), nil
	}
	return floatPow(x, y)
}

// floorDiv is CPython's float floor division (_float_div_mod).
func floorDiv(vx, wx float64) float64 {
	mod := math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 && (wx < 0) != (mod < 0) {
		div -= 1.0
	}
	if div == 0 {
		return math.Copysign(0, vx/wx)
	}
	floordiv := math.Floor(div)
	if div-floordiv > 0.5 {
		floordiv += 1.0
	}
	return floordiv
}

// floatRem is CPython's float_rem: the remainder has the divisor's sign.
func floatRem(vx, wx float64) float64 {
	mod := math.Mod(vx, wx)
	if mod != 0 {
		if (wx < 0) != (mod < 0) {
			mod += wx
		}
		return mod
	}
	return math.Copysign(0, wx)
}

func isOddInteger(w float64) bool { return math.Mod(math.Abs(w), 2) == 1 }

// floatPow is CPython's float_pow.
func floatPow(iv, iw float64) (Value, error) {
	switch {
	case iw == 0:
		return floatValue(1), nil
	case math.IsNaN(iv):
		return floatValue(iv), nil
	case math.IsNaN(iw):
		if iv == 1 {
			return floatValue(1), nil
		}
		return floatValue(iw), nil
	case math.IsInf(iw, 0):
		av := math.Abs(iv)
		switch {
		case av == 1:
			return floatValue(1), nil
		case (iw > 0) == (av > 1):
			return floatValue(math.Inf(1)), nil
		}
		return floatValue(0), nil
	case math.IsInf(iv, 0):
		odd := isOddInteger(iw)
		if iw > 0 {
			if odd {
				return floatValue(iv), nil
			}
			return floatValue(math.Abs(iv)), nil
		}
		if odd {
			return floatValue(math.Copysign(0, iv)), nil
		}
		return floatValue(0), nil
	case iv == 0:
		if iw < 0 {
			return Value{}, errZeroDiv("0.0 cannot be raised to a negative power")
		}
		if isOddInteger(iw) {
			return floatValue(iv), nil
		}
		return floatValue(0), nil
	}
	negate := false
	if iv < 0 {
		if iw != math.Floor(iw) {
			// A negative number to a fractional power is complex.
			return complexPow(cplx{iv, 0}, cplx{iw, 0})
		}
		iv = -iv
		negate = isOddInteger(iw)
	}
	if iv == 1 {
		if negate {
			return floatValue(-1), nil
		}
		return floatValue(1), nil
	}
	ix := pow(iv, iw)
	if math.IsInf(ix, 0) {
		return Value{}, errOverflow("(34, 'Numerical result out of range')")
	}
	if negate {
		ix = -ix
	}
	return floatValue(ix), nil
}

// complexOp is an operation with a complex operand (complexobject.c).
func complexOp(op string, x, y Value) (Value, error) {
	if op == "//" || op == "%" {
		return Value{}, unsupported(op, x, y) // before any conversion
	}
	a, err := x.asComplex()
	if err != nil {
		return Value{}, err
	}
	b, err := y.asComplex()
	if err != nil {
		return Value{}, err
	}
	switch op {
	case "+":
		return complexValue(cplx{a.re + b.re, a.im + b.im}), nil
	case "-":
		return complexValue(cplx{a.re - b.re, a.im - b.im}), nil
	case "*":
		return complexValue(cmul(a, b)), nil
	case "/":
		q, ok := cquot(a, b)
		if !ok {
			return Value{}, errZeroDiv("complex division by zero")
		}
		return complexValue(q), nil
	}
	return complexPow(a, b)
}

// cmul is _Py_c_prod. The float64 conversions keep the compiler from
// fusing a multiplication and an addition, which C does not do either.
func cmul(a, b cplx) cplx {
	return cplx{float64(a.re*b.re) - float64(a.im*b.im), float64(a.re*b.im) + float64(a.im*b.re)}
}

// cquot is _Py_c_quot (Smith's method); ok is false for a zero divisor.
func cquot(a, b cplx) (cplx, bool) {
	absRe, absIm := math.Abs(b.re), math.Abs(b.im)
	switch {
	case absRe >= absIm:
		if absRe == 0 {
			return cplx{}, false
		}
		ratio := b.im / b.re
		denom := b.re + float64(b.im*ratio)
		return cplx{(a.re + float64(a.im*ratio)) / denom, (a.im - float64(a.re*ratio)) / denom}, true
	case absIm >= absRe:
		ratio := b.re / b.im
		denom := float64(b.re*ratio) + b.im
		return cplx{(float64(a.re*ratio) + a.im) / denom, (float64(a.im*ratio) - a.re) / denom}, true
	}
	return cplx{math.NaN(), math.NaN()}, true // a NaN part
}

// complexPow is complex_pow: integer exponents up to 100 by repeated
// multiplication, others through polar form; a zero base to a negative or
// complex power raises ZeroDivisionError and an infinite part
// OverflowError.
func complexPow(a, b cplx) (Value, error) {
	var r cplx
	edom := false
	if b.im == 0 && b.re == math.Floor(b.re) && math.Abs(b.re) <= 100 {
		n := int64(b.re)
		if n >= 0 {
			r = cpowu(a, n)
		} else {
			var ok bool
			r, ok = cquot(cplx{1, 0}, cpowu(a, -n))
			edom = !ok
		}
	} else {
		r, edom = cpow(a, b)
	}
	switch {
	case edom:
		return Value{}, errZeroDiv("0.0 to a negative or complex power")
	case math.IsInf(r.re, 0) || math.IsInf(r.im, 0):
		return Value{}, errOverflow("complex exponentiation")
	}
	return complexValue(r), nil
}

// cpowu is c_powu: x**n by squaring.
func cpowu(x cplx, n int64) cplx {
	r, p := cplx{1, 0}, x
	for mask := int64(1); mask > 0 && n >= mask; mask <<= 1 {
		if n&mask != 0 {
			r = cmul(r, p)
		}
		p = cmul(p, p)
	}
	return r
}

// cpow is _Py_c_pow; edom reports the C library's domain error (a zero
// base to a negative or complex power, or the sine of an infinite phase).
func cpow(a, b cplx) (r cplx, edom bool) {
	switch {
	case b.re == 0 && b.im == 0:
		return cplx{1, 0}, false
	case a.re == 0 && a.im == 0:
		return cplx{}, b.im != 0 || b.re < 0
	}
	vabs := hypot(a.re, a.im)
	length := posPow(vabs, b.re)
	at := atan2(a.im, a.re)
	phase := at * b.re
	if b.im != 0 {
		length /= exp(at * b.im)
		phase += float64(b.im * log(vabs))
	}
	sin, cos := sinCos(phase)
	return cplx{length * cos, length * sin}, math.IsInf(phase, 0)
}
