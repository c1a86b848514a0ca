package tauv1

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// WriteHashable writes str(to_hashable(v)) as τ-bench's Env.get_data_hash
// computes it before hashing: dicts become tuples of (key, value) pairs
// sorted by key, lists become tuples, and leaves are written as Python's
// str() of a tuple item (repr). v is a decoded value (pyjson.Decode), with
// float64 for non-finite floats.
func WriteHashable(b *bytes.Buffer, v any) {
	tuple := func(n int, item func(i int)) {
		b.WriteByte('(')
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			item(i)
		}
		if n == 1 {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	}
	switch x := v.(type) {
	case *pyjson.Dict:
		idx := make([]int, len(x.Keys))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(i, j int) int {
			switch {
			case x.Keys[i] < x.Keys[j]:
				return -1
			case x.Keys[i] > x.Keys[j]:
				return 1
			}
			return 0
		})
		tuple(len(idx), func(i int) {
			b.WriteByte('(')
			b.WriteString(pyjson.ReprString(x.Keys[idx[i]]))
			b.WriteString(", ")
			WriteHashable(b, x.Values[idx[i]])
			b.WriteByte(')')
		})
	case []any:
		tuple(len(x), func(i int) { WriteHashable(b, x[i]) })
	case json.Number:
		b.WriteString(pyjson.Repr(x))
	case string:
		b.WriteString(pyjson.ReprString(x))
	default:
		b.WriteString(pyjson.Repr(v))
	}
}

// PairHashable is str(to_hashable) of one (key, value) item of a dict.
func PairHashable(key string, v any) string {
	var b bytes.Buffer
	b.WriteString("(" + pyjson.ReprString(key) + ", ")
	WriteHashable(&b, v)
	b.WriteByte(')')
	return b.String()
}

// Sum is the hex SHA-256 of the hashable text (consistent_hash).
func Sum(text []byte) string {
	s := sha256.Sum256(text)
	return hex.EncodeToString(s[:])
}
