package offline

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// alternatives indexes the string values of earlier tool outputs by
// sibling group: values that sit at the same place in sibling records of
// one output (the ids of a user's payment methods, the items of an order, a
// user's orders or reservations, the flights of a search, a product's
// variants, a customer's lines). Another member of a value's group is
// "another thing of the same kind that the agent has seen", which is what
// a stale or confused agent uses by mistake.
type alternatives struct {
	groups map[string][]string // group key → members, in order, unique
	of     map[string][]string // value → group keys
}

func indexOutputs(msgs []message.Message) *alternatives {
	x := &alternatives{groups: map[string][]string{}, of: map[string][]string{}}
	for i, m := range msgs {
		if m.Role != message.Tool || m.Error {
			continue
		}
		c := strings.TrimSpace(m.Content)
		if c == "" || (c[0] != '{' && c[0] != '[') {
			continue
		}
		v, err := pyjson.Decode([]byte(c))
		if err != nil {
			continue
		}
		x.walk(strconv.Itoa(i)+"|", v)
	}
	return x
}

// walk records v's string leaves. path is the generalised path of v: list
// indexes are "[*]".
func (x *alternatives) walk(path string, v any) {
	switch t := v.(type) {
	case *pyjson.Dict:
		if len(t.Keys) > 1 {
			for _, k := range t.Keys {
				x.add(path+"{keys}", k)
			}
		}
		// A leaf's siblings are the same key in the sibling records: the
		// parent's own path segment is generalised.
		parent := path
		if i := strings.LastIndexByte(strings.TrimSuffix(path, "/"), '/'); i >= 0 {
			parent = path[:i+1] + "*/"
		}
		for i, k := range t.Keys {
			if s, ok := t.Values[i].(string); ok {
				x.add(parent+"."+k, s)
				continue
			}
			x.walk(path+k+"/", t.Values[i])
		}
	case []any:
		for _, el := range t {
			if s, ok := el.(string); ok {
				x.add(path+"[*]", s)
				continue
			}
			x.walk(path+"[*]/", el)
		}
	}
}

func (x *alternatives) add(group, v string) {
	members := x.groups[group]
	if slices.Contains(members, v) {
		return
	}
	x.groups[group] = append(members, v)
	if !slices.Contains(x.of[v], group) {
		x.of[v] = append(x.of[v], group)
	}
}

// siblings returns the other members of v's groups, sorted.
func (x *alternatives) siblings(v string) []string {
	var out []string
	for _, g := range x.of[v] {
		for _, s := range x.groups[g] {
			if s != v && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	return out
}

// site is one string value inside a call's arguments.
type site struct {
	path  []any // string keys and int indexes
	top   int   // index of the top-level argument
	value string
	alts  []string
}

type mutation struct {
	args     json.RawMessage
	path     string
	from, to string
}

// mutate replaces one string argument of a call by a sibling value seen in
// earlier tool outputs. entity prefers the first argument (the record the
// call acts on: an order, a reservation, a line), otherwise the others (a
// payment method, an item). ok is false when no argument has a sibling.
func mutate(args json.RawMessage, msgs []message.Message, rng *rand.Rand, entity bool) (mutation, bool) {
	v, err := pyjson.Decode(args)
	if err != nil {
		return mutation{}, false
	}
	root, ok := v.(*pyjson.Dict)
	if !ok {
		return mutation{}, false
	}
	alts := indexOutputs(msgs)
	var sites []site
	for i, k := range root.Keys {
		collect(root.Values[i], []any{k}, i, alts, &sites)
	}
	if len(sites) == 0 {
		return mutation{}, false
	}
	var preferred []site
	for _, s := range sites {
		if (s.top == 0) == entity {
			preferred = append(preferred, s)
		}
	}
	if len(preferred) == 0 {
		preferred = sites
	}
	s := preferred[rng.IntN(len(preferred))]
	to := s.alts[rng.IntN(len(s.alts))]
	set(root, s.path, to)
	out, err := root.MarshalJSON()
	if err != nil {
		return mutation{}, false
	}
	return mutation{args: out, path: pathString(s.path), from: s.value, to: to}, true
}

func collect(v any, path []any, top int, alts *alternatives, out *[]site) {
	switch t := v.(type) {
	case string:
		if sib := alts.siblings(t); len(sib) > 0 {
			*out = append(*out, site{path: slices.Clone(path), top: top, value: t, alts: sib})
		}
	case *pyjson.Dict:
		for i, k := range t.Keys {
			collect(t.Values[i], append(path, k), top, alts, out)
		}
	case []any:
		for i, el := range t {
			collect(el, append(path, i), top, alts, out)
		}
	}
}

func set(root any, path []any, v string) {
	cur := root
	for i, seg := range path {
		lastSeg := i == len(path)-1
		switch c := cur.(type) {
		case *pyjson.Dict:
			k := seg.(string)
			if lastSeg {
				c.Set(k, v)
				return
			}
			cur, _ = c.Get(k)
		case []any:
			j := seg.(int)
			if lastSeg {
				c[j] = v
				return
			}
			cur = c[j]
		}
	}
}

func pathString(path []any) string {
	var b strings.Builder
	for i, seg := range path {
		switch s := seg.(type) {
		case string:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		case int:
			b.WriteString("[" + strconv.Itoa(s) + "]")
		}
	}
	return b.String()
}
