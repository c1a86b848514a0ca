//go:build amd64 && !purego

// AVX-512 kernels of the BM25 tokenizer (scan_amd64.go says what they
// compute; scan's Go code is the reference they are tested against).

#include "textflag.h"

// Byte positions 0..63, for VPCOMPRESSB.
DATA bytePos<>+0x00(SB)/8, $0x0706050403020100
DATA bytePos<>+0x08(SB)/8, $0x0f0e0d0c0b0a0908
DATA bytePos<>+0x10(SB)/8, $0x1716151413121110
DATA bytePos<>+0x18(SB)/8, $0x1f1e1d1c1b1a1918
DATA bytePos<>+0x20(SB)/8, $0x2726252423222120
DATA bytePos<>+0x28(SB)/8, $0x2f2e2d2c2b2a2928
DATA bytePos<>+0x30(SB)/8, $0x3736353433323130
DATA bytePos<>+0x38(SB)/8, $0x3f3e3d3c3b3a3938
GLOBL bytePos<>(SB), RODATA|NOPTR, $64

// func wideBounds(text string, starts, ends []int32) int
//
// Registers: SI text, CX its length, DI and R8 the next start and end to
// write, R12 the first start, BX the block's offset, R9 whether the byte
// before the block is a separator, Z20–Z22 the classification constants,
// Z0 the byte positions.
TEXT ·wideBounds(SB), NOSPLIT, $0-72
	MOVQ text_base+0(FP), SI
	MOVQ text_len+8(FP), CX
	MOVQ starts_base+16(FP), DI
	MOVQ ends_base+40(FP), R8
	MOVQ DI, R12

	MOVL $0x09090909, AX
	VPBROADCASTD AX, Z20 // \t, the first of \t \n \v \f \r
	MOVL $0x1c1c1c1c, AX
	VPBROADCASTD AX, Z21 // 0x1c, the first of 0x1c–0x1f and space
	MOVL $0x04040404, AX
	VPBROADCASTD AX, Z22 // each range's last minus its first
	VMOVDQU8 bytePos<>(SB), Z0

	XORQ BX, BX
	MOVQ $1, R9 // before the text: a separator

block:
	MOVQ CX, R10
	SUBQ BX, R10 // bytes left
	CMPQ R10, $64
	JB   tail
	VMOVDQU8 (SI)(BX*1), Z4
	XORQ R11, R11 // no byte of the block is beyond the text
	JMP  classify

tail:
	// Fewer than 64 bytes left (perhaps none): load them; every position
	// from the text's end on is a separator.
	MOVQ  $-1, R11
	BZHIQ R10, R11, R13
	KMOVQ R13, K1
	VMOVDQU8.Z (SI)(BX*1), K1, Z4
	ANDNQ R11, R13, R11

classify:
	VPSUBB  Z20, Z4, Z5
	VPCMPUB $2, Z22, Z5, K2 // byte − 0x09 <= 4
	VPSUBB  Z21, Z4, Z5
	VPCMPUB $2, Z22, Z5, K3 // byte − 0x1c <= 4
	KORQ    K2, K3, K2
	KMOVQ   K2, AX
	ORQ     R11, AX // m: the separators

	// A token starts at a non-separator after a separator and ends (its
	// end is exclusive) at a separator after a non-separator.
	LEAQ  (AX)(AX*1), DX
	ORQ   R9, DX // m<<1 | prev
	MOVQ  AX, R9
	SHRQ  $63, R9
	ANDNQ DX, AX, R13 // starts: ^m & (m<<1 | prev)
	ANDNQ AX, DX, DX  // ends: m &^ (m<<1 | prev)

	VPBROADCASTD BX, Z9 // the block's offset

	// A block holds at most 32 starts and 32 ends: one or two stores of 16.
	KMOVQ       R13, K3
	VPCOMPRESSB Z0, K3, Z6
	POPCNTQ     R13, R10
	VPMOVZXBD   X6, Z7
	VPADDD      Z9, Z7, Z7
	VMOVDQU32   Z7, (DI)
	CMPQ        R10, $16
	JBE         startsDone
	VEXTRACTI32X4 $1, Z6, X8
	VPMOVZXBD   X8, Z7
	VPADDD      Z9, Z7, Z7
	VMOVDQU32   Z7, 64(DI)

