package knowledge

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
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
func NewBM25(texts []string) *BM25 { return newBM25(texts, pathAuto) }

// newBM25 is NewBM25 with the tokenizer's path chosen (tokenizer.path).
func newBM25(texts []string, path int8) *BM25 {
	x := &BM25{n: len(texts), denom: make([]float64, len(texts))}
	if len(texts) == 0 {
		return x
	}
	size, longest := 0, 0
	for _, t := range texts {
		size += len(t)
		longest = max(longest, len(t))
	}
	// About one distinct word per 80 bytes of text (entries are made for
	// one per 64, slots for one per 16: the table is about 1/5 full, so
	// nearly every token is in its home slot, the one wideProbe reads) and
	// a distinct (document, word) pair per 11 here; the tables grow when a
	// corpus has more.
	x.vocab.init(size/64, size/16)
	sc, _ := scratches.Get().(*buildScratch)
	if sc == nil {
		sc = new(buildScratch)
	}
	post := slices.Grow(sc.post[:0], size/10)
	docEnd := slices.Grow(sc.docEnd[:0], len(texts))[:len(texts)] // each document's end in post
	// By id: the current document's count and the document frequency.
	counts := slices.Grow(sc.counts[:0], cap(x.vocab.ent))
	total := 0
	tok := &sc.tok
	tok.path = path
	idBuf := slices.Grow(sc.ids[:0], (longest+1)/2)[:(longest+1)/2]
	for d, t := range texts {
		ids := tok.scan(t, &x.vocab, true, idBuf)
		for len(counts) < x.vocab.len() {
			counts = append(counts, termCount{})
		}
		first := len(post)
		post = slices.Grow(post, len(ids))[:first+len(ids)]
		np := first
		for _, id := range ids {
			// The first occurrence in this document adds a posting: the
			// id is written always and kept when the count was 0 (no
			// branch to mispredict on half the tokens).
			c := counts[id].cnt
			post[np].id = id
			np += int(uint32(c-1) >> 31)
			counts[id].cnt = c + 1
		}
		post = post[:np]
		for i := first; i < np; i++ {
			c := &counts[post[i].id]
			post[i].tf = c.cnt
			c.cnt = 0
			c.df++
		}
		docEnd[d] = int32(np)
		// _initialize: avgdl = num_doc / corpus_size, below.
		x.denom[d] = float64(len(ids))
		total += len(ids)
	}
	// Postings by term, documents in order (a stable counting sort).
	// Each term's cnt (0 after every document) becomes its next free place.
	x.start = make([]int32, len(counts)+1)
	for id, c := range counts {
		counts[id].cnt = x.start[id]
		x.start[id+1] = x.start[id] + c.df
	}
	x.post = make([]posting, len(post))
	i := 0
	for d, end := range docEnd {
		for ; i < int(end); i++ {
			p := post[i]
			c := &counts[p.id]
			x.post[c.cnt] = posting{int32(d), p.tf}
			c.cnt++
		}
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
	sc.post, sc.docEnd, sc.counts, sc.ids = post[:0], docEnd[:0], counts[:0], idBuf[:0]
	scratches.Put(sc)
	return x
}

// docPosting is a word of a document (by id) and its count there.
type docPosting struct{ id, tf int32 }

// termCount is a word's count in the current document and its document
// frequency.
type termCount struct{ cnt, df int32 }

// buildScratch is newBM25's working memory, none of it part of the index,
// kept for the next build (scratches): indexes built one after another
// then leave half the garbage, and the collector runs half as often.
type buildScratch struct {
	post   []docPosting
	docEnd []int32
	counts []termCount
	ids    []int32
	tok    tokenizer
}

var scratches sync.Pool

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
	var idBuf [32]int32
	for _, id := range tok.scan(query, &x.vocab, false, idBuf[:]) {
		if id < 0 {
			continue // idf.get(q) or 0: adds zeros
		}
		idf := x.idf[id]
		if idf == 0 {
			continue // adds zeros
		}
		for _, p := range x.post[x.start[id]:x.start[id+1]] {
			tf := float64(p.tf)
			// idf * (q_freq * (k1 + 1) / (q_freq + k1 * (…)))
			q := float64(float64(tf*(bm25K1+1)) / float64(tf+x.denom[p.doc]))
			score[p.doc] += float64(idf * q)
		}
		// Documents without the word add idf·0 = 0, which changes no sum.
	}
}

