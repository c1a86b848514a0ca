package knowledge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pymath"
)

// referenceBM25 is BM25Okapi written plainly (maps, one pass, the same
// floating-point operations): the check on NewBM25's hashed, bitmap-scanned
// index, which must score every document the same to the bit.
func referenceBM25(texts []string, query string) []float64 {
	n := len(texts)
	var freqs []map[string]int
	nd := map[string]int{}
	var order []string
	total := 0
	lens := make([]int, n)
	for i, t := range texts {
		toks := strings.FieldsFunc(pyjson.Lower(t), pyjson.IsSpace)
		lens[i] = len(toks)
		total += len(toks)
		f := map[string]int{}
		var first []string
		for _, w := range toks {
			if f[w] == 0 {
				first = append(first, w)
			}
			f[w]++
		}
		for _, w := range first {
			if nd[w] == 0 {
				order = append(order, w)
			}
			nd[w]++
		}
		freqs = append(freqs, f)
	}
	avgdl := float64(total) / float64(n)
	idf := map[string]float64{}
	sum := 0.0
	var neg []string
	for _, w := range order {
		v := pymath.Log(float64(n-nd[w])+0.5) - pymath.Log(float64(nd[w])+0.5)
		idf[w] = v
		sum += v
		if v < 0 {
			neg = append(neg, w)
		}
	}
	eps := float64(bm25Epsilon * (sum / float64(len(idf))))
	for _, w := range neg {
		idf[w] = eps
	}
	score := make([]float64, n)
	for _, q := range strings.FieldsFunc(pyjson.Lower(query), pyjson.IsSpace) {
		for d := range n {
			tf := float64(freqs[d][q])
			denom := float64(bm25K1 * float64(float64(1-bm25B)+float64(float64(bm25B*float64(lens[d]))/avgdl)))
			score[d] += float64(idf[q] * float64(float64(tf*(bm25K1+1))/float64(tf+denom)))
		}
	}
	return score
}

func randomCorpus(r *rand.Rand, docs int) []string {
	words := []string{"card", "Card", "CARD", "fee", "fees", "annual", "overdraft", "İstanbul", "istanbul", "Kelvin",
		"kelvin", "naïve", "ΣΑΣ", "σας", "a", "an", "the", "supercalifragilistic", "supercalifragilisticexpialidocious",
		"exactly8", "exactly8b", "12345678", "—", "x\u00a0y", "tab\tsep", "z"}
	seps := []string{" ", "  ", "\n", "\t", "\u3000", "\x1c", " \u2003 ", "\u0085"}
	out := make([]string, docs)
	for i := range out {
		var b strings.Builder
		for range r.IntN(60) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		out[i] = b.String()
	}
	return out
}

func TestBM25MatchesReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 30 {
		texts := randomCorpus(r, 1+r.IntN(40))
		x := NewBM25(texts)
		for _, q := range []string{"card fee", "İSTANBUL kelvin", "ΣΑΣ", "supercalifragilisticexpialidocious the", "", "zzz", "card card"} {
			got, want := x.Scores(q), referenceBM25(texts, q)
			for d := range want {
				if got[d] != want[d] {
					t.Fatalf("corpus %d, query %q, doc %d: %v; reference %v", i, q, d, got[d], want[d])
				}
			}
		}
	}
}

func TestBM25MatchesReferenceOnTheKnowledgeBase(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	base, _ := realBase(t)
	texts := make([]string, base.Len())
	for i, d := range base.Docs() {
		texts[i] = d.Content
	}
	x := NewBM25(texts)
	for _, q := range append(benchQueries, fixedQueries...) {
		got, want := x.Scores(q), referenceBM25(texts, q)
		for d := range want {
			if got[d] != want[d] {
				t.Fatalf("query %q, doc %d: %v; reference %v", q, d, got[d], want[d])
			}
		}
	}
}

// FuzzTokenizer: the scanning tokenizer yields the keys of
// str.lower().split()'s tokens, in order.
func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{"Hello World", "a\u00a0b", "İstanbul KELVIN", "12345678 123456789", "\x1c\x1d x", "é\u3000É", "\xff\xfe bad", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkTokens(t, s)
	})
}

// checkTokens: on each of the tokenizer's paths (the Go one and, where
// the CPU has it, the AVX-512 one, whatever the text's length), the ids of
// s are those of Tokens(s) (the exact path: pyjson.Lower, then a split at
// pyjson.IsSpace) numbered in order of first occurrence, each id's
// vocabulary entry is its word, and a lookup without adding finds the same
// ids.
func checkTokens(t *testing.T, s string) {
	t.Helper()
	want := Tokens(s)
	for _, path := range tokenizerPaths() {
		var v vocab
		v.init(0, 0)
		tok := tokenizer{path: path}
		got := slices.Clone(tok.scan(s, &v, true, nil))
		if len(got) != len(want) {
			t.Fatalf("%q, path %d: %d tokens; want %d (%q)", s, path, len(got), len(want), want)
		}
		ids := map[string]int32{}
		for i, w := range want {
			id, ok := ids[w]
			if !ok {
				id = int32(len(ids))
				ids[w] = id
			}
			if got[i] != id {
				t.Fatalf("%q, path %d, token %d (%q): id %d; want %d", s, path, i, w, got[i], id)
			}
		}
		words := vocabWords(&v)
		for w, id := range ids {
			if words[id] != w {
				t.Fatalf("%q, path %d: id %d is %q; want %q", s, path, id, words[id], w)
			}
		}
		if again := tok.scan(s, &v, false, nil); !slices.Equal(again, got) {
			t.Fatalf("%q, path %d: lookup ids %v; want %v", s, path, again, got)
		}
	}
}

