// Package pyops is Python's operators and a few builtins over decoded JSON
// values, with CPython 3.11's results and exception texts. τ-bench v1's
// tools (and their τ-Trait copies) use their arguments by duck typing —
// nothing checks that a price is a number or a list of ids a list — so a
// port that answers a model's odd arguments as upstream does has to run the
// same Python operations on whatever json.loads produced.
//
// Values are what pyjson.Decode yields (nil, bool, string, json.Number,
// []any, *pyjson.Dict) plus float64 for a computed float that JSON cannot
// spell (inf, nan). Ints are json.Numbers without '.', 'e' or 'E' and of any
// size; floats are json.Numbers in Python's repr (what New returns for a
// computed float). bool is an int subclass, as in Python.
package pyops

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Error is a Python exception: Type is its class name and Msg its str(),
// which is what τ-bench's Env.step shows ("Error: <msg>").
type Error struct {
	Type string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// IsType reports whether err is (or wraps) a Python exception of class typ.
func IsType(err error, typ string) bool {
	var pe *Error
	return errors.As(err, &pe) && pe.Type == typ
}

// TypeError, KeyError, … build exceptions.
func TypeError(format string, a ...any) error {
	return &Error{Type: "TypeError", Msg: fmt.Sprintf(format, a...)}
}

// KeyError is KeyError(key): its str() is the key's repr.
func KeyError(key any) error { return &Error{Type: "KeyError", Msg: pyjson.Repr(key)} }

// IndexError is an IndexError with message msg.
func IndexError(msg string) error { return &Error{Type: "IndexError", Msg: msg} }

// ValueError is a ValueError with message msg.
func ValueError(msg string) error { return &Error{Type: "ValueError", Msg: msg} }

// AttributeError is the error of v.attr for a type without that attribute.
func AttributeError(v any, attr string) error {
	return &Error{Type: "AttributeError", Msg: fmt.Sprintf("'%s' object has no attribute '%s'", pyjson.TypeName(v), attr)}
}

// number is an int (i set) or a float.
type number struct {
	i *big.Int
	f float64
}

func (n number) isInt() bool { return n.i != nil }

func (n number) float() float64 {
	if n.i == nil {
		return n.f
	}
	f, _ := new(big.Float).SetInt(n.i).Float64()
	return f
}

// num reads v as a number (bool as 0 or 1).
func num(v any) (number, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return number{i: big.NewInt(1)}, true
		}
		return number{i: big.NewInt(0)}, true
	case json.Number:
		if pyjson.IsInt(x) {
			i, ok := new(big.Int).SetString(string(x), 10)
			if !ok {
				return number{}, false
			}
			return number{i: i}, true
		}
		return number{f: pyjson.NumberFloat(x)}, true
	case float64:
		return number{f: x}, true
	case int:
		return number{i: big.NewInt(int64(x))}, true
	case int64:
		return number{i: big.NewInt(x)}, true
	}
	return number{}, false
}

// IsNumber reports whether v is an int, float or bool.
func IsNumber(v any) bool {
	_, ok := num(v)
	return ok
}

// Int returns a Python int.
func Int(i int64) any { return json.Number(fmt.Sprint(i)) }

// Float returns a Python float: a json.Number in repr, or a float64 for inf
// and nan.
func Float(f float64) any {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	return json.Number(pyjson.Float(f))
}

func (n number) value() any {
	if n.i != nil {
		return json.Number(n.i.String())
	}
	return Float(n.f)
}

// binaryError is the TypeError of an unsupported binary operation.
func binaryError(op string, a, b any) error {
	return TypeError("unsupported operand type(s) for %s: '%s' and '%s'", op, pyjson.TypeName(a), pyjson.TypeName(b))
}

// Add is a + b (aug: a += b, which differs only in the error text).
func Add(a, b any, aug bool) (any, error) {
	op := "+"
	if aug {
		op = "+="
	}
	if x, ok := num(a); ok {
		if y, ok := num(b); ok {
			if x.isInt() && y.isInt() {
				return number{i: new(big.Int).Add(x.i, y.i)}.value(), nil
			}
			return Float(x.float() + y.float()), nil
		}
		return nil, binaryError(op, a, b)
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			return nil, TypeError("can only concatenate str (not \"%s\") to str", pyjson.TypeName(b))
		}
		return x + y, nil
	case []any:
		y, ok := b.([]any)
		if !ok {
			if aug {
				items, err := pyjson.Iterate(b)
				if err != nil {
					return nil, TypeError("'%s' object is not iterable", pyjson.TypeName(b))
				}
				return append(slices.Clip(x), items...), nil
			}
			return nil, TypeError("can only concatenate list (not \"%s\") to list", pyjson.TypeName(b))
		}
		return append(slices.Clip(x), y...), nil
	}
	return nil, binaryError(op, a, b)
}