// Top is BM25Retriever.retrieve's ranking: the documents by descending
// score, ties in document order (Python's stable sort), cut at
// min(topK, n) as a Python slice cuts (a negative topK counts from the
// end).
func (x *BM25) Top(query string, topK int) []Scored {
	buf, _ := scoreBufs.Get().(*[]float64)
	if buf == nil || cap(*buf) < x.n {
		b := make([]float64, x.n)
		buf = &b
	}
	score := (*buf)[:x.n]
	clear(score)
	x.accumulate(query, score)
	top := topScored(score, clampStop(int64(min(topK, x.n)), x.n))
	scoreBufs.Put(buf)
	return top
}

// scoreBufs holds Top's score buffers (a query's only other memory is its
// result).
var scoreBufs sync.Pool

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

// key is a lowered token as the vocabulary compares it: its first sixteen
// bytes as two little-endian words (zero-padded), its length and its hash.
type key struct {
	w0, w1 uint64
	hash   uint64
	n      uint32
}

// vocab is an open-addressing hash table (linear probing, at most 3/4
// full) of lowered tokens: ids are dense from 0 in insertion order. A slot
// is only an id (4 bytes, so that the table stays in cache); the id's
// entry holds the token's first sixteen bytes and its length, which decide
// equality for all but the longer tokens. Entries are in insertion order,
// so the frequent words, which come first, share cache lines.
type vocab struct {
	slots []int32 // id+1; 0 is empty
	shift uint    // 64 − log2(len(slots)): a key's home is hash >> shift
	ent   []vent  // by id+1: ent[0] matches no token
	arena []byte  // the bytes after the 16th of the long keys
}

type vent struct {
	w0, w1 uint64
	n, off uint32 // off: in arena, for n > 16
}

// init makes room for about keys words: entries for that many and a table
// of at least slots slots (it doubles when 3/4 full).
func (v *vocab) init(keys, slots int) {
	size := 64
	for size < slots {
		size *= 2
	}
	v.slots = make([]int32, size)
	v.shift = uint(64 - bits.TrailingZeros(uint(size)))
	v.ent = make([]vent, 1, keys+1)
}

// len is the number of words.
func (v *vocab) len() int { return max(len(v.ent)-1, 0) }

// get returns the id of the key (rest: its lowered bytes after the 16th),
// adding it when new if add is set; -1 if absent.
func (v *vocab) get(k key, rest []byte, add bool) int32 {
	if len(v.slots) == 0 {
		return -1
	}
	mask := uint64(len(v.slots) - 1)
	i := k.hash >> v.shift
	for ; ; i = (i + 1) & mask {
		s := v.slots[i]
		if s == 0 {
			break
		}
		if e := &v.ent[s]; e.w0 == k.w0 && e.w1 == k.w1 && e.n == k.n &&
			(k.n <= 16 || string(v.arena[e.off:e.off+k.n-16]) == string(rest)) {
			return s - 1
		}
	}
	if !add {
		return -1
	}
	id := int32(v.len())
	e := vent{w0: k.w0, w1: k.w1, n: k.n}
	if k.n > 16 {
		e.off = uint32(len(v.arena))
		v.arena = append(v.arena, rest...)
	}
	v.ent = append(v.ent, e)
	v.slots[i] = id + 1
	if 4*v.len() > 3*len(v.slots) {
		v.grow()
	}
	return id
}

func (v *vocab) grow() {
	v.slots = make([]int32, 2*len(v.slots))
	v.shift--
	mask := uint64(len(v.slots) - 1)
	for id, e := range v.ent[1:] {
		var rest []byte
		if e.n > 16 {
			rest = v.arena[e.off : e.off+e.n-16]
		}
		i := hashKey(e.w0, e.w1, int(e.n), rest) >> v.shift
		for v.slots[i] != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = int32(id) + 1
	}
}

const (
	hashK1 = 0x9e3779b97f4a7c15
	hashK2 = 0xc2b2ae3d27d4eb4f
	hashK3 = 0x165667b19e3779f9
)

// hashOf is a token's hash from its first two words and length; the high
// bits, which place it in the vocabulary, depend on every bit of both.
func hashOf(w0, w1 uint64, n int) uint64 {
	return w0*hashK1 ^ (w1^uint64(n))*hashK2
}

// keyOf is the key of lowered bytes (scan computes the same from the text).
func keyOf(b []byte) key {
	k := key{w0: wordAt(b, 0), w1: wordAt(b, 8), n: uint32(len(b))}
	var rest []byte
	if len(b) > 16 {
		rest = b[16:]
	}
	k.hash = hashKey(k.w0, k.w1, len(b), rest)
	return k
}

