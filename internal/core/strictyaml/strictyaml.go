// Package strictyaml reads a settings file (backbones.yaml, an experiment
// file) into a struct by its yaml tags, strictly and in one pass: the
// document is parsed into YAML nodes and walked key by key, so every unknown
// key (with a "did you mean" for a likely typo), key given twice and value
// of the wrong type is reported with the line it is on, in the file's terms
// ("`hot` is not a number"), never Go's. The lines of every key are kept, so
// that the caller's own validation can name lines too, and a validation
// problem about a value the decoder already reported is dropped (Covers).
package strictyaml

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ledgerbench/ledgerbench/internal/core/errext"
)

// Path is the place of a value: keys and list indexes from the document's
// root ("backbones", "gpt-4.1", "price", "input"; "grid", "0", "agents").
type Path []string

func (p Path) key() string { return strings.Join(p, "\x00") }

// Problem is one problem of a document, at its line (0: none).
type Problem struct {
	Line int
	// Path is what the problem is about (empty: the whole document).
	Path Path
	Msg  string
}

// Problems are a document's problems.
type Problems []Problem

// Err joins the problems in line order, each as "FILE:LINE: msg" ("FILE:
// msg" without a line; "line N: msg" without a file); nil if there are
// none.
func (ps Problems) Err(file string) error {
	if len(ps) == 0 {
		return nil
	}
	ps = slices.Clone(ps)
	slices.SortStableFunc(ps, func(a, b Problem) int { return a.Line - b.Line })
	errs := make([]error, len(ps))
	for i, p := range ps {
		switch {
		case file != "" && p.Line > 0:
			errs[i] = fmt.Errorf("%s:%d: %s", file, p.Line, p.Msg)
		case file != "":
			errs[i] = fmt.Errorf("%s: %s", file, p.Msg)
		case p.Line > 0:
			errs[i] = fmt.Errorf("line %d: %s", p.Line, p.Msg)
		default:
			errs[i] = errors.New(p.Msg)
		}
	}
	return errors.Join(errs...)
}

// Covers reports whether a problem of ps is about path or a value holding
// it: a validation problem about path would repeat it (a value of the wrong
// type is left unset; an unknown key with a suggestion stands for the key
// it suggests).
func (ps Problems) Covers(path Path) bool {
	for _, p := range ps {
		if len(p.Path) <= len(path) && slices.Equal(p.Path, path[:len(p.Path)]) {
			return true
		}
	}
	return false
}

// Lines are the lines of a document's keys.
type Lines struct{ m map[string]int }

// Of is the line of the key at path, else of its nearest enclosing key
// present (a missing key is reported where its mapping is named); 0 when
// none is.
func (l Lines) Of(path ...string) int {
	for p := Path(path); len(p) > 0; p = p[:len(p)-1] {
		if n, ok := l.m[p.key()]; ok {
			return n
		}
	}
	return 0
}

// Options tune the messages.
type Options struct {
	// Entries names the entries of a map of settings by the map's key:
	// {"backbones": "backbone"} reports a backbone's problems as
	// `backbone "x": …` and the map as "a mapping of backbone names to
	// their settings".
	Entries map[string]string
}

