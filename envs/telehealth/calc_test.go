package telehealth

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestCalculateMatchesCPython checks calculate against the results CPython
// 3.11 gives for upstream's tool (testdata/calculate.txt, made by
// testdata/calculate_gen.py).
func TestCalculateMatchesCPython(t *testing.T) {
	f, err := os.Open("testdata/calculate.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n, bad := 0, 0
	for sc.Scan() {
		expr, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("bad line %q", sc.Text())
		}
		n++
		if got := calculate(expr); got != want {
			bad++
			if bad <= 30 {
				show := expr
				if len(show) > 80 {
					show = show[:80] + "..."
				}
				t.Errorf("calculate(%q) = %q; want %q", show, got, want)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ", bad, n)
	}
}

func FuzzCalculate(f *testing.F) {
	for _, s := range []string{"(60 * 0.45) + (30 * 0.30)", "1//0.1", "(1 2", "2**-1", "()*2", "...(1)", "9**9**9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if got := calculate(expr); got == "" {
			t.Fatalf("calculate(%q) is empty", expr)
		}
	})
}
