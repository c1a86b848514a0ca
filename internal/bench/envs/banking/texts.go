package banking

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// The tools' output and error texts are upstream's string literals, read
// from the pulled tools.py (and db_query.py, retrieval.py) at load, one
// pass per file (pyliteral.AllFuncStrings), and addressed by function and
// ordinal. textShapes (textshapes.go) says
// what each tool expects of the methods it renders: how many literals the
// method has and the field expressions of each literal used; a source of
// another shape is a load error naming the method, so a changed upstream
// file fails to load rather than rendering the wrong text.

// textShape is what the tools expect of one method's literals.
type textShape struct {
	n    int              // literals in the method
	uses map[int][]string // ordinal → field expressions (none: a plain text)
}

// lits are one method's string literals in source order.
type lits []pyliteral.StringLit

// s is literal k's text (a plain literal or an f-string without fields).
func (l lits) s(k int) string {
	if !l[k].FString {
		return l[k].Value
	}
	return strings.Join(l[k].Parts, "")
}

// f is f-string k with its fields filled in order: a str as it is, a
// number as Python formats it under the field's spec (".2f", ".0f" or
// none), another value as str() does.
func (l lits) f(k int, values ...any) string {
	lit := l[k]
	texts := make([]string, len(values))
	for i, v := range values {
		spec := ""
		if i < len(lit.Specs) {
			spec = lit.Specs[i].Spec
		}
		texts[i] = fieldText(v, spec)
	}
	out, err := lit.Render(texts...)
	if err != nil { // textShapes fixes the number of fields
		panic(fmt.Sprintf("banking: literal %d: %v", k, err))
	}
	return out
}

// executed is the frame the discoverable tools answer with (what was
// done, the tool's name, its arguments as json.dumps(..., indent=2), then
// the rest): f-string k with args as its first field, rest after. It is
// the one place the frames are rendered.
func (l lits) executed(k int, args *pyjson.Dict, rest ...any) string {
	return l.f(k, append([]any{jsonIndent(args)}, rest...)...)
}

// fieldText formats one field value.
func fieldText(v any, spec string) string {
	if s, ok := v.(string); ok {
		return s
	}
	if n, ok := strings.CutPrefix(spec, "."); ok && strings.HasSuffix(n, "f") {
		if d, err := strconv.Atoi(strings.TrimSuffix(n, "f")); err == nil {
			if f, _, ok := number(v); ok {
				return strconv.FormatFloat(f, 'f', d, 64)
			}
		}
	}
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return str(v)
}

// The other sources whose literals the tools render: db_query.py's
// query_database_tool (every query's answer) and retrieval.py's
// golden_prompt (its text when a task names no document). Their literals
// are under "<module>.<function>" (queryTexts, goldenTexts).
const (
	queryFile   = "domains/banking_knowledge/db_query.py"
	queryTexts  = "db_query.query_database_tool"
	goldenTexts = "retrieval.golden_prompt"
)

var (
	queryShapes = map[string]textShape{"query_database_tool": {13, map[int][]string{
		4: {"database_name", "available_dbs"}, 5: {"e"}, 6: {"database_name"}, 7: {"len(results)", "database_name"},
		8: {"i", "record_id"}, 9: {"field", "value"}, 10: nil, 11: nil, 12: {"str(e)"}}}}
	retrievalShapes = map[string]textShape{"golden_prompt": {7, map[int][]string{5: nil}}}
)

// loadTexts reads the literals of every function of a source in one pass,
// checks those of shapes, and adds them to into under prefix+name.
func loadTexts(into map[string]lits, path string, src []byte, shapes map[string]textShape, prefix string) error {
	all, err := pyliteral.AllFuncStrings(src)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	for m, sh := range shapes {
		l, ok := all[m]
		if !ok {
			return fmt.Errorf("%s: %s: %w", path, m, pyliteral.ErrNoFunction)
		}
		if err := sh.check(l); err != nil {
			return fmt.Errorf("%s: %s: %w", path, m, err)
		}
		into[prefix+m] = l
	}
	return nil
}

// readTexts is loadTexts of a pulled source file.
func readTexts(into map[string]lits, root, rel string, shapes map[string]textShape, prefix string) error {
	path := data.Tau2Source(root, rel)
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read upstream source: %w", err)
	}
	return loadTexts(into, path, src, shapes, prefix)
}

// check reports the first way literals differ from the shape.
func (sh textShape) check(l []pyliteral.StringLit) error {
	if len(l) != sh.n {
		return fmt.Errorf("%d string literals, the tool expects %d", len(l), sh.n)
	}
	ks := make([]int, 0, len(sh.uses))
	for k := range sh.uses {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	for _, k := range ks {
		want := sh.uses[k]
		if got := l[k].Fields; !slices.Equal(got, want) {
			return fmt.Errorf("literal %d (line %d) has fields %q, the tool expects %q", k, l[k].Line, got, want)
		}
	}
	return nil
}