// hashKey is the hash of a token: hashOf its first sixteen bytes, the
// words of the rest mixed in.
func hashKey(w0, w1 uint64, n int, rest []byte) uint64 {
	h := hashOf(w0, w1, n)
	for i := 0; i < len(rest); i += 8 {
		h = (h ^ wordAt(rest, i)) * hashK3
	}
	return h
}

// wordAt is the eight bytes of b from i, little-endian, zero-padded.
func wordAt(b []byte, i int) uint64 {
	var w uint64
	for j := i; j < len(b) && j < i+8; j++ {
		w |= uint64(b[j]) << (8 * (j - i))
	}
	return w
}

// load8 is the eight bytes of s from i, little-endian (one load).
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// sepBits is str.isspace of eight ASCII-or-not bytes, one bit a byte (bit j
// for byte j): \t \n \v \f \r (9–13), the information separators 0x1c–0x1f
// and space (0x1c–0x20). A byte from 0x80 is part of a UTF-8 sequence: not
// a separator here (the tokenizer splits such a token at Unicode
// whitespace exactly).
func sepBits(w uint64) uint64 {
	// t's bytes all have the high bit set, so subtracting a byte constant
	// below 0x80 borrows in no byte: bit 7 of each result byte is
	// (byte&0x7f) >= constant.
	t := w | high
	in := (t-9*ones)&^(t-14*ones) | (t-0x1c*ones)&^(t-0x21*ones)
	m := in &^ w & high
	// Gather bit 7 of each byte into the top byte, byte j at bit 56+j.
	return (m >> 7) * 0x0102040810204080 >> 56
}

// sepWord is sepBits of the 64 bytes of s from i.
func sepWord(s string, i int) uint64 {
	s = s[i : i+64]
	return sepBits(load8(s, 0)) | sepBits(load8(s, 8))<<8 | sepBits(load8(s, 16))<<16 |
		sepBits(load8(s, 24))<<24 | sepBits(load8(s, 32))<<32 | sepBits(load8(s, 40))<<40 |
		sepBits(load8(s, 48))<<48 | sepBits(load8(s, 56))<<56
}

// lowerWord lowers the ASCII letters of eight ASCII bytes at once.
func lowerWord(w uint64) uint64 {
	up := (w + 0x3f3f3f3f3f3f3f3f) &^ (w + 0x2525252525252525) & high
	return w | up>>2
}

// lenMask[n] keeps the first n bytes of a token's first two words.
var lenMask = func() (t [17][2]uint64) {
	for n := range t {
		for i := range 2 {
			if b := n - 8*i; b >= 8 {
				t[n][i] = ^uint64(0)
			} else if b > 0 {
				t[n][i] = 1<<(8*b) - 1
			}
		}
	}
	return t
}()

// tokenizer splits str.lower() of a text at str.split()'s whitespace and
// looks the tokens up in a vocabulary. A bitmap of the text's ASCII
// whitespace, made eight bytes at a time, gives the tokens' bounds; an
// ASCII token of up to sixteen bytes (nearly all) is loaded, lowered and
// hashed two words at a time without a copy, and found in its home slot
// inline. The others take the exact path: a token with a byte from 0x80 is
// split at Python's Unicode whitespace (pyjson.IsSpace) and lowered by
// pyjson.Lower (Python's full mapping), a longer one lowered into a buffer.
// A query's bitmap and ids live on the stack.
type tokenizer struct {
	sep []uint64 // bit i: byte i is ASCII whitespace (1 beyond the text)
	buf []byte
	// The wide path's runs, the ones wideProbe did not find, and the ids
	// of one run (scanWide).
	starts, ends, miss, one []int32
	// path chooses scan's path: by the text's length (pathAuto) or, for
	// tests comparing them, always the Go one or the wide one (on a CPU
	// that has it).
	path int8
}

const (
	pathAuto int8 = iota
	pathNarrow
	pathWide
)

// wideMin is the shortest text scanWide takes: below it, the kernels'
// fixed cost is more than they save (queries are short).
const wideMin = 128

// scan returns the ids in v of text's tokens, in order, in ids' memory if
// it holds (len(text)+1)/2. A token not in v is added when add is set (ids
// in order of first occurrence), else its id is -1.
func (tk *tokenizer) scan(text string, v *vocab, add bool, ids []int32) []int32 {
	if haveWide && len(v.slots) > 0 &&
		(tk.path == pathAuto && len(text) >= wideMin || tk.path == pathWide) {
		return tk.scanWide(text, v, add, ids)
	}
	return tk.scanNarrow(text, v, add, ids)
}

