package llm

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Reading a backbones file: the document is parsed into YAML nodes and
// walked key by key, so every problem (an unknown key, a value of the wrong
// type, a key given twice, and after decoding a missing field or a bad
// value) is reported with the line it is on.

// lineProblem is one problem of a backbones file and its line (0: none).
type lineProblem struct {
	line int
	msg  string
}

type lineProblems []lineProblem

// err joins the problems in line order, each as "PATH:LINE: msg" (or
// "line LINE: msg" without a path).
func (ps lineProblems) err(path string) error {
	slices.SortStableFunc(ps, func(a, b lineProblem) int { return a.line - b.line })
	errs := make([]error, len(ps))
	for i, p := range ps {
		switch {
		case path != "" && p.line > 0:
			errs[i] = fmt.Errorf("%s:%d: %s", path, p.line, p.msg)
		case path != "":
			errs[i] = fmt.Errorf("%s: %s", path, p.msg)
		case p.line > 0:
			errs[i] = fmt.Errorf("line %d: %s", p.line, p.msg)
		default:
			errs[i] = errors.New(p.msg)
		}
	}
	return errors.Join(errs...)
}

// positions are the lines of a file's keys: the top-level keys, each
// backbone's name and each of its keys (nested keys as "price.input").
type positions struct {
	top       map[string]int
	backbones map[string]int
	keys      map[string]map[string]int
	// embeddings entries' lines, as backbones'
	embeddings    map[string]int
	embeddingKeys map[string]map[string]int
}

// line is the line of a backbone's key (its name's line when the key is
// absent or empty), or of a top-level key when backbone is empty.
func (p *positions) line(backbone, key string) int {
	return p.lineIn("", backbone, key)
}

// lineIn is line for a backbone (section "") or an embeddings entry
// (section "embedding").
func (p *positions) lineIn(section, backbone, key string) int {
	if p == nil {
		return 0
	}
	if backbone == "" {
		return p.top[key]
	}
	names, keysBy := p.backbones, p.keys
	if section != "" {
		names, keysBy = p.embeddings, p.embeddingKeys
	}
	keys := keysBy[backbone]
	for k := key; k != ""; {
		if l, ok := keys[k]; ok {
			return l
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return names[backbone]
}

// located is Validate's problems with their lines.
func (c *Config) located() lineProblems {
	var out lineProblems
	for _, p := range c.problems() {
		msg := p.msg
		if p.backbone != "" {
			msg = fmt.Sprintf("%s %q: %s", p.kind(), p.backbone, p.msg)
		}
		out = append(out, lineProblem{c.pos.lineIn(p.section, p.backbone, p.key), msg})
	}
	return out
}

var durationType = reflect.TypeFor[time.Duration]()

// decode parses a backbones document into a Config, reporting every
// unknown key, duplicate key and value of the wrong type with its line.
func decode(b []byte) (*Config, lineProblems) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, lineProblems{syntaxProblem(b, err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, lineProblems{{0, "empty document"}}
	}
	root := doc.Content[0]
	cfg := &Config{pos: &positions{top: map[string]int{}, backbones: map[string]int{}, keys: map[string]map[string]int{},
		embeddings: map[string]int{}, embeddingKeys: map[string]map[string]int{}}}
	if root.Kind != yaml.MappingNode {
		return nil, lineProblems{{root.Line, "want a mapping with the keys judge, backbones and embeddings, found " + nodeKind(root)}}
	}
	var probs lineProblems
	known := []string{"judge", "backbones", "embeddings"}
	eachPair(root, "", &probs, func(k, v *yaml.Node) {
		cfg.pos.top[k.Value] = k.Line
		switch k.Value {
		case "judge":
			cfg.pos.top["judge"] = v.Line
			decodeValue(v, reflect.ValueOf(&cfg.Judge).Elem(), "judge", &probs)
		case "backbones":
			if v.Kind != yaml.MappingNode {
				if !isNull(v) {
					probs = append(probs, lineProblem{v.Line, "backbones: want a mapping of backbone names to their settings, found " + nodeKind(v)})
				}
				return
			}
			cfg.Backbones = map[string]Backbone{}
			eachPair(v, "backbones: ", &probs, func(name, body *yaml.Node) {
				cfg.pos.backbones[name.Value] = name.Line
				keys := map[string]int{}
				cfg.pos.keys[name.Value] = keys
				bb := Backbone{Name: name.Value}
				ctx := fmt.Sprintf("backbone %q: ", name.Value)
				if body.Kind != yaml.MappingNode {
					probs = append(probs, lineProblem{body.Line, ctx + "want a mapping of its settings (base_url, model, …), found " + nodeKind(body)})
				} else {
					decodeStruct(body, reflect.ValueOf(&bb).Elem(), ctx, "", keys, &probs)
				}
				cfg.Backbones[name.Value] = bb
			})
		case "embeddings":
			if v.Kind != yaml.MappingNode {
				if !isNull(v) {
					probs = append(probs, lineProblem{v.Line, "embeddings: want a mapping of embedding model names to their settings, found " + nodeKind(v)})
				}
				return
			}
			cfg.Embeddings = map[string]Embedding{}
			eachPair(v, "embeddings: ", &probs, func(name, body *yaml.Node) {
				cfg.pos.embeddings[name.Value] = name.Line
				keys := map[string]int{}
				cfg.pos.embeddingKeys[name.Value] = keys
				e := Embedding{Name: name.Value}
				ctx := fmt.Sprintf("embedding %q: ", name.Value)
				if body.Kind != yaml.MappingNode {
					probs = append(probs, lineProblem{body.Line, ctx + "want a mapping of its settings (type, base_url, model, …), found " + nodeKind(body)})
				} else {
					decodeStruct(body, reflect.ValueOf(&e).Elem(), ctx, "", keys, &probs)
				}
				cfg.Embeddings[name.Value] = e
			})
		default:
			probs = append(probs, unknownKey(k, "", known))
		}
	})
	return cfg, probs
}

// eachPair calls fn for each key and value of a mapping, reporting a key
// given twice.
func eachPair(m *yaml.Node, ctx string, probs *lineProblems, fn func(k, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if first, ok := seen[k.Value]; ok {
			*probs = append(*probs, lineProblem{k.Line, fmt.Sprintf("%skey %q given twice (first on line %d)", ctx, k.Value, first)})
			continue
		}
		seen[k.Value] = k.Line
		fn(k, v)
	}
}

// decodeStruct decodes a mapping into a struct by its yaml tags, key by
// key; nested structs (price) are walked the same way. prefix is the
// dotted path of the mapping's keys for keys ("price.").
func decodeStruct(m *yaml.Node, v reflect.Value, ctx, prefix string, keys map[string]int, probs *lineProblems) {
	fields := map[string]int{}
	var names []string
	t := v.Type()
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		fields[tag] = i
		names = append(names, tag)
	}
	eachPair(m, ctx+prefix, probs, func(k, val *yaml.Node) {
		keys[prefix+k.Value] = k.Line
		i, ok := fields[k.Value]
		if !ok {
			*probs = append(*probs, unknownKey(k, ctx+strings.TrimSuffix(prefix, ".")+colonIf(prefix), names))
			return
		}
		f := v.Field(i)
		optional := f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct
		if f.Kind() == reflect.Struct && f.Type() != durationType || optional {
			if isNull(val) {
				return
			}
			if optional { // price: given means set, even when empty
				f.Set(reflect.New(f.Type().Elem()))
				f = f.Elem()
			}
			if val.Kind != yaml.MappingNode {
				*probs = append(*probs, lineProblem{val.Line, fmt.Sprintf("%s%s%s: want a mapping (%s), found %s", ctx, prefix, k.Value, strings.Join(structKeys(f.Type()), ", "), nodeKind(val))})
				return
			}
			decodeStruct(val, f, ctx, prefix+k.Value+".", keys, probs)
			return
		}
		if val.Kind == yaml.MappingNode { // extra_body: its keys' lines
			for j := 0; j+1 < len(val.Content); j += 2 {
				keys[prefix+k.Value+"."+val.Content[j].Value] = val.Content[j].Line
			}
		}
		decodeValue(val, f, ctx+prefix+k.Value, probs)
	})
}

func colonIf(prefix string) string {
	if prefix == "" {
		return ""
	}
	return ": "
}

// decodeValue decodes one value node into f, reporting a value of the wrong
// type in words ("`hot` is not a number").
func decodeValue(n *yaml.Node, f reflect.Value, what string, probs *lineProblems) {
	p := reflect.New(f.Type())
	if err := n.Decode(p.Interface()); err != nil || wholeFromFloat(n, f.Type()) {
		found := nodeKind(n)
		if n.Kind == yaml.ScalarNode {
			found = "`" + n.Value + "`"
		}
		*probs = append(*probs, lineProblem{n.Line, fmt.Sprintf("%s: %s is not %s", what, found, kindOf(f.Type()))})
		return
	}
	f.Set(p.Elem())
}

// wholeFromFloat reports a number with a fraction given for a whole
// number (the decoder would drop the fraction).
func wholeFromFloat(n *yaml.Node, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return t != durationType && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float"
	}
	return false
}