// Sub is a - b (aug: a -= b).
func Sub(a, b any, aug bool) (any, error) {
	op := "-"
	if aug {
		op = "-="
	}
	x, okx := num(a)
	y, oky := num(b)
	if !okx || !oky {
		return nil, binaryError(op, a, b)
	}
	if x.isInt() && y.isInt() {
		return number{i: new(big.Int).Sub(x.i, y.i)}.value(), nil
	}
	return Float(x.float() - y.float()), nil
}

// Mul is a * b: numbers, or a str or list repeated an int number of times.
func Mul(a, b any) (any, error) {
	x, okx := num(a)
	y, oky := num(b)
	switch {
	case okx && oky:
		if x.isInt() && y.isInt() {
			return number{i: new(big.Int).Mul(x.i, y.i)}.value(), nil
		}
		return Float(x.float() * y.float()), nil
	case isSeq(a):
		if oky && y.isInt() {
			return repeat(a, y.i)
		}
		return nil, TypeError("can't multiply sequence by non-int of type '%s'", pyjson.TypeName(b))
	case isSeq(b):
		if okx && x.isInt() {
			return repeat(b, x.i)
		}
		return nil, TypeError("can't multiply sequence by non-int of type '%s'", pyjson.TypeName(a))
	}
	return nil, binaryError("*", a, b)
}

func isSeq(v any) bool {
	switch v.(type) {
	case string, []any:
		return true
	}
	return false
}

// errIndexSize is CPython's error for an int beyond a Py_ssize_t used as a
// count or an index.
const errIndexSize = "cannot fit 'int' into an index-sized integer"

// maxRepeat bounds a repetition: beyond it CPython would exhaust memory
// (MemoryError) long before a tool returns.
const maxRepeat = 1 << 20

// repeat is seq * n for a str or list.
func repeat(seq any, n *big.Int) (any, error) {
	if !n.IsInt64() {
		return nil, &Error{Type: "OverflowError", Msg: errIndexSize}
	}
	k := 0
	if n.Sign() > 0 {
		k = int(min(n.Int64(), maxRepeat))
	}
	if l, ok := pyjson.Len(seq); ok == nil && l > 0 && n.Int64() > maxRepeat {
		return nil, &Error{Type: "MemoryError", Msg: ""}
	}
	switch x := seq.(type) {
	case string:
		return strings.Repeat(x, k), nil
	case []any:
		out := make([]any, 0, len(x)*k)
		for range k {
			out = append(out, x...)
		}
		return out, nil
	}
	return nil, TypeError("can't multiply sequence by non-int of type 'int'")
}

// Neg is -a.
func Neg(a any) (any, error) {
	x, ok := num(a)
	if !ok {
		return nil, TypeError("bad operand type for unary -: '%s'", pyjson.TypeName(a))
	}
	if x.isInt() {
		return number{i: new(big.Int).Neg(x.i)}.value(), nil
	}
	return Float(-x.f), nil
}

// Abs is abs(a).
func Abs(a any) (any, error) {
	x, ok := num(a)
	if !ok {
		return nil, TypeError("bad operand type for abs(): '%s'", pyjson.TypeName(a))
	}
	if x.isInt() {
		return number{i: new(big.Int).Abs(x.i)}.value(), nil
	}
	return Float(math.Abs(x.f)), nil
}

// Round is round(a, ndigits): an int (a bool becomes one) is returned as is,
// a float rounded as CPython rounds it.
func Round(a any, ndigits int) (any, error) {
	x, ok := num(a)
	if !ok {
		return nil, TypeError("type %s doesn't define __round__ method", pyjson.TypeName(a))
	}
	if x.isInt() {
		return x.value(), nil
	}
	if math.IsInf(x.f, 0) || math.IsNaN(x.f) {
		return Float(x.f), nil
	}
	return Float(pyjson.Round(x.f, ndigits)), nil
}

