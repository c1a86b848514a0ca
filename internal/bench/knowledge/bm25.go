package knowledge

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pymath"
)

// rank_bm25's BM25Okapi parameters (its defaults; upstream passes none).
const (
	bm25K1      = 1.5
	bm25B       = 0.75
	bm25Epsilon = 0.25
)

// BM25 is rank_bm25's BM25Okapi over documents tokenised as upstream's
// bm25_indexer does (str.lower().split()). Every score is computed with the
// floating-point operations numpy performs for BM25Okapi.get_scores, in the
// same order, each rounded separately (no fused multiply-add: the explicit
// float64 conversions forbid it), so scores are upstream's bit for bit;
// the idf's logarithms are correctly rounded, as glibc's (which Python's
// math.log calls) are on every argument rank_bm25 takes for a corpus of
// fewer than 38,437 documents (pymath.Log). It is immutable once built.
type BM25 struct {
	n     int
	vocab map[string]int32 // term → id, ids in order of first occurrence
	idf   []float64        // by term id
	post  [][]posting      // by term id: documents in order
	// denom[d] is k1·(1 − b + b·|d|/avgdl), the per-document part of the
	// denominator.
	denom []float64
}

type posting struct {
	doc int32
	tf  int32
}

// Scored is a document's index and score.
type Scored struct {
	Index int
	Score float64
}

// NewBM25 indexes texts (in order) as BM25Okapi(tokenized_corpus) does.
func NewBM25(texts []string) *BM25 {
	x := &BM25{n: len(texts), vocab: make(map[string]int32, 1<<14), denom: make([]float64, len(texts))}
	docLen := make([]int, len(texts))
	var counts []int32 // by term id, this document's term frequencies
	var touched []int32
	var tok tokenizer
	total := 0
	for d, text := range texts {
		n := 0
		tok.each(text, func(t []byte) {
			n++
			id, ok := x.vocab[string(t)]
			if !ok {
				id = int32(len(x.post))
				x.vocab[string(t)] = id
				x.post = append(x.post, nil)
				counts = append(counts, 0)
			}
			if counts[id] == 0 {
				touched = append(touched, id)
			}
			counts[id]++
		})
		for _, id := range touched {
			x.post[id] = append(x.post[id], posting{int32(d), counts[id]})
			counts[id] = 0
		}
		touched = touched[:0]
		docLen[d] = n
		total += n
	}
	if x.n == 0 {
		return x
	}
	// _initialize: avgdl = num_doc / corpus_size (true division).
	avgdl := float64(total) / float64(x.n)
	for d, l := range docLen {
		// self.k1 * (1 - self.b + self.b * doc_len / self.avgdl)
		x.denom[d] = float64(bm25K1 * float64(float64(1-bm25B)+float64(float64(bm25B*float64(l))/avgdl)))
	}
	// _calc_idf, over the words in order of first occurrence.
	x.idf = make([]float64, len(x.post))
	logs := make([]float64, x.n+1) // log(k + 0.5), computed when first needed
	have := make([]bool, x.n+1)
	logHalf := func(k int) float64 {
		if !have[k] {
			logs[k], have[k] = pymath.Log(float64(k)+0.5), true
		}
		return logs[k]
	}
	sum := 0.0
	var negative []int32
	for id, p := range x.post {
		freq := len(p)
		idf := logHalf(x.n-freq) - logHalf(freq)
		x.idf[id] = idf
		sum += idf
		if idf < 0 {
			negative = append(negative, int32(id))
		}
	}
	if len(x.idf) > 0 {
		eps := float64(bm25Epsilon * (sum / float64(len(x.idf))))
		for _, id := range negative {
			x.idf[id] = eps
		}
	}
	return x
}

// Len is the number of documents.
func (x *BM25) Len() int { return x.n }

// Scores is BM25Okapi.get_scores(query.lower().split()): one score per
// document.
func (x *BM25) Scores(query string) []float64 {
	score := make([]float64, x.n)
	x.accumulate(query, score)
	return score
}

func (x *BM25) accumulate(query string, score []float64) {
	var tok tokenizer
	tok.each(query, func(t []byte) {
		id, ok := x.vocab[string(t)]
		if !ok {
			return // idf.get(q) or 0: adds zeros
		}
		idf := x.idf[id]
		if idf == 0 {
			return // adds zeros
		}
		for _, p := range x.post[id] {
			tf := float64(p.tf)
			// idf * (q_freq * (k1 + 1) / (q_freq + k1 * (…)))
			q := float64(float64(tf*(bm25K1+1)) / float64(tf+x.denom[p.doc]))
			score[p.doc] += float64(idf * q)
		}
		// Documents without the word add idf·0 = 0, which changes no sum.
	})
}

// Top is BM25Retriever.retrieve's ranking: the documents by descending
// score, ties in document order (Python's stable sort), cut at
// min(topK, n) as a Python slice cuts (a negative topK counts from the
// end).
func (x *BM25) Top(query string, topK int) []Scored {
	score := make([]float64, x.n)
	x.accumulate(query, score)
	return topScored(score, clampStop(int64(min(topK, x.n)), x.n))
}

// topScored returns the k best of score (descending, ties by index).
func topScored(score []float64, k int) []Scored {
	if k <= 0 {
		return nil
	}
	if k > len(score)/4 {
		all := make([]Scored, len(score))
		for i, s := range score {
			all[i] = Scored{i, s}
		}
		slices.SortStableFunc(all, func(a, b Scored) int { return cmpDesc(a.Score, b.Score) })
		return all[:k]
	}
	top := make([]Scored, 0, k+1)
	for i, s := range score {
		if len(top) == k && !(s > top[k-1].Score) {
			continue
		}
		// Insert after every kept score >= s (stable).
		j := len(top)
		for j > 0 && top[j-1].Score < s {
			j--
		}
		top = slices.Insert(top, j, Scored{i, s})
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// Tokens is upstream's BM25 tokenisation, text.lower().split().
func Tokens(text string) []string {
	var out []string
	var tok tokenizer
	tok.each(text, func(t []byte) { out = append(out, string(t)) })
	return out
}

// tokenizer splits str.lower() of a text at str.split()'s whitespace,
// without building the lowered text: ASCII bytes are lowered in place into
// a reused buffer, a token with other characters is lowered by
// pyjson.Lower (Python's full mapping).
type tokenizer struct{ buf []byte }

func (tk *tokenizer) each(text string, fn func(tok []byte)) {
	i, n := 0, len(text)
	for i < n {
		// Skip whitespace.
		for i < n {
			c := text[i]
			if c < utf8.RuneSelf {
				if !asciiSpace[c] {
					break
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !pyjson.IsSpace(r) {
				break
			}
			i += size
		}
		if i >= n {
			return
		}
		start := i
		ascii := true
		for i < n {
			c := text[i]
			if c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if pyjson.IsSpace(r) {
				break
			}
			ascii = false
			i += size
		}
		word := text[start:i]
		if ascii {
			tk.buf = append(tk.buf[:0], word...)
			for j, c := range tk.buf {
				if 'A' <= c && c <= 'Z' {
					tk.buf[j] = c + ('a' - 'A')
				}
			}
			fn(tk.buf)
			continue
		}
		// Lowering never makes whitespace, so a token lowers on its own.
		for _, t := range strings.FieldsFunc(pyjson.Lower(word), pyjson.IsSpace) {
			tk.buf = append(tk.buf[:0], t...)
			fn(tk.buf)
		}
	}
}

// asciiSpace is str.isspace for ASCII: \t \n \v \f \r, the information
// separators \x1c-\x1f and space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true,
	0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true, ' ': true}
