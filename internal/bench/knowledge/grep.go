package knowledge

import (
	"errors"
	"strings"
)

// grepRetriever is grep_retriever.py's GrepRetriever over the documents'
// contents in document order.
type grepRetriever struct {
	base *Base
	spec GrepSpec
}

func newGrep(base *Base, spec GrepSpec) *grepRetriever {
	return &grepRetriever{base: base, spec: spec}
}

func (g *grepRetriever) retrieve(query any) ([]Hit, error) {
	return nil, errors.ErrUnsupported
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