// Decode reads the document b into v (a pointer to a struct), reporting
// every problem. What decodes is set even when other values have problems;
// a document that is not a mapping sets nothing.
func Decode(b []byte, v any, opts Options) (Lines, Problems) {
	d := &decoder{lines: Lines{m: map[string]int{}}, opts: opts}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return d.lines, Problems{syntaxProblem(b, err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return d.lines, Problems{{Msg: "empty document"}}
	}
	root := doc.Content[0]
	rv := reflect.ValueOf(v).Elem()
	if root.Kind != yaml.MappingNode {
		d.add(root.Line, nil, "want a mapping "+rootKeys(rv.Type())+", found "+nodeKind(root))
		return d.lines, d.probs
	}
	d.structure(root, rv, nil, "", nil)
	return d.lines, d.probs
}

type decoder struct {
	lines Lines
	probs Problems
	opts  Options
}

func (d *decoder) add(line int, path Path, msg string) {
	d.probs = append(d.probs, Problem{Line: line, Path: slices.Clone(path), Msg: msg})
}

// A value's place is said as label (the entry it is in: `backbone "x": `,
// `grid[0]: `) and rel, its keys inside the entry ("price.input").

func join(rel []string, key string) string {
	return strings.Join(append(slices.Clone(rel), key), ".")
}

func colon(rel []string) string {
	if len(rel) == 0 {
		return ""
	}
	return strings.Join(rel, ".") + ": "
}

// pairs calls fn for each key and value of a mapping, reporting a key given
// twice and recording each key's line.
func (d *decoder) pairs(m *yaml.Node, path Path, label string, rel []string, fn func(k, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if first, ok := seen[k.Value]; ok {
			d.add(k.Line, append(path, k.Value), fmt.Sprintf("%s%skey %q given twice (first on line %d)", label, colon(rel), k.Value, first))
			continue
		}
		seen[k.Value] = k.Line
		d.lines.m[append(path, k.Value).key()] = k.Line
		fn(k, v)
	}
}

// structure decodes a mapping into a struct by its yaml tags.
func (d *decoder) structure(m *yaml.Node, v reflect.Value, path Path, label string, rel []string) {
	fields := map[string]int{}
	names := tags(v.Type())
	for i := range v.NumField() {
		if tag := tagOf(v.Type().Field(i)); tag != "" {
			fields[tag] = i
		}
	}
	d.pairs(m, path, label, rel, func(k, val *yaml.Node) {
		i, ok := fields[k.Value]
		if !ok {
			d.unknownKey(k, path, label+colon(rel), names)
			return
		}
		d.value(val, v.Field(i), append(slices.Clone(path), k.Value), label, append(slices.Clone(rel), k.Value))
	})
}

// value decodes one node into f, whatever its type.
func (d *decoder) value(n *yaml.Node, f reflect.Value, path Path, label string, rel []string) {
	what := label + strings.Join(rel, ".")
	t := f.Type()
	switch {
	case t.Kind() == reflect.Struct && t != durationType,
		t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && t.Elem() != durationType: // price: given means set
		if isNull(n) {
			return
		}
		st := t
		if t.Kind() == reflect.Pointer {
			st = t.Elem()
		}
		if n.Kind != yaml.MappingNode {
			d.add(n.Line, path, fmt.Sprintf("%s: want a mapping (%s), found %s", what, someKeys(st), nodeKind(n)))
			return
		}
		if t.Kind() == reflect.Pointer {
			f.Set(reflect.New(st))
			f = f.Elem()
		}
		d.structure(n, f, path, label, rel)
		return
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.Struct && t.Elem() != durationType:
		entry := d.opts.Entries[path[len(path)-1]]
		if isNull(n) {
			return
		}
		if n.Kind != yaml.MappingNode {
			of := "a mapping of names to their settings"
			if entry != "" {
				of = "a mapping of " + entry + " names to their settings"
			}
			d.add(n.Line, path, fmt.Sprintf("%s: want %s, found %s", what, of, nodeKind(n)))
			return
		}
		if entry == "" {
			entry = join(rel, "")
			entry = strings.TrimSuffix(entry, ".")
		}
		mv := reflect.MakeMap(t)
		d.pairs(n, path, label, rel, func(k, body *yaml.Node) {
			ev := reflect.New(t.Elem()).Elem()
			d.entry(body, ev, append(slices.Clone(path), k.Value), fmt.Sprintf("%s%s %q: ", label, entry, k.Value))
			mv.SetMapIndex(reflect.ValueOf(k.Value).Convert(t.Key()), ev)
		})
		f.Set(mv)
		return
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct && t.Elem() != durationType:
		if isNull(n) {
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.add(n.Line, path, fmt.Sprintf("%s: want a list, found %s", what, nodeKind(n)))
			return
		}
		sv := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, el := range n.Content {
			p := append(slices.Clone(path), strconv.Itoa(i))
			d.lines.m[p.key()] = el.Line
			d.entry(el, sv.Index(i), p, fmt.Sprintf("%s[%d]: ", what, i))
		}
		f.Set(sv)
		return
	}
	if n.Kind == yaml.MappingNode { // extra_body, splits: the lines of their keys
		d.keyLines(n, path)
	}
	p := reflect.New(t)
	if err := n.Decode(p.Interface()); err != nil || wholeFromFloat(n, t) {
		found := nodeKind(n)
		d.add(n.Line, path, fmt.Sprintf("%s: %s is not %s", what, found, errext.Kind(t)))
		return
	}
	f.Set(p.Elem())
}

// entry decodes one entry of a map or list of settings.
func (d *decoder) entry(n *yaml.Node, v reflect.Value, path Path, label string) {
	if n.Kind != yaml.MappingNode {
		d.add(n.Line, path, fmt.Sprintf("%swant a mapping of its settings (%s), found %s", label, someKeys(v.Type()), nodeKind(n)))
		return
	}
	d.structure(n, v, path, label, nil)
}

func (d *decoder) keyLines(m *yaml.Node, path Path) {
	for j := 0; j+1 < len(m.Content); j += 2 {
		p := append(slices.Clone(path), m.Content[j].Value)
		d.lines.m[p.key()] = m.Content[j].Line
		if m.Content[j+1].Kind == yaml.MappingNode {
			d.keyLines(m.Content[j+1], p)
		}
	}
}

// unknownKey reports a key that is not one of known, suggesting the nearest
// when it is a likely typo (the problem then stands for the key it
// suggests), else listing them all.
func (d *decoder) unknownKey(k *yaml.Node, path Path, ctx string, known []string) {
	best, dist := "", 3
	for _, name := range known {
		if e := editDistance(k.Value, name); e < dist {
			best, dist = name, e
		}
	}
	if best != "" {
		d.add(k.Line, append(path, best), fmt.Sprintf("%sunknown key %q (did you mean %q?)", ctx, k.Value, best))
		return
	}
	d.add(k.Line, append(path, k.Value), fmt.Sprintf("%sunknown key %q (known keys: %s)", ctx, k.Value, strings.Join(known, ", ")))
}

var durationType = reflect.TypeFor[time.Duration]()

func tagOf(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if tag == "-" || !f.IsExported() {
		return ""
	}
	return tag
}

// tags are a struct's keys in field order.
func tags(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag := tagOf(t.Field(i)); tag != "" {
			out = append(out, tag)
		}
	}
	return out
}

