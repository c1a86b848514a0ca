package ledger

import (
	"hash/fnv"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Helpers the domains' gate audits share (EvidenceReads, Mutations).

// ToolCall is a call of tool name with the arguments kv (pairs of name and
// value, in order), encoded in order (pyjson.Dict).
func ToolCall(name string, kv ...any) message.ToolCall {
	d := &pyjson.Dict{}
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		d.Set(k, kv[i+1])
	}
	b, err := d.MarshalJSON()
	if err != nil {
		b = []byte("{}")
	}
	return message.ToolCall{Name: name, Arguments: b}
}

// Offset is a deterministic index in [0, n) chosen by seed (0 when n is
// 0): audits pick "another" record the same way on every run.
func Offset(seed string, n int) int {
	if n == 0 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(seed))
	return int(h.Sum32() % uint32(n))
}

// Scan visits keys starting at Offset(seed, len(keys)), wrapping around,
// until fn returns true.
func Scan(keys []string, seed string, fn func(k string) bool) {
	start := Offset(seed, len(keys))
	for i := range keys {
		if fn(keys[(start+i)%len(keys)]) {
			return
		}
	}
}
