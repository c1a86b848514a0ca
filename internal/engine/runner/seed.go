package runner

// TrialSeeds returns the per-trial seeds τ²-bench derives from a master
// seed: random.seed(master); [random.randint(0, 1_000_000) for _ in
// range(n)], with Python's Mersenne Twister, so trial t of a run with the
// same master seed gets the same seed as upstream (300 → 626729, 373753, …).
func TrialSeeds(master int64, n int) []int64 {
	r := newPyRandom(master)
	out := make([]int64, n)
	for i := range out {
		out[i] = r.randint(0, 1_000_000)
	}
	return out
}

// pyRandom is CPython's random.Random: MT19937 seeded from an integer with
// init_by_array over its 32-bit digits.
type pyRandom struct {
	mt  [624]uint32
	idx int
}

func newPyRandom(seed int64) *pyRandom {
	r := &pyRandom{}
	// random.seed(int) uses abs(n), split into 32-bit words, least
	// significant first; 0 gives one word 0.
	u := uint64(seed)
	if seed < 0 {
		u = uint64(-seed)
	}
	key := []uint32{uint32(u)}
	if hi := uint32(u >> 32); hi != 0 {
		key = append(key, hi)
	}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = 624
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(624, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = 623; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

func (r *pyRandom) uint32() uint32 {
	const upper, lower = 0x80000000, 0x7fffffff
	if r.idx >= 624 {
		for k := 0; k < 624; k++ {
			y := (r.mt[k] & upper) | (r.mt[(k+1)%624] & lower)
			v := r.mt[(k+397)%624] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[k] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// randint is random.randint(a, b) for b-a+1 < 2**32: rejection sampling
// with getrandbits(n.bit_length()), as _randbelow_with_getrandbits.
func (r *pyRandom) randint(a, b int64) int64 {
	n := uint64(b - a + 1)
	k := 0
	for v := n; v > 0; v >>= 1 {
		k++
	}
	for {
		v := uint64(r.uint32() >> (32 - k))
		if v < n {
			return a + int64(v)
		}
	}
}
