package knowledge

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyre"
)

// grepRetriever is grep_retriever.py's GrepRetriever over the documents'
// contents in document order (doc_content_map's order).
type grepRetriever struct {
	base  *Base
	spec  GrepSpec
	texts [][]rune // by document
}

func newGrep(base *Base, spec GrepSpec) *grepRetriever {
	g := &grepRetriever{base: base, spec: spec, texts: make([][]rune, base.Len())}
	for i, d := range base.Docs() {
		g.texts[i] = []rune(d.Content)
	}
	return g
}

// retrieve is GrepRetriever.retrieve: the pattern (re.escape'd when re
// rejects it) matched case-insensitively unless the spec says otherwise;
// a document's score is its number of matches; documents without one are
// left out; the best top_k, ties in document order.
func (g *grepRetriever) retrieve(ctx context.Context, query any) ([]Hit, error) {
	q, ok := query.(string)
	if !ok {
		return nil, noAttr(query, "strip")
	}
	if pyjson.Strip(q) == "" {
		return nil, nil
	}
	var flags pyre.Flags
	if !g.spec.CaseSensitive {
		flags = pyre.IgnoreCase
	}
	re, err := pyre.Compile(q, flags)
	var reErr *pyre.Error
	if errors.As(err, &reErr) {
		re, err = pyre.Compile(pyre.Escape(q), flags)
	}
	if err != nil {
		return nil, err // an exception other than re.error, raised as it is
	}
	var hits []Hit
	for i, text := range g.texts {
		n, err := re.CountAll(ctx, text)
		if err != nil {
			return nil, ctx.Err()
		}
		if n > 0 {
			hits = append(hits, Hit{g.base.docs[i].ID, float64(n)})
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmpDesc(a.Score, b.Score) })
	return hits[:clampStop(int64(g.spec.TopK), len(hits))], nil
}

// FormatGrep is the grep tool's output for a result (GrepMixin.grep): the
// hits as KB_search lists them, without a timing line, or upstream's
// no-match sentence.
func (p *Pipeline) FormatGrep(pattern string, r Result) string {
	if len(r.Hits) == 0 {
		return "No matches found for pattern: " + pattern
	}
	var b strings.Builder
	p.writeHits(&b, r.Hits)
	return b.String()
}
