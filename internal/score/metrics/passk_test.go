package metrics

import (
	"math"
	"testing"
)

func TestPassHatK(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n, c, k int
		want    float64
	}{
		{4, 4, 4, 1}, {4, 2, 1, 0.5}, {4, 2, 2, 1.0 / 6}, {4, 3, 2, 0.5}, {4, 1, 2, 0}, {4, 0, 1, 0}, {3, 3, 4, 0}, {4, 3, 3, 0.25},
	}
	for _, tc := range cases {
		if got := PassHatK(tc.n, tc.c, tc.k); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("PassHatK(%d,%d,%d) = %v; want %v", tc.n, tc.c, tc.k, got, tc.want)
		}
	}
}
