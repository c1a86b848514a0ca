package pycalc

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The corpora (testdata/corpus.py) hold what the τ-bench-style calculate
// tool returns under CPython 3.11 (on Linux) and 3.12 (3.12.7, under
// Pyodide) for the same expressions: hand-picked ones, random ones, and
// nesting around CPython's parser and compiler limits.

// knownDepartures are corpus lines where pycalc differs, with the reason.
var knownDepartures = map[string]string{
	// Pyodide's own: its C library (musl) sets no domain error for the
	// cosine of an infinite phase, which glibc's does (as 3.11 shows), and
	// its ints index 32-bit sequences.
	"((-1)**0.5)**(10.0**308*10)": "musl cos(inf)",
	"()*2**62":                    "32-bit Py_ssize_t",
}

// maxDeepDepartures bounds the differences on inputs nested thousands of
// levels deep: where exactly CPython's parser runs out of stack depends on
// the rules it happens to try, which pycalc only approximates.
const maxDeepDepartures = 2

func TestCPython311(t *testing.T) {
	t.Parallel()
	testCorpus(t, "testdata/cpython311.txt", Tau1)
}

func TestCPython312(t *testing.T) {
	t.Parallel()
	testCorpus(t, "testdata/cpython312.txt", func(expr string) string {
		s, err := Tau2(expr)
		switch {
		case err == nil:
			return s
		case err.Error() == "Invalid characters in expression":
			return "Error: invalid characters in expression" // the corpus has Tau1's text
		}
		return "Error: " + err.Error()
	})
}

func testCorpus(t *testing.T, path string, calc func(string) string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n, bad, deep := 0, 0, 0
	for sc.Scan() {
		line, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("bad line %q", sc.Text())
		}
		expr, err := expand(line)
		if err != nil {
			t.Fatal(err)
		}
		n++
		got := calc(expr)
		switch {
		case got == want:
			continue
		case knownDepartures[line] != "":
			t.Logf("known departure (%s): %q = %q; CPython %q", knownDepartures[line], line, got, want)
			continue
		case len(expr) > 2000:
			deep++
			t.Logf("deep departure: %.100q = %q; CPython %q", line, got, want)
			continue
		}
		bad++
		if bad <= 30 {
			t.Errorf("%.100q = %q; want %q", line, got, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ", bad, n)
	}
	if deep > maxDeepDepartures {
		t.Errorf("%d deeply nested cases differ; want at most %d", deep, maxDeepDepartures)
	}
	t.Logf("%d cases, %d deeply nested ones differ", n, deep)
}

// expand replaces each "{N*text}" with N copies of text.
func expand(s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		count, unit, ok := strings.Cut(s[i+1:i+max(j, 0)], "*")
		n, err := strconv.Atoi(count)
		if j < 0 || !ok || err != nil {
			return "", &Error{Type: "corpus", Msg: "bad repetition in " + s}
		}
		b.WriteString(s[:i])
		b.WriteString(strings.Repeat(unit, n))
		s = s[i+j+1:]
	}
}
