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

// PassHatKs returns pass^k for k = 1…maxK. Each value averages PassHatK over
// the tasks with at least k trials, and used[k-1] says how many those are:
// a task lacking trials drops out of the k it cannot support instead of
// lowering maxK for every task (τ²-bench lowers K to the fewest trials any
// task has). With complete tasks this equals MeanPassHatK for every k.
func PassHatKs(tasks []TaskCounts, maxK int) (values []float64, used []int) {
	values = make([]float64, maxK)
	used = make([]int, maxK)
	for k := 1; k <= maxK; k++ {
		sum := 0.0
		for _, t := range tasks {
			if t.Trials >= k {
				sum += PassHatK(t.Trials, t.Successes, k)
				used[k-1]++
			}
		}
		if used[k-1] > 0 {
			values[k-1] = sum / float64(used[k-1])
		}
	}
	return values, used
}