// Sum is sum(items) from 0.
func Sum(items any) (any, error) {
	list, err := Iter(items)
	if err != nil {
		return nil, err
	}
	var acc any = json.Number("0")
	for _, v := range list {
		if acc, err = Add(acc, v, false); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// Max2 is max(a, b): b when b > a, else a.
func Max2(a, b any) (any, error) {
	gt, err := Compare(">", b, a)
	if err != nil {
		return nil, err
	}
	if gt {
		return b, nil
	}
	return a, nil
}

// Eq is a == b (never raises): numbers by value (True == 1 == 1.0), dicts
// regardless of order, lists item by item.
func Eq(a, b any) bool {
	if x, ok := num(a); ok {
		y, ok := num(b)
		if !ok {
			return false
		}
		return cmpNum(x, y) == 0 && !math.IsNaN(x.float()) && !math.IsNaN(y.float())
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Eq(x[i], y[i]) {
				return false
			}
		}
		return true
	case *pyjson.Dict:
		y, ok := b.(*pyjson.Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i, k := range x.Keys {
			v, ok := y.Get(k)
			if !ok || !Eq(x.Values[i], v) {
				return false
			}
		}
		return true
	}
	return false
}

// cmpNum compares two numbers exactly (an int with a float too, as
// CPython does).
func cmpNum(x, y number) int {
	if x.isInt() && y.isInt() {
		return x.i.Cmp(y.i)
	}
	fx, fy := x.float(), y.float()
	if x.isInt() && !math.IsInf(fy, 0) && !math.IsNaN(fy) {
		return new(big.Float).SetInt(x.i).Cmp(big.NewFloat(fy))
	}
	if y.isInt() && !math.IsInf(fx, 0) && !math.IsNaN(fx) {
		return big.NewFloat(fx).Cmp(new(big.Float).SetInt(y.i))
	}
	switch {
	case fx < fy:
		return -1
	case fx > fy:
		return 1
	}
	return 0
}

// Compare is a <op> b for op one of < <= > >=: numbers, strs and lists
// compare among themselves; anything else raises TypeError.
func Compare(op string, a, b any) (bool, error) {
	c, err := order(op, a, b)
	if err != nil {
		return false, err
	}
	if c == unordered {
		return false, nil
	}
	switch op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, fmt.Errorf("pyops: unknown comparison %q", op)
}

// unordered is order's result when a NaN is compared.
const unordered = 2

func order(op string, a, b any) (int, error) {
	if x, ok := num(a); ok {
		if y, ok := num(b); ok {
			if math.IsNaN(x.float()) || math.IsNaN(y.float()) {
				return unordered, nil
			}
			return cmpNum(x, y), nil
		}
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), nil
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := 0; i < len(x) && i < len(y); i++ {
				if Eq(x[i], y[i]) {
					continue
				}
				return order(op, x[i], y[i])
			}
			switch {
			case len(x) < len(y):
				return -1, nil
			case len(x) > len(y):
				return 1, nil
			}
			return 0, nil
		}
	}
	return 0, TypeError("'%s' not supported between instances of '%s' and '%s'", op, pyjson.TypeName(a), pyjson.TypeName(b))
}

// Contains is item in container.
func Contains(container, item any) (bool, error) {
	switch c := container.(type) {
	case *pyjson.Dict:
		key, ok, err := pyjson.DictKey(item)
		if err != nil {
			return false, TypeError("%s", err.Error())
		}
		if !ok {
			return false, nil
		}
		_, found := c.Get(key)
		return found, nil
	case []any:
		for _, v := range c {
			if Eq(v, item) {
				return true, nil
			}
		}
		return false, nil
	case string:
		s, ok := item.(string)
		if !ok {
			return false, TypeError("'in <string>' requires string as left operand, not %s", pyjson.TypeName(item))
		}
		return strings.Contains(c, s), nil
	}
	return false, TypeError("argument of type '%s' is not iterable", pyjson.TypeName(container))
}