// tokenizerPaths are the tokenizer's paths this CPU runs.
func tokenizerPaths() []int8 {
	if haveWide {
		return []int8{pathNarrow, pathWide}
	}
	return []int8{pathNarrow}
}

// TestBM25PathsAgree: the index built on the AVX-512 path equals the one
// built on the Go path, on random corpora.
func TestBM25PathsAgree(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 20 {
		checkPathsAgree(t, fmt.Sprint("corpus ", i), randomCorpus(r, 1+r.IntN(40)))
	}
}

// TestBM25PathsAgreeOnTheKnowledgeBase: so they do on the 698 documents.
func TestBM25PathsAgreeOnTheKnowledgeBase(t *testing.T) {
	t.Parallel()
	base, _ := realBase(t)
	texts := make([]string, base.Len())
	for i, d := range base.Docs() {
		texts[i] = d.Content
	}
	checkPathsAgree(t, "the knowledge base", texts)
}

func checkPathsAgree(t *testing.T, name string, texts []string) {
	t.Helper()
	if !haveWide {
		t.Skip("this CPU has no AVX-512 (F, BW, DQ, VL and VBMI2): only the Go path runs")
	}
	a, b := newBM25(texts, pathNarrow), newBM25(texts, pathWide)
	if !slices.Equal(a.idf, b.idf) || !slices.Equal(a.start, b.start) || !slices.Equal(a.post, b.post) ||
		!slices.Equal(a.denom, b.denom) || !slices.Equal(vocabWords(&a.vocab), vocabWords(&b.vocab)) {
		t.Fatalf("%s: the two paths' indexes differ", name)
	}
}

// TestCaseless: every rune word's fast path takes as caseless lowers to
// itself in Python's mapping and is not whitespace.
func TestCaseless(t *testing.T) {
	t.Parallel()
	n := 0
	for r := rune(0x80); r <= 0x10ffff; r++ {
		if !caseless(r) {
			continue
		}
		n++
		if s := string(r); pyjson.Lower(s) != s || pyjson.IsSpace(r) {
			t.Errorf("%U: lowers to %q, space %v", r, pyjson.Lower(s), pyjson.IsSpace(r))
		}
	}
	if n == 0 {
		t.Fatal("no rune is caseless")
	}
}

// vocabWords is the vocabulary's words by id, from its entries.
func vocabWords(v *vocab) []string {
	words := make([]string, v.len())
	for id := range words {
		e := v.ent[id+1]
		var b []byte
		for i := range min(e.n, 16) {
			b = append(b, byte([2]uint64{e.w0, e.w1}[i/8]>>(8*(i%8))))
		}
		if e.n > 16 {
			b = append(b, v.arena[e.off:e.off+e.n-16]...)
		}
		words[id] = string(b)
	}
	return words
}

func TestTokenizerUnknownWords(t *testing.T) {
	t.Parallel()
	var v vocab
	v.init(0, 0)
	var tok tokenizer
	tok.scan("card fee Überweisung a-very-long-word-indeed", &v, true, nil)
	got := tok.scan("FEE zzz überweisung A-VERY-LONG-WORD-INDEEd a-very-long-word-indeee Card", &v, false, nil)
	if want := []int32{1, -1, 2, 3, -1, 0}; !slices.Equal(got, want) {
		t.Errorf("ids %v; want %v", got, want)
	}
	var empty BM25
	if got := empty.Scores("card"); len(got) != 0 {
		t.Errorf("empty index: %v", got)
	}
}

// TestTokenizerRandomUnicode: the fast path agrees with the exact one on
// random text mixing ASCII words of every length, every ASCII byte,
// Unicode whitespace, letters with special lowercasings and invalid UTF-8,
// at every alignment.
func TestTokenizerRandomUnicode(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "Z", "word", "WORDS", "exactly8", "EXACTLY8b", "sixteen-bytes-xy", "seventeen-bytes-x",
		"a-much-longer-token-than-sixty-four-bytes-to-cross-a-bitmap-word-boundary-surely",
		" ", "  ", "\n", "\t", "\r\n", "\v", "\f", "\x1c", "\x1f", "\x00", "\x08", "\x0e", "\x1b", "\x7f", "!", "@", "[", "`", "{",
		"\u00a0", "\u0085", "\u1680", "\u2000", "\u2003", "\u200b", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\u180e", "\ufeff",
		"İ", "I", "ı", "K", "Σ", "ς", "ß", "ẞ", "Å", "ǅ", "Ω", "é", "É", "ﬁ", "𝐀", "🙂", "\xff", "\xc3", "\xe2\x80"}
	r := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	for range 20000 {
		b.Reset()
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		checkTokens(t, b.String())
	}
	for c := range 256 {
		checkTokens(t, strings.Repeat("ab", c%7)+string([]byte{byte(c)})+"Cd ef")
	}
	// Texts of every length around the 64-byte blocks, as dense in tokens
	// as text can be, and ending in a token or a separator.
	for n := range 200 {
		for _, unit := range []string{"a ", " a", "Ab  ", "x’y "} {
			s := strings.Repeat(unit, n/len(unit)+1)[:n]
			checkTokens(t, s)
		}
	}
}