startsDone:
	LEAQ (DI)(R10*4), DI

	KMOVQ       DX, K3
	VPCOMPRESSB Z0, K3, Z6
	POPCNTQ     DX, R10
	VPMOVZXBD   X6, Z7
	VPADDD      Z9, Z7, Z7
	VMOVDQU32   Z7, (R8)
	CMPQ        R10, $16
	JBE         endsDone
	VEXTRACTI32X4 $1, Z6, X8
	VPMOVZXBD   X8, Z7
	VPADDD      Z9, Z7, Z7
	VMOVDQU32   Z7, 64(R8)

endsDone:
	LEAQ (R8)(R10*4), R8

	ADDQ $64, BX
	CMPQ BX, CX
	JLE  block // the block holding position len(text) is done too

	SUBQ R12, DI
	SHRQ $2, DI
	MOVQ DI, ret+64(FP)
	VZEROUPPER
	RET

// func wideProbe(text string, starts, ends, slots []int32, ent []vent, shift uint, out, miss []int32) int
//
// Registers: SI text, DI starts, R8 ends, DX the number of tokens, R9
// slots, R11 ent, R12 out, R13 the next miss to write and CX the first,
// R10 the first token of the batch of eight, Y0 the lanes' numbers.
// Constants: Y16 16, Y17 len(text)−16, Z18 all ones, Z19 8, Z20 64,
// K7 the lanes a text of its length allows,
// Z21 the high bits, Z22 and Z23 lowerWord's, Z24 and Z25 hashOf's
// multipliers, Y26 −1, X30 the vocabulary's shift.
TEXT ·wideProbe(SB), NOSPLIT, $0-176
	MOVQ text_base+0(FP), SI
	MOVQ text_len+8(FP), CX
	MOVQ starts_base+16(FP), DI
	MOVQ starts_len+24(FP), DX
	MOVQ ends_base+40(FP), R8
	MOVQ slots_base+64(FP), R9
	MOVQ ent_base+88(FP), R11
	MOVQ shift+112(FP), AX
	VMOVQ AX, X30
	MOVQ out_base+120(FP), R12
	MOVQ miss_base+144(FP), R13

	MOVL $16, AX
	VPBROADCASTD AX, Y16
	LEAQ -16(CX), AX
	VPBROADCASTD AX, Y17
	VPTERNLOGQ $0xff, Z18, Z18, Z18
	MOVQ $8, AX
	VPBROADCASTQ AX, Z19
	MOVQ $64, AX
	VPBROADCASTQ AX, Z20
	MOVQ $0x8080808080808080, AX
	VPBROADCASTQ AX, Z21
	MOVQ $0x3f3f3f3f3f3f3f3f, AX
	VPBROADCASTQ AX, Z22
	MOVQ $0x2525252525252525, AX
	VPBROADCASTQ AX, Z23
	MOVQ $0x9e3779b97f4a7c15, AX
	VPBROADCASTQ AX, Z24
	MOVQ $0xc2b2ae3d27d4eb4f, AX
	VPBROADCASTQ AX, Z25
	VPTERNLOGD $0xff, Y26, Y26, Y26
	VPMOVZXBD  bytePos<>(SB), Y0
	// K7: every lane, in a text of sixteen bytes or more (a run's
	// sixteen bytes are then read from at most len(text)−16); none in a
	// shorter one.
	XORQ  AX, AX
	CMPQ  CX, $16
	JB    short
	MOVQ  $0xff, AX

short:
	KMOVB AX, K7
	MOVQ  R13, CX

	XORQ R10, R10

batch:
	MOVQ DX, AX
	SUBQ R10, AX // tokens left
	JLE  done
	MOVQ $0xff, BX
	CMPQ AX, $8
	JAE  full
	BZHIQ AX, BX, BX

