package pyre

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
)

// The oracle test compares pyre with Python's re itself on generated
// patterns (valid and invalid) and texts:
//
//	LEDGERBENCH_PYRE_ORACLE="python3 testdata/oracle/re_oracle.py" \
//	go test ./internal/py/pyre -run Oracle
//
// It is skipped unless LEDGERBENCH_PYRE_ORACLE is set; LEDGERBENCH_PYRE_ORACLE_N
// (default 4000) sets the number of cases, LEDGERBENCH_PYRE_ORACLE_SEED the seed.

type oracleCase struct {
	Pattern string `json:"pattern"`
	Flags   Flags  `json:"flags"`
	Text    string `json:"text"`
}

type oracleResult struct {
	Error   *string     `json:"error"`
	Matches [][]*[2]int `json:"matches"`
}

func TestDifferentialOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_PYRE_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_PYRE_ORACLE not set")
	}
	n := oracletest.EnvInt(t, "LEDGERBENCH_PYRE_ORACLE_N", 4000)
	seed := uint64(oracletest.EnvInt(t, "LEDGERBENCH_PYRE_ORACLE_SEED", 1))
	g := &patternGen{r: rand.New(rand.NewPCG(seed, 23))}
	cases := make([]oracleCase, n)
	for i := range cases {
		cases[i] = oracleCase{Pattern: g.pattern(), Text: g.text()}
		switch g.r.IntN(4) {
		case 0:
			cases[i].Flags = IgnoreCase
		case 1:
			cases[i].Flags = IgnoreCase | Multiline
		}
	}
	var want struct {
		Cases []oracleResult    `json:"cases"`
		Extra map[string][]rune `json:"extra"`
		Upper map[string]rune   `json:"upper"`
		Alnum []rune            `json:"alnum"`
	}
	oracletest.JSON(t, cmdline, map[string]any{"cases": cases, "cased": true}, &want)
	compiled, errs, matches, diffs := 0, 0, 0, 0
	for i, c := range cases {
		got := run(c)
		w := want.Cases[i]
		if w.Error == nil {
			compiled++
		} else {
			errs++
		}
		matches += len(w.Matches)
		if !sameResult(got, w) {
			diffs++
			if diffs <= 25 {
				t.Errorf("re.compile(%q, %d).finditer(%q):\n got %s\nwant %s", c.Pattern, c.Flags, c.Text, show(got), show(w))
			}
		}
	}
	t.Logf("%d cases (%d compiled, %d rejected, %d matches): %d differ", n, compiled, errs, matches, diffs)

	// The case tables.
	caseOnce.Do(initCases)
	for k, v := range want.Extra {
		r, _ := strconv.Atoi(k)
		if got := extraCases(rune(r)); !slices.Equal(sorted(got), sorted(v)) {
			t.Errorf("_EXTRA_CASES[%U] = %U; want %U", r, got, v)
		}
	}
	if len(extra) != len(want.Extra) {
		t.Errorf("%d extra cases; want %d", len(extra), len(want.Extra))
	}
	for k, v := range want.Upper {
		r, _ := strconv.Atoi(k)
		if got := upper(rune(r)); got != v {
			t.Errorf("upper(%U) = %U; want %U", r, got, v)
		}
	}
	for _, r := range want.Alnum {
		t.Logf("str.isalnum(%U) differs from Unicode's L/N categories (Go %s)", r, unicode.Version)
	}
}

func sorted(r []rune) []rune { s := slices.Clone(r); slices.Sort(s); return s }

func run(c oracleCase) oracleResult {
	re, err := Compile(c.Pattern, c.Flags)
	if err != nil {
		kind := "error"
		if pe, ok := err.(*PyError); ok {
			kind = pe.Type
		}
		return oracleResult{Error: &kind}
	}
	ms, err := re.FindAll(context.Background(), c.Text)
	if err != nil {
		kind := "cancel"
		return oracleResult{Error: &kind}
	}
	var out [][]*[2]int
	for _, m := range ms {
		var gs []*[2]int
		for _, s := range m.spans {
			if s[0] < 0 {
				gs = append(gs, nil)
			} else {
				s := s
				gs = append(gs, &s)
			}
		}
		out = append(out, gs)
	}
	return oracleResult{Matches: out}
}

func sameResult(a, b oracleResult) bool {
	if (a.Error == nil) != (b.Error == nil) || a.Error != nil && *a.Error != *b.Error {
		return false
	}
	return show(a) == show(b)
}

