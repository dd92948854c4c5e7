package pcodec

// pco codes bin indices with tANS (tabled asymmetric numeral systems): a
// table of 2^sizeLog states in which each bin (symbol) owns as many states
// as its weight, four interleaved coders per latent variable.

// maxANSSizeLog is the largest table size log the format allows.
const maxANSSizeLog = 14

// spreadStates assigns each state of a table of 2^sizeLog states to a
// symbol: symbols in order, each taking weight states, placed with a fixed
// odd stride near 3/5 of the table so that every symbol's states spread out.
// The assignment is part of the format. weights must sum to 2^sizeLog.
func spreadStates(sizeLog uint, weights []uint32) []uint32 {
	size := uint32(1) << sizeLog
	stride := 3 * size / 5
	if stride%2 == 0 {
		stride++
	}
	mask := size - 1
	states := make([]uint32, size)
	step := uint32(0)
	for sym, w := range weights {
		for k := uint32(0); k < w; k++ {
			states[(stride*step)&mask] = uint32(sym)
			step++
		}
	}
	return states
}

// ansNode is one decoder state: the bin it decodes to (its lower bound and
// offset width) and how to reach the next state (read bitsToRead bits and
// add them to nextBase).
type ansNode struct {
	lower      uint64
	nextBase   uint32
	bitsToRead uint8
	offsetBits uint8
}

// decodeTable builds the decoder states of a latent variable's bins.
func decodeTable(sizeLog uint, bins []bin) ([]ansNode, error) {
	weights := make([]uint32, len(bins))
	total := uint64(0)
	for i, b := range bins {
		weights[i] = b.weight
		total += uint64(b.weight)
	}
	if len(bins) == 0 {
		weights = []uint32{1}
		total = 1
	}
	if total != 1<<sizeLog {
		return nil, corrupt("bin weights sum to %d, but the tANS table has %d states", total, 1<<sizeLog)
	}
	states := spreadStates(sizeLog, weights)
	size := uint32(1) << sizeLog
	next := append([]uint32(nil), weights...) // each symbol's x_s, starting at its weight
	nodes := make([]ansNode, size)
	for i, sym := range states {
		x := next[sym]
		next[sym]++
		// x is in [weight, 2·weight); scale it back into [size, 2·size).
		shift := uint(0)
		for x<<shift < size {
			shift++
		}
		n := ansNode{nextBase: x<<shift - size, bitsToRead: uint8(shift)}
		if int(sym) < len(bins) {
			n.lower = bins[sym].lower
			n.offsetBits = uint8(bins[sym].offsetBits)
		}
		nodes[i] = n
	}
	return nodes, nil
}

// ansEncoder encodes symbols (bins) into tANS states in [size, 2·size).
type ansEncoder struct {
	sizeLog uint
	syms    []ansSymbol
}

type ansSymbol struct {
	cutoff     uint32 // from this state on, renormalise one more bit
	minRenorm  uint
	nextStates []uint32
}

func newANSEncoder(sizeLog uint, weights []uint32) *ansEncoder {
	if len(weights) == 0 {
		weights = []uint32{1}
	}
	e := &ansEncoder{sizeLog: sizeLog, syms: make([]ansSymbol, len(weights))}
	for i, w := range weights {
		minRenorm := sizeLog - uint(bitLen(uint64(2*w-1))-1)
		e.syms[i] = ansSymbol{cutoff: 2 * w << minRenorm, minRenorm: minRenorm, nextStates: make([]uint32, 0, w)}
	}
	size := uint32(1) << sizeLog
	for idx, sym := range spreadStates(sizeLog, weights) {
		e.syms[sym].nextStates = append(e.syms[sym].nextStates, size+uint32(idx))
	}
	return e
}

// encode pushes symbol onto state, returning the new state and the low bits
// of the old state (value, width) that the decoder will read.
func (e *ansEncoder) encode(state uint32, symbol int) (uint32, uint32, uint) {
	s := &e.syms[symbol]
	renorm := s.minRenorm
	if state >= s.cutoff {
		renorm++
	}
	x := state >> renorm
	return s.nextStates[int(x)-len(s.nextStates)], state & (1<<renorm - 1), renorm
}