// scanNarrow is scan's Go path.
func (tk *tokenizer) scanNarrow(text string, v *vocab, add bool, ids []int32) []int32 {
	n := len(text)
	nw := (n + 63) / 64
	var local [8]uint64 // a query's bitmap: no allocation
	sep := local[:]
	if nw+1 > len(local) {
		if cap(tk.sep) < nw+1 {
			tk.sep = make([]uint64, nw+1)
		}
		sep = tk.sep
	}
	sep = sep[:nw+1]
	for wi := range n / 64 {
		sep[wi] = sepWord(text, 64*wi)
	}
	if base := n / 64 * 64; base < n {
		// The last word: the bytes left, then separators.
		var m uint64
		j := base
		for ; j+8 <= n; j += 8 {
			m |= sepBits(load8(text, j)) << (j - base)
		}
		for ; j < n; j++ {
			if byteSpace[text[j]] {
				m |= 1 << (j - base)
			}
		}
		sep[nw-1] = m | ^uint64(0)<<(n-base)
	}
	sep[nw] = ^uint64(0)
	// Tokens are separated, so there are at most (n+1)/2.
	if cap(ids) < (n+1)/2 {
		ids = make([]int32, (n+1)/2)
	}
	ids = ids[:cap(ids)]
	ni := 0
	slots, ent, shift := v.slots, v.ent, v.shift
	prev := uint64(1) // before the text: a separator
	for wi := range nw {
		m, next := sep[wi], sep[wi+1]
		starts := ^m & (m<<1 | prev)
		prev = m >> 63
		for starts != 0 {
			b := bits.TrailingZeros64(starts)
			starts &= starts - 1
			s := wi*64 + b
			// The separators in the 64 bytes from s.
			ahead := m>>b | next<<(64-b)
			l := bits.TrailingZeros64(ahead)
			if l <= 16 {
				var w0, w1 uint64
				if s+16 <= n {
					t := text[s : s+16]
					w0, w1 = load8(t, 0), load8(t, 8)
				} else {
					w0, w1 = tailWords(text[s:])
				}
				mk := &lenMask[l]
				w0, w1 = w0&mk[0], w1&mk[1]
				if (w0|w1)&high == 0 {
					w0, w1 = lowerWord(w0), lowerWord(w1)
					h := hashOf(w0, w1, l)
					if len(slots) > 0 {
						if sv := slots[(h>>shift)&uint64(len(slots)-1)]; ent[sv].w0 == w0 && ent[sv].w1 == w1 && ent[sv].n == uint32(l) {
							ids[ni] = sv - 1
							ni++
							continue
						}
					}
					ids[ni] = v.get(key{w0, w1, h, uint32(l)}, nil, add)
					ni++
					slots, ent, shift = v.slots, v.ent, v.shift
					continue
				}
			}
			if l == 64 {
				l = end(sep, wi+1) - s
			}
			ni = tk.word(ids, ni, text, s, s+l, v, add)
			slots, ent, shift = v.slots, v.ent, v.shift
		}
	}
	return ids[:ni]
}

// scanWide is scan on the AVX-512 kernels: wideBounds finds the runs
// between ASCII whitespace and wideProbe finds most of them in the
// vocabulary, eight at a time, as scan's fast path would, and lists the
// others; those are then looked up (or added), in order, so words are
// added in order of first occurrence (a run whose word was added after
// wideProbe ran is found then). A run that is not one word (it splits at
// Unicode whitespace) sends the text to the Go path.
func (tk *tokenizer) scanWide(text string, v *vocab, add bool, ids []int32) []int32 {
	n := len(text)
	need := (n+1)/2 + 16
	if cap(tk.starts) < need {
		tk.starts, tk.ends, tk.miss = make([]int32, need), make([]int32, need), make([]int32, need)
	}
	starts, ends := tk.starts[:need], tk.ends[:need]
	nt := wideBounds(text, starts, ends)
	starts, ends = starts[:nt], ends[:nt]
	if cap(ids) < (n+1)/2 {
		ids = make([]int32, (n+1)/2)
	}
	ids = ids[:nt]
	nm := wideProbe(text, starts, ends, v.slots, v.ent, v.shift, ids, tk.miss[:need])
	for _, i := range tk.miss[:nm] {
		s, e := int(starts[i]), int(ends[i])
		if ids[i] == -1 { // ASCII, at most sixteen bytes
			ids[i] = v.get(shortKey(text, s, e), nil, add)
			continue
		}
		if need := (e-s+1)/2 + 1; cap(tk.one) < need {
			tk.one = make([]int32, need)
		}
		if tk.word(tk.one[:cap(tk.one)], 0, text, s, e, v, add) != 1 {
			return tk.scanNarrow(text, v, add, ids)
		}
		ids[i] = tk.one[0]
	}
	return ids
}