full:
	KMOVB BX, K1 // the batch's tokens
	VMOVDQU32.Z (DI)(R10*4), K1, Y1 // starts
	VMOVDQU32.Z (R8)(R10*4), K1, Y2 // ends
	VPSUBD Y1, Y2, Y3               // lengths

	// The fast lanes: at most sixteen long; then ASCII, below.
	KANDB   K1, K7, K2
	VPCMPUD $2, Y16, Y3, K2, K2

	// The token's first two words (zero beyond its length), read from
	// min(start, len(text)−16) and shifted down by what that is short of
	// the start.
	VPMINSD    Y17, Y1, Y15 // where the sixteen bytes are read
	VPSUBD     Y15, Y1, Y2  // the shift, in bytes (0–15)
	KMOVB      K2, K3
	VPXORQ     Z4, Z4, Z4
	VPGATHERDQ (SI)(Y15*1), K3, Z4
	KMOVB      K2, K3
	VPXORQ     Z5, Z5, Z5
	VPGATHERDQ 8(SI)(Y15*1), K3, Z5
	VPMOVZXDQ  Y2, Z13
	VPSLLQ     $3, Z13, Z13       // the shift, in bits (0–120)
	VPCMPUQ    $5, Z20, Z13, K3   // 64 or more: the second word moves down
	VMOVDQA64  Z5, K3, Z4
	VPXORQ     Z5, Z5, K3, Z5
	VPSHRDVQ   Z13, Z5, Z4        // the pair shifted right by the shift mod 64
	VPSRLVQ    Z13, Z5, Z5        // (the lanes shifted by 64 or more are 0 here)
	VPMOVZXDQ  Y3, Z6     // length
	VPMINUQ    Z19, Z6, Z7 // bytes in the first word
	VPSUBQ     Z7, Z6, Z8  // in the second
	VPSLLQ     $3, Z7, Z7
	VPSUBQ     Z7, Z20, Z7
	VPSLLQ     $3, Z8, Z8
	VPSUBQ     Z8, Z20, Z8
	VPSRLVQ    Z7, Z18, Z7
	VPSRLVQ    Z8, Z18, Z8
	VPANDQ     Z7, Z4, Z4
	VPANDQ     Z8, Z5, Z5
	VPORQ      Z4, Z5, Z9
	VPTESTMQ   Z21, Z9, K4 // a byte from 0x80: not fast
	KANDNB     K2, K4, K2

	// lowerWord of both words.
	VPADDQ     Z22, Z4, Z10
	VPADDQ     Z23, Z4, Z11
	VPTERNLOGQ $0x20, Z21, Z11, Z10 // Z10 &^ Z11 & high
	VPSRLQ     $2, Z10, Z10
	VPORQ      Z10, Z4, Z4
	VPADDQ     Z22, Z5, Z12
	VPADDQ     Z23, Z5, Z13
	VPTERNLOGQ $0x20, Z21, Z13, Z12
	VPSRLQ     $2, Z12, Z12
	VPORQ      Z12, Z5, Z5

	// hashOf and the home slot.
	VPMULLQ Z24, Z4, Z10
	VPXORQ  Z6, Z5, Z11
	VPMULLQ Z25, Z11, Z11
	VPXORQ  Z11, Z10, Z10
	VPSRLQ  X30, Z10, Z10

	KMOVB      K2, K3
	VPXORD     Y12, Y12, Y12
	VPGATHERQD (R9)(Z10*4), K3, Y12 // the slot: id+1, 0 if empty
	VPADDD     Y12, Y12, Y13
	VPADDD     Y12, Y13, Y13        // 3·slot: the entry, in words
	KMOVB      K2, K3
	VPXORQ     Z14, Z14, Z14
	VPGATHERDQ (R11)(Y13*8), K3, Z14
	KMOVB      K2, K3
	VPXORQ     Z27, Z27, Z27
	VPGATHERDQ 8(R11)(Y13*8), K3, Z27
	VPADDD     Y13, Y13, Y28        // 6·slot: the entry, in 4-byte units
	KMOVB      K2, K3
	VPXORD     Y29, Y29, Y29
	VPGATHERDD 16(R11)(Y28*4), K3, Y29

	VPCMPEQQ  Z14, Z4, K2, K5
	VPCMPEQQ  Z27, Z5, K5, K5
	VPCMPEQD  Y29, Y3, K5, K5
	VPADDD    Y26, Y26, Y31     // not fast: −2
	VMOVDQA32 Y26, K2, Y31      // fast: −1
	VPADDD    Y26, Y12, K5, Y31 // found: the id
	VMOVDQU32 Y31, K1, (R12)(R10*4)

	// The batch's runs not found.
	KANDNB        K1, K5, K6
	VPBROADCASTD  R10, Y8
	VPADDD        Y0, Y8, Y8
	VPCOMPRESSD   Y8, K6, Y9
	VMOVDQU32     Y9, (R13)
	KMOVB         K6, AX
	POPCNTL       AX, AX
	LEAQ          (R13)(AX*4), R13

	ADDQ $8, R10
	JMP  batch

done:
	SUBQ R13, CX
	NEGQ CX
	SHRQ $2, CX
	MOVQ CX, ret+168(FP)
	VZEROUPPER
	RET
