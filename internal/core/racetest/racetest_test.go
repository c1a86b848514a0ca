package racetest

import (
	"slices"
	"testing"
)

func TestSample(t *testing.T) {
	items := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	tests := []struct {
		n    int
		want []int
	}{
		{n: 0, want: items},
		{n: 10, want: items},
		{n: 20, want: items},
		{n: 1, want: []int{0}},
		{n: 2, want: []int{0, 9}},
		{n: 4, want: []int{0, 3, 6, 9}},
	}
	for _, tc := range tests {
		got := Sample(items, tc.n)
		want := tc.want
		if !Cut() {
			want = items
		}
		if !slices.Equal(got, want) {
			t.Errorf("Sample(0..9, %d) = %v; want %v (cut: %v)", tc.n, got, want, Cut())
		}
	}
}

func TestPlainOnly(t *testing.T) {
	ran := false
	t.Run("inner", func(t *testing.T) {
		PlainOnly(t)
		ran = true
	})
	if ran == Cut() {
		t.Errorf("PlainOnly ran the test: %v; cut: %v", ran, Cut())
	}
}
