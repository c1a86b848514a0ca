//go:build amd64 && !purego

package knowledge

import "golang.org/x/sys/cpu"

// haveWide reports whether this CPU runs the AVX-512 kernels (F, BW, DQ
// and VL, and VBMI2's VPCOMPRESSB).
var haveWide = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ &&
	cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VBMI2

// wideBounds writes the start and the (exclusive) end of each run of bytes
// between ASCII whitespace (sepBits' set) in text to starts and ends, in
// order, and returns their number. Both must hold (len(text)+1)/2+16: it
// stores sixteen at a time.
//
//go:noescape
func wideBounds(text string, starts, ends []int32) int

// wideProbe sets out[i], for each run i (len(starts) of them), to its id
// in the vocabulary when the run is fast (ASCII, at most sixteen bytes
// long, in a text of at least sixteen) and found in its home slot,
// as scan's fast path finds it; to −1 when it is fast and not found there,
// to −2 when it is not fast. It writes the runs not found, in order, to
// miss and returns their number. out must hold len(starts), miss
// len(starts)+8: it stores eight at a time.
//
//go:noescape
func wideProbe(text string, starts, ends, slots []int32, ent []vent, shift uint, out, miss []int32) int