// unknownKey reports a key that is not one of known, suggesting the
// nearest when it is a likely typo, else listing them all.
func unknownKey(k *yaml.Node, ctx string, known []string) lineProblem {
	best, dist := "", 3
	for _, name := range known {
		if d := editDistance(k.Value, name); d < dist {
			best, dist = name, d
		}
	}
	if best != "" {
		return lineProblem{k.Line, fmt.Sprintf("%sunknown key %q (did you mean %q?)", ctx, k.Value, best)}
	}
	return lineProblem{k.Line, fmt.Sprintf("%sunknown key %q (known keys: %s)", ctx, k.Value, strings.Join(known, ", "))}
}

func structKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

// kindOf names what a field holds, in a file's terms.
func kindOf(t reflect.Type) string {
	if t == durationType {
		return "a duration such as 90s or 5m"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return kindOf(t.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list"
	}
	return "a mapping"
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if isNull(n) {
		return "nothing"
	}
	return "`" + n.Value + "`"
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// syntaxProblem is a YAML syntax error with its line. The parser's own
// line is where the enclosing block starts ("line 1: did not find expected
// key" for a key mis-indented on line 4), so the line is found as the first
// line at which the document read up to it fails with the same message
// (a binary search over line ends).
func syntaxProblem(b []byte, err error) lineProblem {
	line, msg := splitYAMLError(err)
	var ends []int // ends[i]: the end of line i+1
	for i, c := range b {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(b) {
		ends = append(ends, len(b))
	}
	fails := func(i int) bool {
		var n yaml.Node
		perr := yaml.Unmarshal(b[:ends[i]], &n)
		if perr == nil {
			return false
		}
		_, m := splitYAMLError(perr)
		return m == msg
	}
	if i := sort.Search(len(ends), fails); i < len(ends) {
		line = i + 1
	}
	return lineProblem{line, "not valid YAML: " + msg}
}

// splitYAMLError splits "yaml: line N: msg" into N and msg.
func splitYAMLError(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		_, msg, _ = strings.Cut(msg, ": ")
	}
	return line, msg
}

// editDistance is the Levenshtein distance of two short keys.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
