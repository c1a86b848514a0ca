package knowledge

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pymath"
)

// referenceBM25 is BM25Okapi written plainly (maps, one pass, the same
// floating-point operations): the check on NewBM25's parallel, hashed
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
		var got []key
		var tok tokenizer
		tok.scan(s, func(k key, long []byte) {
			k.off = 0
			got = append(got, k)
		})
		want := strings.FieldsFunc(pyjson.Lower(s), pyjson.IsSpace)
		if len(got) != len(want) {
			t.Fatalf("%q: %d tokens; want %d (%q)", s, len(got), len(want), want)
		}
		for i, w := range want {
			k, _ := keyOf([]byte(w))
			if got[i] != k {
				t.Fatalf("%q token %d (%q): key %+v; want %+v", s, i, w, got[i], k)
			}
		}
	})
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
