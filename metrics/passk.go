// Package metrics turns simulation records into the numbers the paper
// reports: pass^k, average reward, subsets, error categories, costs.
package metrics

import "math/big"

// PassHatK is τ²-bench's unbiased pass^k estimate for one task with n trials
// of which c succeeded: C(c, k) / C(n, k) (0 when c < k or n < k).
func PassHatK(n, c, k int) float64 {
	if k <= 0 || n < k || c < k {
		return 0
	}
	num := new(big.Int).Binomial(int64(c), int64(k))
	den := new(big.Int).Binomial(int64(n), int64(k))
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return f
}

// TaskCounts is the number of trials and successes of one task.
type TaskCounts struct {
	Trials    int
	Successes int
}

// MeanPassHatK averages PassHatK over tasks.
func MeanPassHatK(tasks []TaskCounts, k int) float64 {
	if len(tasks) == 0 {
		return 0
	}
	sum := 0.0
	for _, t := range tasks {
		sum += PassHatK(t.Trials, t.Successes, k)
	}
	return sum / float64(len(tasks))
}
