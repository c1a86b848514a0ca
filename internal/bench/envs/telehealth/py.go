package telehealth

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Upstream tools receive their arguments as json.loads produced them and use
// them by duck typing: nothing checks types, so a number where a string was
// expected shows up in a message, fails on a method call, or is stored as
// is. Arguments are therefore kept as decoded JSON values (nil, bool,
// string, json.Number, []any, *pyjson.Dict); package pyjson gives them
// Python's type names, str(), repr(), hashing and iteration, and the helpers
// below the rest of the Python rules and error texts upstream's code meets.

// attrError is the AttributeError for calling a str method on a non-str.
func attrError(v any, attr string) error {
	return fmt.Errorf("'%s' object has no attribute '%s'", pyjson.TypeName(v), attr)
}

// strArg returns v when it is a str, else the AttributeError the method
// call would raise.
func strArg(v any, method string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", attrError(v, method)
	}
	return s, nil
}

// equalStr is `s == v` for a str s.
func equalStr(s string, v any) bool {
	x, ok := v.(string)
	return ok && x == s
}

// applyLimit applies `if limit is not None and limit > 0: items = items[:limit]`
// to a length n and returns the new length.
func applyLimit(limit any, n int) (int, error) {
	switch x := limit.(type) {
	case nil:
		return n, nil
	case bool:
		if x && n > 1 {
			return 1, nil
		}
		return n, nil
	case json.Number:
		if !pyjson.IsInt(x) {
			f, _ := strconv.ParseFloat(string(x), 64)
			if f > 0 {
				return 0, errors.New("slice indices must be integers or None or have an __index__ method")
			}
			return n, nil
		}
		var b big.Int
		b.SetString(string(x), 10)
		if b.Sign() > 0 && b.Cmp(big.NewInt(int64(n))) < 0 {
			return int(b.Int64()), nil
		}
		return n, nil
	}
	return 0, fmt.Errorf("'>' not supported between instances of '%s' and 'int'", pyjson.TypeName(limit))
}

// readable is value.replace('_', ' ').title().
func readable(s string) string { return pyjson.Title(strings.ReplaceAll(s, "_", " ")) }

// fixed2 is f"{x:.2f}".
func fixed2(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "nan"
	}
	return pyjson.FormatFixed(x, 2)
}
