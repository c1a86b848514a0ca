package tauv1

import (
	"fmt"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pycalc"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyops"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
)

// Helpers the tools of v1 environments share: Python's dict operations on
// a table of the data (data["users"] and the like) and json.dumps.

// Key is `key in table` for a top-level table: the key as a str when it is
// one and present; a list or dict raises TypeError (unhashable), any other
// value is simply absent.
func Key(t *table.Table[pyjson.Dict], key any) (string, bool, error) {
	k, ok, err := pyjson.DictKey(key)
	if err != nil {
		return "", false, pyops.TypeError("%s", err.Error())
	}
	if !ok || !t.Has(k) {
		return "", false, nil
	}
	return k, true, nil
}

// Lookup is table[key]: the record (read-only), KeyError when absent.
func Lookup(t *table.Table[pyjson.Dict], key any) (*pyjson.Dict, error) {
	k, ok, err := Key(t, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pyops.KeyError(key)
	}
	rec, _ := t.Get(k)
	return rec, nil
}

// MutLookup is table[key] for a record the tool changes: a copy the
// simulation owns, KeyError when absent.
func MutLookup(t *table.Table[pyjson.Dict], key any) (*pyjson.Dict, error) {
	k, ok, err := Key(t, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pyops.KeyError(key)
	}
	rec, _ := t.Mut(k)
	return rec, nil
}

// Dumps is json.dumps(v) with its defaults.
func Dumps(v any) (string, error) {
	b, err := pyjson.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Append is v.append(item) for a list stored under key of d (lists are
// values in Go, so the grown list is stored back).
func Append(d any, key string, item any) error {
	v, err := pyops.GetItem(d, key)
	if err != nil {
		return err
	}
	l, ok := v.([]any)
	if !ok {
		return pyops.AttributeError(v, "append")
	}
	return pyops.SetItem(d, key, append(l, item))
}

// Extend is v.extend(items) for a list stored under key of d.
func Extend(d any, key string, items []any) error {
	v, err := pyops.GetItem(d, key)
	if err != nil {
		return err
	}
	l, ok := v.([]any)
	if !ok {
		return pyops.AttributeError(v, "extend")
	}
	return pyops.SetItem(d, key, append(l, items...))
}

// Calculate is the calculate tool of τ-bench v1 and its descendants on its
// argument as json.loads gave it: every character (a list's items, a dict's
// keys) must be one of the allowed ones, then eval under CPython 3.11, every
// failure inside the try turned into "Error: <text>".
func Calculate(expr any) (any, error) {
	switch x := expr.(type) {
	case string:
		return pycalc.Tau1(x), nil
	case []any, *pyjson.Dict:
		it, _ := pyjson.Iterate(x)
		for _, item := range it {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("'in <string>' requires string as left operand, not %s", pyjson.TypeName(item))
			}
			if !strings.Contains(pycalc.Chars, s) {
				return "Error: invalid characters in expression", nil
			}
		}
		return "Error: eval() arg 1 must be a string, bytes or code object", nil
	}
	return nil, fmt.Errorf("'%s' object is not iterable", pyjson.TypeName(expr))
}