// someKeys lists a struct's keys, the first two and "…" when there are
// more than three.
func someKeys(t reflect.Type) string {
	keys := tags(t)
	if len(keys) > 3 {
		keys = append(keys[:2:2], "…")
	}
	return strings.Join(keys, ", ")
}

// rootKeys says what a document's mapping holds: "with the keys judge and
// backbones", or "of settings (name, out, …)".
func rootKeys(t reflect.Type) string {
	keys := tags(t)
	switch len(keys) {
	case 0:
		return "of settings"
	case 1:
		return "with the key " + keys[0]
	case 2, 3:
		return "with the keys " + strings.Join(keys[:len(keys)-1], ", ") + " and " + keys[len(keys)-1]
	}
	return "of settings (" + someKeys(t) + ")"
}

// wholeFromFloat reports a number with a fraction given for a whole number
// (the YAML decoder would drop the fraction).
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

// syntaxProblem is a YAML syntax error with its line. The parser's own line
// is where the enclosing block starts ("line 1: did not find expected key"
// for a key mis-indented on line 4), so the line is found as the first line
// at which the document read up to it fails with the same message (a binary
// search over line ends).
func syntaxProblem(b []byte, err error) Problem {
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
	return Problem{Line: line, Msg: "not valid YAML: " + msg}
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
