package tauv1

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// τ-bench v1's reward compares databases by get_data_hash: the sha256 of
// str(to_hashable(data)), where dicts become tuples of (key, value) pairs
// sorted by key and lists become tuples. Two values have the same hash
// exactly when their Hashable texts are equal: dict key order does not
// matter; values, their types (1 vs 1.0 vs True) and list order do.

// Hashable is str(to_hashable(v)) of a decoded value tree (nil, bool,
// string, json.Number, float64, []any, *pyjson.Dict).
func Hashable(v any) string {
	var b bytes.Buffer
	WriteHashable(&b, v)
	return b.String()
}

// Hash is consistent_hash(to_hashable(v)): the hex sha256 of Hashable(v).
func Hash(v any) string {
	var b bytes.Buffer
	WriteHashable(&b, v)
	return HashText(b.Bytes())
}

// HashText is the hex sha256 of a Hashable text.
func HashText(text []byte) string {
	sum := sha256.Sum256(text)
	return hex.EncodeToString(sum[:])
}

// WriteHashable writes str(to_hashable(v)).
func WriteHashable(b *bytes.Buffer, v any) {
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
		Tuple(b, len(idx), func(i int) {
			b.WriteByte('(')
			b.WriteString(pyjson.ReprString(x.Keys[idx[i]]))
			b.WriteString(", ")
			WriteHashable(b, x.Values[idx[i]])
			b.WriteByte(')')
		})
	case []any:
		Tuple(b, len(x), func(i int) { WriteHashable(b, x[i]) })
	case json.Number:
		b.WriteString(pyjson.Repr(x))
	case string:
		b.WriteString(pyjson.ReprString(x))
	default:
		b.WriteString(pyjson.Str(v))
	}
}

// Tuple writes str() of a tuple of n items, item writing each: a one-item
// tuple has its trailing comma.
func Tuple(b *bytes.Buffer, n int, item func(i int)) {
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