// word puts at ids[ni:] the ids of text[s:e], a run of bytes between
// ASCII whitespace, and returns the new count. A run whose bytes from 0x80
// are all caseless (lowering keeps them, none is whitespace) is one word,
// lowered byte by byte; a short ASCII one is keyed from its words in
// place; slow takes the others.
func (tk *tokenizer) word(ids []int32, ni int, text string, s, e int, v *vocab, add bool) int {
	run := text[s:e]
	ascii := true
	for i := 0; i < len(run); {
		if run[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(run[i:])
		if !caseless(r) {
			return tk.slow(ids, ni, run, v, add)
		}
		ascii = false
		i += size
	}
	if ascii && len(run) <= 16 {
		ids[ni] = v.get(shortKey(text, s, e), nil, add)
		return ni + 1
	}
	tk.buf = append(tk.buf[:0], run...)
	for j, c := range tk.buf {
		if c-'A' < 26 {
			tk.buf[j] = c + ('a' - 'A')
		}
	}
	ids[ni] = tk.get(v, add)
	return ni + 1
}

// shortKey is the key of text[s:e], ASCII and at most sixteen bytes
// long, read in place.
func shortKey(text string, s, e int) key {
	var w0, w1 uint64
	if s+16 <= len(text) {
		w0, w1 = load8(text, s), load8(text, s+8)
	} else {
		w0, w1 = tailWords(text[s:])
	}
	l := e - s
	mk := &lenMask[l]
	w0, w1 = lowerWord(w0&mk[0]), lowerWord(w1&mk[1])
	return key{w0, w1, hashOf(w0, w1, l), uint32(l)}
}

// caseless reports whether a rune from 0x80 is in blocks of symbols and
// punctuation that have no case mappings in any Unicode version and hold
// no whitespace: Latin-1's symbols, × and ÷, the general punctuation but
// its spaces, super- and subscripts, currency signs, arrows, mathematical
// operators and technical symbols. (TestCaseless checks each against
// Python's lowering and whitespace.)
func caseless(r rune) bool {
	switch {
	case r >= 0xa1 && r <= 0xbf, r == 0xd7, r == 0xf7:
		return true
	case r >= 0x2010 && r <= 0x2027, r >= 0x2030 && r <= 0x205e:
		return true
	case r >= 0x2070 && r <= 0x20cf, r >= 0x2190 && r <= 0x23ff:
		return true
	}
	return false
}

// tailWords is the first sixteen bytes of s (fewer at a text's end) as two
// little-endian words, zero-padded.
func tailWords(s string) (w0, w1 uint64) {
	for i := range min(len(s), 16) {
		if i < 8 {
			w0 |= uint64(s[i]) << (8 * i)
		} else {
			w1 |= uint64(s[i]) << (8 * (i - 8))
		}
	}
	return w0, w1
}

// end is the first separator in bitmap sep from word wi on.
func end(sep []uint64, wi int) int {
	for ; ; wi++ {
		if m := sep[wi]; m != 0 {
			return wi*64 + bits.TrailingZeros64(m)
		}
	}
}

// slow puts at ids[ni:] the ids of a run of bytes between ASCII
// whitespace with a character from 0x80 that may have a case or be
// whitespace (word takes the others), and returns the new count: the
// exact path.
func (tk *tokenizer) slow(ids []int32, ni int, run string, v *vocab, add bool) int {
	// Split at Python's whitespace; lowering never makes or removes
	// whitespace, so each word lowers on its own.
	start := -1
	for i, r := range run {
		if !pyjson.IsSpace(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			tk.buf = append(tk.buf[:0], pyjson.Lower(run[start:i])...)
			ids[ni] = tk.get(v, add)
			ni++
			start = -1
		}
	}
	if start >= 0 {
		tk.buf = append(tk.buf[:0], pyjson.Lower(run[start:])...)
		ids[ni] = tk.get(v, add)
		ni++
	}
	return ni
}

// get is the id of the lowered token in tk.buf.
func (tk *tokenizer) get(v *vocab, add bool) int32 {
	var rest []byte
	if len(tk.buf) > 16 {
		rest = tk.buf[16:]
	}
	return v.get(keyOf(tk.buf), rest, add)
}

// Tokens is upstream's BM25 tokenisation, text.lower().split().
func Tokens(text string) []string {
	return strings.FieldsFunc(pyjson.Lower(text), pyjson.IsSpace)
}

// byteSpace is str.isspace for ASCII: \t \n \v \f \r, the information
// separators \x1c-\x1f and space.
var byteSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true,
	0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true, ' ': true}
