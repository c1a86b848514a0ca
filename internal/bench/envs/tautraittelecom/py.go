package tautraittelecom

import (
	"encoding/json"
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Python operations on decoded values (see db.go), with the exception texts
// CPython 3.11 gives where upstream's code meets a value of another shape.
// The pinned data never triggers them; a modified data file or a model's
// argument may.

// get is v.get(key, def): v must be a dict. ok reports whether the key was
// there (a default list is a temporary that an append does not keep).
func get(v any, key string, def any) (val any, ok bool, err error) {
	d, isDict := v.(*pyjson.Dict)
	if !isDict {
		return nil, false, fmt.Errorf("'%s' object has no attribute 'get'", pyjson.TypeName(v))
	}
	if x, found := d.Get(key); found {
		return x, true, nil
	}
	return def, false, nil
}

// item is v[key] for a str key.
func item(v any, key string) (any, error) {
	switch x := v.(type) {
	case *pyjson.Dict:
		if val, ok := x.Get(key); ok {
			return val, nil
		}
		return nil, pyjson.KeyError(key)
	case []any:
		return nil, fmt.Errorf("list indices must be integers or slices, not str")
	case string:
		return nil, fmt.Errorf("string indices must be integers, not 'str'")
	}
	return nil, fmt.Errorf("'%s' object is not subscriptable", pyjson.TypeName(v))
}

// setItem is v[key] = val for a str key.
func setItem(v any, key string, val any) error {
	switch x := v.(type) {
	case *pyjson.Dict:
		x.Set(key, val)
		return nil
	case []any:
		return fmt.Errorf("list indices must be integers or slices, not str")
	}
	return fmt.Errorf("'%s' object does not support item assignment", pyjson.TypeName(v))
}

// lower is v.lower() for a str v.
func lower(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("'%s' object has no attribute 'lower'", pyjson.TypeName(v))
	}
	return pyjson.Lower(s), nil
}

// eq is Python's == between decoded values: numbers by value across int,
// float and bool, dicts regardless of key order.
func eq(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
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
			if !eq(x[i], y[i]) {
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
			if !ok || !eq(x.Values[i], v) {
				return false
			}
		}
		return true
	}
	return false
}

// number is a numeric value as a float for comparison (bools are ints).
// Ints beyond float precision compare by their nearest float, which only
// matters for values no data or model here produces.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case float64:
		return x, true
	case json.Number:
		return pyjson.NumberFloat(x), true
	}
	return 0, false
}

// contains is `x in list`.
func contains(list []any, x any) bool {
	for _, el := range list {
		if eq(el, x) {
			return true
		}
	}
	return false
}

// iterate is `for x in v`.
func iterate(v any) ([]any, error) { return pyjson.Iterate(v) }

// toFloat is float(v); overflow reports an int too large for a float,
// which upstream's code does not catch (its except clauses name TypeError
// and ValueError).
func toFloat(v any) (f float64, overflow bool, err error) {
	if n, ok := v.(json.Number); ok && pyjson.IsInt(n) {
		f, err := pyjson.ToFloat(n)
		return f, err != nil, err
	}
	switch x := v.(type) {
	case json.Number:
		return pyjson.NumberFloat(x), false, nil
	case float64: // a value a tool stored
		return x, false, nil
	}
	f, err = pyjson.ToFloat(v)
	return f, false, err
}

// stored is an argument value as upstream stores it in the data: the
// decoded tree, with float literals as floats (json.loads makes 1e400
// inf, which json.dumps writes as Infinity).
func stored(v any) any {
	switch x := v.(type) {
	case json.Number:
		if !pyjson.IsInt(x) {
			return pyjson.NumberFloat(x)
		}
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = stored(el)
		}
		return out
	case *pyjson.Dict:
		out := &pyjson.Dict{Keys: append([]string(nil), x.Keys...), Values: make([]any, len(x.Values))}
		for i, el := range x.Values {
			out.Values[i] = stored(el)
		}
		return out
	}
	return v
}

// maxZero is max(x, 0.0): the first argument unless 0.0 is greater (so NaN
// and -0.0 stay).
func maxZero(x float64) float64 {
	if 0.0 > x {
		return 0
	}
	return x
}
