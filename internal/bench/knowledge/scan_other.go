//go:build !amd64 || purego

package knowledge

// haveWide: the AVX-512 kernels are amd64's.
const haveWide = false

func wideBounds(text string, starts, ends []int32) int { panic("knowledge: no wide kernels") }

func wideProbe(text string, starts, ends, slots []int32, ent []vent, shift uint, out, miss []int32) int {
	panic("knowledge: no wide kernels")
}