func show(r oracleResult) string {
	if r.Error != nil {
		return *r.Error
	}
	var b strings.Builder
	for _, m := range r.Matches {
		b.WriteString("[")
		for _, g := range m {
			if g == nil {
				b.WriteString(" -")
			} else {
				fmt.Fprintf(&b, " %d:%d", g[0], g[1])
			}
		}
		b.WriteString(" ]")
	}
	return b.String()
}

// patternGen writes random patterns over a small alphabet, mostly valid,
// with every construct of the syntax and some broken ones.
type patternGen struct{ r *rand.Rand }

var genChars = []string{"a", "b", "A", "B", "c", "x", "-", " ", "1", "_", "ı", "ſ", "K", "ß", "é", "É", "\n", "."}

func (g *patternGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *patternGen) text() string {
	var b strings.Builder
	for range g.r.IntN(24) {
		b.WriteString(g.pick([]string{"a", "b", "A", "B", "c", "x", "-", " ", "1", "_", "ı", "ſ", "K", "k", "ß", "S", "s", "é", "É", "\n", "ab", "aab", "card", "Fee"}))
	}
	return b.String()
}

func (g *patternGen) pattern() string {
	var b strings.Builder
	if g.r.IntN(10) == 0 {
		b.WriteString(g.pick([]string{"(?i)", "(?m)", "(?s)", "(?x)", "(?a)", "(?ia)", "(?u)", "(?L)"}))
	}
	b.WriteString(g.alt(0))
	if g.r.IntN(30) == 0 { // a broken tail
		b.WriteString(g.pick([]string{"(", ")", "[", "{", "\\", "*", "?", "+", "{2,1}", "(?", "(?P", "[z-a]", "\\q", "(?<=a*)"}))
	}
	return b.String()
}

func (g *patternGen) alt(depth int) string {
	parts := []string{g.seq(depth)}
	for g.r.IntN(4) == 0 {
		parts = append(parts, g.seq(depth))
	}
	return strings.Join(parts, "|")
}

func (g *patternGen) seq(depth int) string {
	var b strings.Builder
	for range 1 + g.r.IntN(4) {
		b.WriteString(g.atom(depth))
		if g.r.IntN(3) == 0 {
			b.WriteString(g.pick([]string{"*", "+", "?", "{2}", "{1,}", "{,2}", "{1,3}", "{0}", "{}", "{x}"}))
			if g.r.IntN(3) == 0 {
				b.WriteString(g.pick([]string{"?", "+"}))
			}
		}
	}
	return b.String()
}

func (g *patternGen) atom(depth int) string {
	k := g.r.IntN(20)
	if depth > 2 && k >= 12 {
		k = g.r.IntN(12)
	}
	switch k {
	case 0, 1, 2, 3:
		return g.pick(genChars)
	case 4:
		return g.pick([]string{`\d`, `\w`, `\s`, `\D`, `\W`, `\S`, `\b`, `\B`, `\A`, `\Z`, `^`, `$`, `.`, `\.`, `\-`, `\x61`, `\u0131`, `\101`, `\0`, `\N{LATIN SMALL LETTER A}`})
	case 5, 6:
		return g.pick([]string{`[ab]`, `[^a]`, `[a-c]`, `[A-Z]`, `[\w-]`, `[\d\s]`, `[^\W_]`, `[ıſ]`, `[k-m]`, `[-a]`, `[a-]`, `[]a]`, `[\]]`, `[.]`, `[Kk]`, `[ß]`, `[\x00-\x7f]`, `[é-ê]`})
	case 7:
		if g.r.IntN(4) == 0 {
			return `\1`
		}
		return g.pick(genChars)
	case 8:
		if g.r.IntN(4) == 0 {
			return `(?P=n)`
		}
		return g.pick(genChars)
	case 9, 10, 11:
		return g.pick(genChars) + g.pick(genChars)
	case 12, 13:
		return "(" + g.alt(depth+1) + ")"
	case 14:
		return "(?:" + g.alt(depth+1) + ")"
	case 15:
		return "(?P<n>" + g.alt(depth+1) + ")"
	case 16:
		return g.pick([]string{"(?=", "(?!", "(?<=", "(?<!", "(?>"}) + g.alt(depth+1) + ")"
	case 17:
		return "(?(1)" + g.seq(depth+1) + "|" + g.seq(depth+1) + ")"
	case 18:
		return "(?i:" + g.alt(depth+1) + ")"
	default:
		return "(?-i:" + g.alt(depth+1) + ")"
	}
}
