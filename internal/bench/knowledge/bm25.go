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
	vocab vocab     // term → id, ids in order of first occurrence
	idf   []float64 // by term id
	// Postings by term id: post[start[id]:start[id+1]], documents in order.
	start []int32
	post  []posting
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

// NewBM25 indexes texts (in order) as BM25Okapi(tokenized_corpus) does, in
// one pass: each token is found in (or added to) the vocabulary, which
// gives every word its id in order of first occurrence, as rank_bm25's nd
// dict inserts them (documents in order, each document's words in order of
// first occurrence); each document's term frequencies are counted by id.
func NewBM25(texts []string) *BM25 {
	x := &BM25{n: len(texts), denom: make([]float64, len(texts))}
	if len(texts) == 0 {
		return x
	}
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	// About one distinct word per 40 bytes of text, one token per 7, and a
	// distinct (document, word) pair per 15 here; the tables grow when a
	// corpus has more.
	x.vocab.init(max(1024, pow2(size/20)))
	type docPosting struct{ id, tf int32 }
	post := make([]docPosting, 0, size/12)
	docEnd := make([]int32, len(texts)) // each document's end in post
	var df []int32                      // by id; then the postings' starts
	cnt := make([]int32, 0, size/40)    // by id: the current document's frequency
	total := 0
	var tok tokenizer
	for d, t := range texts {
		first := len(post)
		n := 0
		tok.scan(t, func(k key, long []byte) {
			n++
			id := x.vocab.findOrInsert(k, long)
			if int(id) == len(cnt) {
				cnt = append(cnt, 0)
				df = append(df, 0)
			}
			if cnt[id] == 0 {
				post = append(post, docPosting{id: id})
			}
			cnt[id]++
		})
		for i := first; i < len(post); i++ {
			id := post[i].id
			post[i].tf = cnt[id]
			cnt[id] = 0
			df[id]++
		}
		docEnd[d] = int32(len(post))
		// _initialize: avgdl = num_doc / corpus_size, below.
		x.denom[d] = float64(n)
		total += n
	}
	// Postings by term, documents in order (a stable counting sort).
	x.start = make([]int32, len(df)+1)
	for id, f := range df {
		x.start[id+1] = x.start[id] + f
	}
	x.post = make([]posting, len(post))
	fill := df // reused: the next free place of each term
	copy(fill, x.start[:len(df)])
	d := int32(0)
	for i, p := range post {
		for int32(i) >= docEnd[d] {
			d++
		}
		x.post[fill[p.id]] = posting{d, p.tf}
		fill[p.id]++
	}
	avgdl := float64(total) / float64(x.n)
	for d, l := range x.denom {
		// self.k1 * (1 - self.b + self.b * doc_len / self.avgdl)
		x.denom[d] = float64(bm25K1 * float64(float64(1-bm25B)+float64(float64(bm25B*l)/avgdl)))
	}
	// _calc_idf, over the words in order of first occurrence.
	nt := len(x.start) - 1
	x.idf = make([]float64, nt)
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
	for id := range nt {
		f := int(x.start[id+1] - x.start[id])
		idf := logHalf(x.n-f) - logHalf(f)
		x.idf[id] = idf
		sum += idf
		if idf < 0 {
			negative = append(negative, int32(id))
		}
	}
	if nt > 0 {
		eps := float64(bm25Epsilon * (sum / float64(nt)))
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
	tok.scan(query, func(k key, long []byte) {
		id, ok := x.vocab.find(k, long)
		if !ok {
			return // idf.get(q) or 0: adds zeros
		}
		idf := x.idf[id]
		if idf == 0 {
			return // adds zeros
		}
		for _, p := range x.post[x.start[id]:x.start[id+1]] {
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

// pow2 is the least power of two >= n (1 for n <= 1).
func pow2(n int) int {
	p := 1
	for p < n {
		p *= 2
	}
	return p
}

// key is a lowered token as the vocabulary compares it: its hash, its
// first eight bytes (little-endian, zero-padded) and its length; a longer
// token's remaining bytes are compared from memory.
type key struct {
	hash uint64
	w0   uint64
	n    uint32
	off  uint32 // in the vocabulary's arena, for keys longer than 8 bytes
}

// vocab is an open-addressing hash table of lowered tokens: ids are dense
// from 0 in insertion order, keys[id] describes each. A slot holds what
// most comparisons need (the first word, the length and part of the hash),
// so a lookup of a short token touches one slot.
type vocab struct {
	slots []vslot
	keys  []key
	arena []byte // the bytes after the first eight of long keys
}

type vslot struct {
	w0 uint64
	hn uint32 // hash bits above the length byte | length (capped at 255)
	id int32  // id+1; 0 is empty
}

func (v *vocab) init(size int) {
	v.slots = make([]vslot, size)
	v.keys = make([]key, 0, size/2+1)
}

func tag(k key) uint32 { return uint32(k.hash>>32)&^0xff | min(k.n, 255) }

func (v *vocab) long(k key) []byte {
	if k.n <= 8 {
		return nil
	}
	return v.arena[k.off : k.off+k.n-8]
}

// lookup returns the key's slot index and whether the key is there.
func (v *vocab) lookup(k key, long []byte) (uint64, bool) {
	mask := uint64(len(v.slots) - 1)
	t := tag(k)
	for i := k.hash & mask; ; i = (i + 1) & mask {
		s := &v.slots[i]
		if s.id == 0 {
			return i, false
		}
		if s.w0 == k.w0 && s.hn == t {
			if k.n <= 8 {
				return i, true
			}
			o := &v.keys[s.id-1]
			if o.n == k.n && string(v.arena[o.off:o.off+o.n-8]) == string(long) {
				return i, true
			}
		}
	}
}

func (v *vocab) find(k key, long []byte) (int32, bool) {
	i, ok := v.lookup(k, long)
	return v.slots[i].id - 1, ok
}

// findOrInsert returns the key's id, adding it when new. long is the
// lowered bytes after the first eight (copied when the key is added).
func (v *vocab) findOrInsert(k key, long []byte) int32 {
	i, ok := v.lookup(k, long)
	if ok {
		return v.slots[i].id - 1
	}
	id := int32(len(v.keys))
	if k.n > 8 {
		k.off = uint32(len(v.arena))
		v.arena = append(v.arena, long...)
	}
	v.keys = append(v.keys, k)
	v.slots[i] = vslot{k.w0, tag(k), id + 1}
	if 2*len(v.keys) > len(v.slots) {
		v.grow()
	}
	return id
}

func (v *vocab) grow() {
	v.slots = make([]vslot, 2*len(v.slots))
	mask := uint64(len(v.slots) - 1)
	for id, k := range v.keys {
		i := k.hash & mask
		for v.slots[i].id != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = vslot{k.w0, tag(k), int32(id) + 1}
	}
}

const (
	mixK1 = 0x9e3779b97f4a7c15
	mixK2 = 0xc2b2ae3d27d4eb4f
)

func mix(h, w uint64) uint64 {
	h = (h ^ w) * mixK1
	return h ^ h>>31
}

func finish(h uint64, n int) uint64 {
	h = (h ^ uint64(n)) * mixK2
	return h ^ h>>29
}

// keyOf is the key of lowered bytes: eight-byte little-endian words, the
// last zero-padded, mixed in order (scan computes the same from the text).
func keyOf(b []byte) (key, []byte) {
	var h, w0 uint64
	for i := 0; i < len(b); i += 8 {
		var w uint64
		for j := i; j < len(b) && j < i+8; j++ {
			w |= uint64(b[j]) << (8 * (j - i))
		}
		if i == 0 {
			w0 = w
		}
		h = mix(h, w)
	}
	var long []byte
	if len(b) > 8 {
		long = b[8:]
	}
	return key{hash: finish(h, len(b)), w0: w0, n: uint32(len(b))}, long
}

// byteClass: 0 whitespace (str.isspace), 1 other ASCII, 2 not ASCII.
var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = 2
		case asciiSpace[c]:
			t[c] = 0
		default:
			t[c] = 1
		}
	}
	return t
}()

// lowerWord lowers the ASCII letters of eight ASCII bytes at once.
func lowerWord(w uint64) uint64 {
	const hi = 0x8080808080808080
	up := (w + 0x3f3f3f3f3f3f3f3f) &^ (w + 0x2525252525252525) & hi
	return w | up>>2
}

// loadWord reads up to eight bytes of s from i, little-endian, zero-padded
// beyond n bytes.
func loadWord(s string, i, n int) uint64 {
	if n >= 8 {
		_ = s[i+7]
		return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	}
	var w uint64
	for j := range n {
		w |= uint64(s[i+j]) << (8 * j)
	}
	return w
}

// tokenizer splits str.lower() of a text at str.split()'s whitespace.
// ASCII tokens are lowered and hashed a word at a time, without a copy; a
// token with other characters is lowered by pyjson.Lower (Python's full
// mapping) into a buffer.
type tokenizer struct{ buf []byte }

func (tk *tokenizer) scan(text string, fn func(k key, long []byte)) {
	i, n := 0, len(text)
	for i < n {
		cl := byteClass[text[i]]
		if cl == 0 {
			i++
			continue
		}
		if cl == 2 {
			if r, size := utf8.DecodeRuneInString(text[i:]); pyjson.IsSpace(r) {
				i += size
				continue
			}
		}
		start := i
		ascii := true
		for i < n {
			cl := byteClass[text[i]]
			if cl == 1 {
				i++
				continue
			}
			if cl == 0 {
				break
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if pyjson.IsSpace(r) {
				break
			}
			ascii = false
			i += size
		}
		l := i - start
		if !ascii {
			// Lowering never makes whitespace, so a token lowers on its own.
			tk.buf = append(tk.buf[:0], pyjson.Lower(text[start:i])...)
			k, long := keyOf(tk.buf)
			fn(k, long)
			continue
		}
		var h uint64
		w0 := lowerWord(loadWord(text, start, min(l, 8)))
		h = mix(h, w0)
		for j := 8; j < l; j += 8 {
			h = mix(h, lowerWord(loadWord(text, start+j, min(l-j, 8))))
		}
		var long []byte
		if l > 8 {
			tk.buf = append(tk.buf[:0], text[start+8:i]...)
			for j, c := range tk.buf {
				if c-'A' < 26 {
					tk.buf[j] = c + ('a' - 'A')
				}
			}
			long = tk.buf
		}
		fn(key{hash: finish(h, l), w0: w0, n: uint32(l)}, long)
	}
}

// Tokens is upstream's BM25 tokenisation, text.lower().split().
func Tokens(text string) []string {
	return strings.FieldsFunc(pyjson.Lower(text), pyjson.IsSpace)
}

// asciiSpace is str.isspace for ASCII: \t \n \v \f \r, the information
// separators \x1c-\x1f and space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true,
	0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true, ' ': true}
