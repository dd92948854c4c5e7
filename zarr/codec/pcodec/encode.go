package pcodec

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sort"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// Encode writes numbers of type t (little-endian in data) as a standalone
// pco file the way pco 1.0's simple_compress does: standalone version 3,
// format 4.1, equal chunks of at most o.MaxPageN numbers, each one page.
//
// Choices pco makes that this encoder makes too (so its output equals
// pco's byte for byte): classic mode, no or consecutive delta encoding
// (chosen on a sample for DeltaAuto), the bins and tANS tables. Not made
// here: pco's automatic int-mult, float-mult and float-quant modes and
// lookback deltas; where pco would pick one of those, this encoder writes
// a classic stream (valid, possibly larger).
func Encode(t NumberType, data []byte, o Options) ([]byte, error) {
	if !t.Valid() {
		return nil, fmtx.Errorf("unknown number type %d", byte(t))
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	size := t.Size()
	if len(data)%size != 0 {
		return nil, fmtx.Errorf("%d bytes are not a whole number of %s", len(data), t)
	}
	n := len(data) / size
	w := &bitWriter{}
	w.bytes(magic[:]...)
	w.bytes(maxStandaloneVersion, 0) // no uniform type, as simple_compress writes
	power := uint(1)
	if n > 0 {
		power = uint(bits.Len(uint(n)))
	}
	w.write(uint64(power-1), 6)
	w.write(uint64(n), power)
	w.finishByte()
	w.bytes(maxFormat.major, maxFormat.minor)
	maxPage := min(o.MaxPageN, maxEntries)
	start := 0
	for _, pageN := range equalPages(n, maxPage) {
		latents := make([]uint64, pageN)
		for i := range latents {
			latents[i] = t.toLatentOrdered(load(t, data, start+i))
		}
		w.bytes(byte(t))
		w.write(uint64(pageN-1), 24)
		encodeChunk(w, t, latents, o)
		start += pageN
	}
	w.bytes(0)
	return w.buf, nil
}

// equalPages splits n numbers into the fewest pages of at most maxN, of
// nearly equal sizes (the larger ones first).
func equalPages(n, maxN int) []int {
	if n == 0 {
		return nil
	}
	pages := (n + maxN - 1) / maxN
	out := make([]int, pages)
	for i := range out {
		out[i] = n / pages
		if i < n%pages {
			out[i]++
		}
	}
	return out
}

func load(t NumberType, data []byte, i int) uint64 {
	switch t.Bits() {
	case 8:
		return uint64(data[i])
	case 16:
		return uint64(binary.LittleEndian.Uint16(data[2*i:]))
	case 32:
		return uint64(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return binary.LittleEndian.Uint64(data[8*i:])
}

// unoptimizedBinsLog is the histogram resolution for a compression level.
func unoptimizedBinsLog(level, n int) uint {
	logN := uint(math.Floor(math.Log2(float64(n))))
	fast := uint(0)
	if logN > 4 {
		fast = logN - 4
	}
	if uint(level) <= fast {
		return uint(level)
	}
	return fast + (uint(level)-fast)/2
}

// encodedVar is one latent variable ready to write.
type encodedVar struct {
	bits   uint
	bins   []bin
	ansLog uint
	counts []uint32 // latents per bin, before weight quantisation
	state  []uint64 // delta state stored in the page
	stored []uint64 // latents stored in the page body
}

// newEncodedVar delta-encodes a page's latents (consecutive of the given
// order, 0 for none) and chooses bins for what remains.
func newEncodedVar(latents []uint64, bits uint, order int, binsLog uint) *encodedVar {
	v := &encodedVar{bits: bits}
	mask, mid := widthMask(bits), uint64(1)<<(bits-1)
	lat := append([]uint64(nil), latents...)
	for o := 0; o < order; o++ {
		if len(lat) == 0 {
			v.state = append(v.state, 0)
			continue
		}
		v.state = append(v.state, lat[0])
		for i := len(lat) - 1; i > 0; i-- {
			lat[i] = (lat[i] - lat[i-1]) & mask
		}
		lat = lat[1:]
	}
	if order > 0 {
		for i := range lat {
			lat[i] = (lat[i] + mid) & mask
		}
	}
	v.stored = lat
	v.bins, v.ansLog, v.counts = trainBins(lat, binsLog, bits)
	return v
}

// metaMaxBytes is pco's bound on the chunk metadata size (its size hint).
func metaMaxBytes(v *encodedVar) int {
	const deltaMaxBits = 4 + 5 + 5 + 64 + 32*32
	b := 4 + deltaMaxBits + 4 + binsCountBits + len(v.bins)*int(v.ansLog+v.bits+offsetBitsWidth(v.bits))
	return (b + 7) / 8
}

func pageMetaBytes(v *encodedVar) int {
	return (int(v.ansLog)*ansInterleaving + int(v.bits)*len(v.state) + 7) / 8
}

// sampleCost is pco's estimate of a sample's compressed size with a given
// consecutive delta order.
func sampleCost(sample []uint64, bits uint, order int, binsLog uint) float32 {
	v := newEncodedVar(sample, bits, order, binsLog)
	avg := 0.0
	total := math.Ldexp(1, int(v.ansLog))
	for _, b := range v.bins {
		avg += (float64(v.ansLog) - math.Log2(float64(b.weight)) + float64(b.offsetBits)) * float64(b.weight) / total
	}
	body := int(math.Ceil(float64(len(v.stored)) * avg))
	return float32(metaMaxBytes(v) + pageMetaBytes(v) + (body+7)/8)
}

// autoDeltaOrder picks no delta or a consecutive order from a sample of
// the latents (groups of 200 spread over the chunk), as pco does: the
// lowest estimated size, trying orders upwards until one does not help.
func autoDeltaOrder(latents []uint64, bits uint, binsLog uint) int {
	n := len(latents)
	if n < 10 {
		return 0
	}
	target := 10 + (n-10)/40
	groupN := min(200, n)
	groups := (target + 199) / 200
	stride := groupN + max(n-groups*groupN, 0)/(max(groups, 2)-1)
	sample := make([]uint64, 0, groups*groupN)
	for i := 0; i < groups; i++ {
		sample = append(sample, latents[stride*i:stride*i+groupN]...)
	}
	best, bestCost := 0, sampleCost(sample, bits, 0, binsLog)
	for order := 1; order <= maxConsecutiveOrder; order++ {
		cost := sampleCost(sample, bits, order, binsLog)
		if cost >= bestCost {
			break
		}
		best, bestCost = order, cost
	}
	return best
}

// encodeChunk writes the metadata and single page of one chunk.
func encodeChunk(w *bitWriter, t NumberType, latents []uint64, o Options) {
	bits := t.Bits()
	binsLog := unoptimizedBinsLog(o.Level, len(latents))
	order := 0
	switch o.Delta {
	case DeltaConsecutive:
		order = o.DeltaOrder
	case DeltaAuto:
		order = autoDeltaOrder(latents, bits, binsLog)
	}
	v := newEncodedVar(latents, bits, order, binsLog)
	if order > 0 && worseThanRaw(v, len(latents)) {
		// pco's size guarantee: never larger than the numbers stored raw.
		order = 0
		v = &encodedVar{bits: bits, bins: []bin{{weight: 1, offsetBits: bits}}, stored: latents}
	}
	// Chunk metadata: classic mode, the delta encoding, the bins.
	w.write(modeClassic, 4)
	if order > 0 {
		w.write(deltaConsecutive, 4)
		w.write(uint64(order), 3)
		w.write(0, 1) // the secondary latents (none here) are not delta encoded
	} else {
		w.write(deltaNone, 4)
	}
	w.write(uint64(v.ansLog), 4)
	w.write(uint64(len(v.bins)), binsCountBits)
	obw := offsetBitsWidth(bits)
	for _, b := range v.bins {
		w.write(uint64(b.weight-1), v.ansLog)
		w.write(b.lower, bits)
		w.write(uint64(b.offsetBits), obw)
	}
	w.finishByte()
	writePage(w, v)
}

// worseThanRaw reports whether the chunk could exceed its raw size (pco then
// falls back to one bin holding the raw latents).
func worseThanRaw(v *encodedVar, n int) bool {
	body := 7
	for i, b := range v.bins {
		body += int(v.counts[i]) * int(b.offsetBits+v.ansLog-uint(bitLen(uint64(b.weight))-1))
	}
	worst := metaMaxBytes(v) + pageMetaBytes(v) + (body+7)/8
	raw := &encodedVar{bits: v.bits, bins: []bin{{}}}
	return worst > metaMaxBytes(raw)+(n*int(v.bits)+7)/8
}

// writePage writes a page: the delta state and final tANS states, then per
// batch the tANS bits and the offsets of its latents. tANS is encoded
// backwards over the page so that decoding runs forwards.
func writePage(w *bitWriter, v *encodedVar) {
	lat := v.stored
	n := len(lat)
	weights := make([]uint32, len(v.bins))
	for i, b := range v.bins {
		weights[i] = b.weight
	}
	enc := newANSEncoder(v.ansLog, weights)
	size := uint32(1) << v.ansLog
	trivial := len(v.bins) == 0 || len(v.bins) == 1 && v.bins[0].offsetBits == 0
	syms := make([]int, n)
	if len(v.bins) > 1 {
		for i, l := range lat {
			syms[i] = sort.Search(len(v.bins), func(k int) bool { return v.bins[k].lower > l }) - 1
		}
	}
	ansVals := make([]uint32, n)
	ansBits := make([]uint8, n)
	states := [ansInterleaving]uint32{size, size, size, size}
	if v.ansLog > 0 && !trivial {
		for i := n - 1; i >= 0; i-- {
			j := i % ansInterleaving
			var val uint32
			var nb uint
			states[j], val, nb = enc.encode(states[j], syms[i])
			ansVals[i], ansBits[i] = val, uint8(nb)
		}
	}
	for _, s := range v.state {
		w.write(s, v.bits)
	}
	for _, s := range states {
		w.write(uint64(s-size), v.ansLog)
	}
	w.finishByte()
	if !trivial {
		for start := 0; start < n; start += fullBatch {
			end := min(start+fullBatch, n)
			if len(v.bins) != 1 {
				for i := start; i < end; i++ {
					w.write(uint64(ansVals[i]), uint(ansBits[i]))
				}
			}
			for i := start; i < end; i++ {
				b := v.bins[syms[i]]
				w.write(lat[i]-b.lower, b.offsetBits)
			}
		}
	}
	w.finishByte()
}