func TestSepBits(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		for j := range 8 {
			w := uint64(0x4141414141414141)&^(0xff<<(8*j)) | uint64(c)<<(8*j)
			want := uint64(0)
			if byteSpace[c] {
				want = 1 << j
			}
			if got := sepBits(w); got != want {
				t.Fatalf("byte %#x at %d: %08b; want %08b", c, j, got, want)
			}
		}
	}
}

func TestTopScoredStable(t *testing.T) {
	t.Parallel()
	score := []float64{1, 3, 3, 0, 2, 3, 0}
	for k := range len(score) + 2 {
		got := topScored(score, min(k, len(score)))
		want := []int{1, 2, 5, 4, 0, 3, 6}[:min(k, len(score))]
		if len(got) != len(want) {
			t.Fatalf("k=%d: %v", k, got)
		}
		for i := range want {
			if got[i].Index != want[i] {
				t.Errorf("k=%d: %v; want order %v", k, got, want)
			}
		}
	}
}

// TestWideKernels: wideBounds finds the runs between ASCII whitespace
// exactly, and wideProbe finds a run's id exactly when its contract says
// (a fast run, ASCII, of at most sixteen bytes, in a text of sixteen or
// more, whose word is in its home slot), -1 for the other fast runs, -2
// for the rest, and lists the runs not found, on random text and on texts
// whose every word is in the vocabulary.
func TestWideKernels(t *testing.T) {
	if !haveWide {
		t.Skip("this CPU has no AVX-512 (F, BW, DQ, VL and VBMI2): only the Go path runs")
	}
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	texts := randomCorpus(r, 100)
	// Words of every length to twenty, in both cases, from every printable
	// ASCII byte.
	for range 100 {
		var b strings.Builder
		for range r.IntN(60) {
			for range 1 + r.IntN(20) {
				b.WriteByte(byte('!' + r.IntN(94)))
			}
			b.WriteString(" \n\t"[r.IntN(3):][:1])
		}
		texts = append(texts, b.String())
	}
	for n := range 140 {
		texts = append(texts, strings.Repeat("Ab c ", n/5+1)[:n], strings.Repeat("x", n))
	}
	var v vocab
	v.init(0, 0)
	var tok tokenizer
	for i := 0; i < len(texts); i += 2 {
		tok.scan(texts[i], &v, true, nil)
	}
	found := 0
	for _, s := range texts {
		// The runs, as the reference splits them.
		var wantS, wantE []int32
		for i := 0; i < len(s); {
			if byteSpace[s[i]] {
				i++
				continue
			}
			j := i
			for j < len(s) && !byteSpace[s[j]] {
				j++
			}
			wantS, wantE = append(wantS, int32(i)), append(wantE, int32(j))
			i = j
		}
		need := (len(s)+1)/2 + 16
		starts, ends := make([]int32, need), make([]int32, need)
		nt := wideBounds(s, starts, ends)
		if !slices.Equal(starts[:nt], wantS) || !slices.Equal(ends[:nt], wantE) {
			t.Fatalf("%q: runs %v %v; want %v %v", s, starts[:nt], ends[:nt], wantS, wantE)
		}
		out, miss := make([]int32, nt), make([]int32, nt+8)
		nm := wideProbe(s, starts[:nt], ends[:nt], v.slots, v.ent, v.shift, out, miss)
		var wantMiss []int32
		for i := range nt {
			run := s[wantS[i]:wantE[i]]
			want := int32(-2)
			if len(run) <= 16 && len(s) >= 16 && !strings.ContainsFunc(run, func(r rune) bool { return r >= 0x80 }) {
				want = -1
				k := keyOf([]byte(strings.ToLower(run)))
				if sv := v.slots[k.hash>>v.shift]; sv > 0 && v.ent[sv] == (vent{w0: k.w0, w1: k.w1, n: k.n}) {
					want = sv - 1
				}
			}
			if out[i] != want {
				t.Fatalf("%q, run %d (%q): %d; want %d", s, i, run, out[i], want)
			}
			if want >= 0 {
				found++
			} else {
				wantMiss = append(wantMiss, int32(i))
			}
		}
		if !slices.Equal(miss[:nm], wantMiss) {
			t.Fatalf("%q: misses %v; want %v", s, miss[:nm], wantMiss)
		}
	}
	if found == 0 {
		t.Fatal("wideProbe found no run")
	}
}