// GetItem is container[key] for a dict, list or str.
func GetItem(container, key any) (any, error) {
	switch c := container.(type) {
	case *pyjson.Dict:
		k, ok, err := pyjson.DictKey(key)
		if err != nil {
			return nil, TypeError("%s", err.Error())
		}
		if ok {
			if v, found := c.Get(k); found {
				return v, nil
			}
		}
		return nil, KeyError(key)
	case []any:
		i, ok, err := index(key)
		switch {
		case !ok:
			return nil, TypeError("list indices must be integers or slices, not %s", pyjson.TypeName(key))
		case err != nil:
			return nil, err
		}
		if i < 0 {
			i += int64(len(c))
		}
		if i < 0 || i >= int64(len(c)) {
			return nil, IndexError("list index out of range")
		}
		return c[i], nil
	case string:
		i, ok, err := index(key)
		switch {
		case !ok:
			return nil, TypeError("string indices must be integers, not '%s'", pyjson.TypeName(key))
		case err != nil:
			return nil, err
		}
		n := int64(utf8.RuneCountInString(c))
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, IndexError("string index out of range")
		}
		return string([]rune(c)[i]), nil
	}
	return nil, TypeError("'%s' object is not subscriptable", pyjson.TypeName(container))
}

// Get is GetItem on a dict with a str key, for code that knows its key.
func Get(container any, key string) (any, error) { return GetItem(container, key) }

// index reads an int (or bool) index; ok false for another type, an
// IndexError for an int beyond a Py_ssize_t.
func index(key any) (i int64, ok bool, err error) {
	switch key.(type) {
	case bool, json.Number, int, int64:
	default:
		return 0, false, nil
	}
	n, isNum := num(key)
	if !isNum || !n.isInt() {
		return 0, false, nil
	}
	if !n.i.IsInt64() {
		return 0, true, IndexError(errIndexSize)
	}
	return n.i.Int64(), true, nil
}

// SetItem is container[key] = v for a dict (a str key: the dicts these
// tools build hold str keys only) or a list.
func SetItem(container, key, v any) error {
	switch c := container.(type) {
	case *pyjson.Dict:
		k, ok := key.(string)
		if !ok {
			if _, _, err := pyjson.DictKey(key); err != nil {
				return TypeError("%s", err.Error())
			}
			return TypeError("pyops: a dict key of type %s cannot be stored", pyjson.TypeName(key))
		}
		c.Set(k, v)
		return nil
	case []any:
		i, ok, err := index(key)
		switch {
		case !ok:
			return TypeError("list indices must be integers or slices, not %s", pyjson.TypeName(key))
		case err != nil:
			return err
		}
		if i < 0 {
			i += int64(len(c))
		}
		if i < 0 || i >= int64(len(c)) {
			return IndexError("list assignment index out of range")
		}
		c[i] = v
		return nil
	case string:
		return TypeError("'str' object does not support item assignment")
	}
	return TypeError("'%s' object does not support item assignment", pyjson.TypeName(container))
}

// Iter lists what `for x in v` yields: a list's items, a str's characters,
// a dict's keys.
func Iter(v any) ([]any, error) {
	items, err := pyjson.Iterate(v)
	if err != nil {
		return nil, TypeError("'%s' object is not iterable", pyjson.TypeName(v))
	}
	return items, nil
}

// Len is len(v).
func Len(v any) (int, error) {
	n, err := pyjson.Len(v)
	if err != nil {
		return 0, TypeError("%s", err.Error())
	}
	return n, nil
}

// Count is v.count(x) for a list or a str.
func Count(v, x any) (int, error) {
	switch c := v.(type) {
	case []any:
		n := 0
		for _, it := range c {
			if Eq(it, x) {
				n++
			}
		}
		return n, nil
	case string:
		s, ok := x.(string)
		if !ok {
			return 0, TypeError("must be str, not %s", pyjson.TypeName(x))
		}
		if s == "" {
			return utf8.RuneCountInString(c) + 1, nil
		}
		return strings.Count(c, s), nil
	}
	return 0, AttributeError(v, "count")
}

// Lower is v.lower() for a str.
func Lower(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", AttributeError(v, "lower")
	}
	return pyjson.Lower(s), nil
}

// Sorted is sorted(v): the items of an iterable in ascending order, compared
// with < in the order CPython's sort compares them (so a list of mixed
// types fails with the same TypeError).
func Sorted(v any) ([]any, error) {
	items, err := Iter(v)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(items)
	if err := sortList(out); err != nil {
		return nil, err
	}
	return out, nil
}

