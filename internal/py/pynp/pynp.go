// Package pynp is the numpy arithmetic upstream's dense retrieval depends
// on, reproduced to the bit for numpy 1.24 over the reference BLAS
// (Debian's python3-numpy with libblas3): add.reduce's pairwise summation,
// the reference BLAS's sequential dot product (np.dot, np.linalg.norm of a
// vector) and argsort's default introsort, whose order of equal elements
// is its own (not stable). Other builds (OpenBLAS, numpy's AVX-512
// argsort) differ in the last bits of a sum and in the order of ties.
package pynp

import "math/bits"

// PairwiseSum is numpy's pairwise summation of a contiguous float64 array
// (DOUBLE_pairwise_sum: blocks of up to 128 summed in eight lanes, larger
// arrays split in two at a multiple of eight).
func PairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, x := range a {
			res += x
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range 8 {
				r[j] += a[i+j]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return PairwiseSum(a[:n2]) + PairwiseSum(a[n2:])
}

// Dot is the reference BLAS's ddot/dgemv inner product: products summed
// in order, each rounded (no fused multiply-add).
func Dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += float64(x * b[i])
	}
	return s
}

// less is numpy's DOUBLE_LT (NaNs sort last).
func less(a, b float64) bool { return a < b || (b != b && a == a) }

// Argsort is np.argsort(v) (kind "quicksort": numpy's introsort, an
// insertion sort below 16 elements and a heapsort past its depth limit).
func Argsort(v []float64) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	if len(v) < 2 {
		return idx
	}
	type span struct{ l, r, depth int }
	var stack []span
	pl, pr := 0, len(v)-1
	cdepth := (bits.Len(uint(len(v))) - 1) * 2
	for {
		if cdepth < 0 {
			heapsort(v, idx[pl:pr+1])
		} else {
			for pr-pl > 15 {
				pm := pl + (pr-pl)>>1
				if less(v[idx[pm]], v[idx[pl]]) {
					idx[pm], idx[pl] = idx[pl], idx[pm]
				}
				if less(v[idx[pr]], v[idx[pm]]) {
					idx[pr], idx[pm] = idx[pm], idx[pr]
				}
				if less(v[idx[pm]], v[idx[pl]]) {
					idx[pm], idx[pl] = idx[pl], idx[pm]
				}
				vp := v[idx[pm]]
				pi, pj := pl, pr-1
				idx[pm], idx[pj] = idx[pj], idx[pm]
				for {
					for pi++; less(v[idx[pi]], vp); pi++ {
					}
					for pj--; less(vp, v[idx[pj]]); pj-- {
					}
					if pi >= pj {
						break
					}
					idx[pi], idx[pj] = idx[pj], idx[pi]
				}
				pk := pr - 1
				idx[pi], idx[pk] = idx[pk], idx[pi]
				cdepth--
				if pi-pl < pr-pi {
					stack = append(stack, span{pi + 1, pr, cdepth})
					pr = pi - 1
				} else {
					stack = append(stack, span{pl, pi - 1, cdepth})
					pl = pi + 1
				}
			}
			for pi := pl + 1; pi <= pr; pi++ {
				vi := idx[pi]
				vp := v[vi]
				pj := pi
				for pj > pl && less(vp, v[idx[pj-1]]) {
					idx[pj] = idx[pj-1]
					pj--
				}
				idx[pj] = vi
			}
		}
		if len(stack) == 0 {
			return idx
		}
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		pl, pr, cdepth = s.l, s.r, s.depth
	}
}

// heapsort is numpy's aheapsort over idx (indices into v).
func heapsort(v []float64, idx []int) {
	n := len(idx)
	a := func(i int) *int { return &idx[i-1] } // one-based
	for l := n >> 1; l > 0; l-- {
		tmp := *a(l)
		i, j := l, l<<1
		for j <= n {
			if j < n && less(v[*a(j)], v[*a(j + 1)]) {
				j++
			}
			if less(v[tmp], v[*a(j)]) {
				*a(i) = *a(j)
				i = j
				j += j
			} else {
				break
			}
		}
		*a(i) = tmp
	}
	for n > 1 {
		tmp := *a(n)
		*a(n) = *a(1)
		n--
		i, j := 1, 2
		for j <= n {
			if j < n && less(v[*a(j)], v[*a(j + 1)]) {
				j++
			}
			if less(v[tmp], v[*a(j)]) {
				*a(i) = *a(j)
				i = j
				j += j
			} else {
				break
			}
		}
		*a(i) = tmp
	}
}
