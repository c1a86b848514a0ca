package submit

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
)

func TestCompute(t *testing.T) {
	t.Parallel()
	f, err := results.ReadTau2(filepath.Join("testdata", "small.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compute(f)
	if err != nil {
		t.Fatal(err)
	}
	// A: 3 of 4 pass (0.9999999 is within 1e-6 of 1); B: 1 of 3 scored (the
	// infrastructure error is left out, a null reward fails), so K = 3.
	want := []float64{(3.0/4 + 1.0/3) / 2, (3.0/6 + 0) / 2, (1.0/4 + 0) / 2}
	if len(m.PassHatKs) != len(want) {
		t.Fatalf("PassHatKs = %v; want %v", m.PassHatKs, want)
	}
	for i := range want {
		if math.Abs(m.PassHatKs[i]-want[i]) > 1e-15 {
			t.Errorf("pass^%d = %v; want %v", i+1, m.PassHatKs[i], want[i])
		}
	}
	// Mean over the non-null costs of scored simulations: (0.5+0.25+0.75+1+0.5+0)/6.
	if m.AvgAgentCost == nil || *m.AvgAgentCost != 3.0/6 {
		t.Errorf("AvgAgentCost = %v; want 0.5", m.AvgAgentCost)
	}
	if m.Simulations != 7 || m.Tasks != 2 || m.Infrastructure != 1 {
		t.Errorf("counts %d sims, %d tasks, %d infra; want 7, 2, 1", m.Simulations, m.Tasks, m.Infrastructure)
	}
	r := m.Results()
	if r.Pass1 == nil || *r.Pass1 != want[0]*100 || r.Pass4 != nil {
		t.Errorf("Results() = pass_1 %v, pass_4 %v; want %v and none", r.Pass1, r.Pass4, want[0]*100)
	}
}

func TestPairwiseSum(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		n    int
	}{{"short", 5}, {"block", 8}, {"unrolled", 37}, {"split", 300}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			xs := make([]float64, tc.n)
			exact := 0.0
			for i := range xs {
				xs[i] = float64(i%7) * 0.125 // exact binary fractions: every order gives the same sum
				exact += xs[i]
			}
			if got := pairwiseSum(xs); got != exact {
				t.Errorf("pairwiseSum = %v; want %v", got, exact)
			}
		})
	}
	// Eight accumulators: numpy adds 1e16 and the ones in separate lanes.
	xs := []float64{1e16, 1, 1, 1, 1, 1, 1, 1, -1e16, 1, 1, 1, 1, 1, 1, 1}
	naive := 0.0
	for _, x := range xs {
		naive += x
	}
	// lanes: r0 = 1e16 + -1e16 = 0, r1..r7 = 2 each → 14.
	if got := pairwiseSum(xs); got != 14 || naive == 14 {
		t.Errorf("pairwiseSum = %v (naive %v); want 14 (and a naive sum that differs)", got, naive)
	}
}

func TestSlugify(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"GPT 4.1/mini": "gpt-4-1-mini", "My-Organization": "my-organization"} {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q; want %q", in, got, want)
		}
	}
}