// sortList sorts in place as CPython's list.sort does for the short lists
// tools sort: a run is counted first, then binary insertion.
func sortList(a []any) error {
	n := len(a)
	if n < 2 {
		return nil
	}
	lt := func(x, y any) (bool, error) { return Compare("<", x, y) }
	if n >= 64 {
		// Tools never sort this many ids; fall back to a stable sort with
		// the same comparison (the error, if any, may name the types in
		// another order than CPython's).
		var sortErr error
		slices.SortStableFunc(a, func(x, y any) int {
			if sortErr != nil {
				return 0
			}
			l, err := lt(x, y)
			if err != nil {
				sortErr = err
				return 0
			}
			if l {
				return -1
			}
			if g, _ := lt(y, x); g {
				return 1
			}
			return 0
		})
		return sortErr
	}
	// count_run
	run := 2
	desc, err := lt(a[1], a[0])
	if err != nil {
		return err
	}
	for run < n {
		l, err := lt(a[run], a[run-1])
		if err != nil {
			return err
		}
		if l != desc {
			break
		}
		run++
	}
	if desc {
		slices.Reverse(a[:run])
	}
	// binary insertion of a[run:]
	for i := run; i < n; i++ {
		pivot := a[i]
		lo, hi := 0, i
		for lo < hi {
			mid := lo + (hi-lo)/2
			l, err := lt(pivot, a[mid])
			if err != nil {
				return err
			}
			if l {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		copy(a[lo+1:i+1], a[lo:i])
		a[lo] = pivot
	}
	return nil
}

// ParseInt is int(s) of a str in base 10 (CPython's rules: surrounding
// whitespace, a sign, underscores between digits).
func ParseInt(v any) (any, error) {
	switch x := v.(type) {
	case string:
		t := strings.TrimFunc(x, pyjson.IsSpace)
		body := strings.TrimLeft(t, "+-")
		if len(t)-len(body) > 1 || body == "" || strings.HasPrefix(body, "_") || strings.HasSuffix(body, "_") || strings.Contains(body, "__") {
			return nil, ValueError("invalid literal for int() with base 10: " + pyjson.ReprString(x))
		}
		digits := strings.ReplaceAll(body, "_", "")
		i, ok := new(big.Int).SetString(digits, 10)
		if !ok || strings.ContainsAny(digits, "+-") {
			return nil, ValueError("invalid literal for int() with base 10: " + pyjson.ReprString(x))
		}
		if strings.HasPrefix(t, "-") {
			i.Neg(i)
		}
		return json.Number(i.String()), nil
	case json.Number, bool, float64:
		n, _ := num(v)
		if n.isInt() {
			return n.value(), nil
		}
		if math.IsInf(n.f, 0) {
			return nil, &Error{Type: "OverflowError", Msg: "cannot convert float infinity to integer"}
		}
		if math.IsNaN(n.f) {
			return nil, ValueError("cannot convert float NaN to integer")
		}
		bf := big.NewFloat(math.Trunc(n.f))
		i, _ := bf.Int(nil)
		return json.Number(i.String()), nil
	}
	return nil, TypeError("int() argument must be a string, a bytes-like object or a real number, not '%s'", pyjson.TypeName(v))
}

// Slice is v[lo:] or v[lo:hi] of a str or list (nil bounds are open).
func Slice(v any, lo, hi *int) (any, error) {
	bounds := func(n int) (int, int) {
		clamp := func(p *int, def int) int {
			if p == nil {
				return def
			}
			i := *p
			if i < 0 {
				i += n
			}
			return max(0, min(i, n))
		}
		s, e := clamp(lo, 0), clamp(hi, n)
		if e < s {
			e = s
		}
		return s, e
	}
	switch x := v.(type) {
	case string:
		r := []rune(x)
		s, e := bounds(len(r))
		return string(r[s:e]), nil
	case []any:
		s, e := bounds(len(x))
		return slices.Clone(x[s:e]), nil
	case *pyjson.Dict:
		return nil, TypeError("unhashable type: 'slice'")
	}
	return nil, TypeError("'%s' object is not subscriptable", pyjson.TypeName(v))
}

// DeepCopy is copy.deepcopy of a decoded value.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = DeepCopy(el)
		}
		return out
	case *pyjson.Dict:
		out := &pyjson.Dict{Keys: slices.Clone(x.Keys), Values: make([]any, len(x.Values))}
		for i, el := range x.Values {
			out.Values[i] = DeepCopy(el)
		}
		return out
	}
	return v
}

// Delete is del d[key] for a dict.
func Delete(d *pyjson.Dict, key string) error {
	for i, k := range d.Keys {
		if k == key {
			d.Keys = slices.Delete(d.Keys, i, i+1)
			d.Values = slices.Delete(d.Values, i, i+1)
			return nil
		}
	}
	return KeyError(key)
}
