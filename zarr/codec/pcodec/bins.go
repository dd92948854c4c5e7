package pcodec

import (
	"math"
	"math/bits"
	"slices"
)

// Choosing bins when encoding, as pco 1.0 does: an equal-count histogram of
// the latents, merged into bins by dynamic programming on an estimated bit
// cost, then tANS weights quantised to a table of at most 2^12 states.
// Matching pco's choices exactly makes our streams equal to its streams.

// histBin is a histogram bin: count latents in [lower, upper].
type histBin struct {
	count        int
	lower, upper uint64
}

// histogram splits the latents into about 2^nBinsLog bins of equal count
// without splitting a run of equal latents (a run straddling a boundary goes
// to the bin holding its middle).
func histogram(latents []uint64, nBinsLog uint) []histBin {
	sorted := slices.Clone(latents)
	slices.Sort(sorted)
	h := &histBuilder{n: uint64(len(sorted)), nBins: 1 << nBinsLog, nBinsLog: nBinsLog}
	h.applySorted(sorted)
	return h.dst
}

type histBuilder struct {
	n, nBins   uint64
	nBinsLog   uint
	applied    int
	nextAvail  int
	incomplete *histBin
	dst        []histBin
}

func (h *histBuilder) binIdx(cCount int) int { return int(uint64(cCount) << h.nBinsLog / h.n) }

func (h *histBuilder) cCount(binIdx int) int {
	return int((uint64(binIdx+1)*h.n + h.nBins - 1) >> h.nBinsLog)
}

func (h *histBuilder) applyIncomplete(latents []uint64) {
	if len(latents) == 0 {
		return
	}
	if h.incomplete != nil {
		h.incomplete.upper = latents[len(latents)-1]
		h.incomplete.count += len(latents)
	} else {
		h.incomplete = &histBin{count: len(latents), lower: latents[0], upper: latents[len(latents)-1]}
	}
	h.applied += len(latents)
}

func (h *histBuilder) completeBin(binIdx int) bool {
	if h.incomplete == nil {
		return false
	}
	h.nextAvail = binIdx + 1
	h.dst = append(h.dst, *h.incomplete)
	h.incomplete = nil
	return true
}

func (h *histBuilder) applyConstantRun(latents []uint64) {
	start := h.applied
	mid := start + len(latents)/2
	end := start + len(latents)
	binIdx := h.binIdx(mid)
	if binIdx > h.nextAvail {
		spare := binIdx - 1
		if !h.completeBin(spare) {
			binIdx = spare
		}
	}
	h.applyIncomplete(latents)
	if end >= h.cCount(binIdx) {
		h.completeBin(binIdx)
	}
}

func (h *histBuilder) applySorted(latents []uint64) {
	for len(latents) > 0 {
		target := h.binIdx(h.applied)
		targetI := h.cCount(target) - h.applied
		if targetI >= len(latents) {
			h.applyIncomplete(latents)
			if targetI == len(latents) {
				h.completeBin(target)
			}
			return
		}
		l, r := targetI-1, targetI
		x := latents[l]
		for l > 0 && latents[l-1] == x {
			l--
		}
		for r < len(latents) && latents[r] == x {
			r++
		}
		h.applyIncomplete(latents[:l])
		h.applyConstantRun(latents[l:r])
		latents = latents[r:]
	}
}

// log2Approx is pco's fast float32 log2 (a quadratic on [z, 2z)); the bin
// choice depends on its exact values.
var (
	log2Z      = float32(0.674)
	log2ZSig   = math.Float32bits(log2Z) & 0x7fffff
	log2B      = float32(2.0) / log2Z
	log2C      = -log2B / float32(float32(6.0)*log2Z)
	log2A      = -log2B - log2C
	sigMask32  = uint32(0x7fffff)
	expOffset  = uint32(127)
	normalized = func(b uint32) float32 { return math.Float32frombits(b) }
)

func log2Approx(x float32) float32 {
	b := math.Float32bits(x)
	exp := b >> 23
	sig := b & sigMask32
	high := uint32(0)
	if sig > log2ZSig {
		high = 1
	}
	logInt := exp + high - expOffset
	n := normalized((0x7f^high)<<23 | sig)
	return float32(float32(logInt)+log2A) + float32(n*float32(log2B+float32(log2C*n)))
}

func bitLen(x uint64) uint { return uint(bits.Len64(x)) }

func binCost(metaCost float32, lower, upper uint64, count uint32, totalLog2 float32) float32 {
	c := float32(count)
	ans := totalLog2 - log2Approx(c)
	offs := float32(bitLen(upper - lower))
	return metaCost + float32(float32(ans+offs)*c)
}

// optimizeBins merges histogram bins into the bins to code with, choosing
// the partition of least estimated cost (with pco's bonuses for a single
// bin and for bins without offsets, which decode faster).
func optimizeBins(hist []histBin, ansLog, latentBits uint) []bin {
	n := len(hist)
	cCounts := make([]uint32, n+1)
	best := make([]float32, n+1)
	for i, b := range hist {
		cCounts[i+1] = cCounts[i] + uint32(b.count)
	}
	total := cCounts[n]
	totalLog2 := log2Approx(float32(total))
	metaCost := float32(ansLog + latentBits + offsetBitsWidth(latentBits))
	bestJ := make([]int, n)
	for i := 0; i < n; i++ {
		bc, bj := float32(math.MaxFloat32), -1
		for j := i; j >= 0; j-- {
			cost := best[j] + binCost(metaCost, hist[j].lower, hist[i].upper, cCounts[i+1]-cCounts[j], totalLog2)
			if cost < bc {
				bc, bj = cost, j
			}
		}
		best[i+1] = bc
		bestJ[i] = bj
	}
	bestCost := best[n]
	type part struct{ j, i int }
	var parts []part
	single := binCost(metaCost, hist[0].lower, hist[n-1].upper, total, totalLog2)
	switch {
	case single < bestCost+float32(0.1*float32(total)):
		parts = []part{{0, n - 1}}
	default:
		trivial := true
		var tcost float32
		for _, b := range hist {
			if b.lower != b.upper {
				trivial = false
				break
			}
			tcost += binCost(metaCost, b.lower, b.upper, uint32(b.count), totalLog2)
		}
		if trivial && tcost < bestCost+float32(0.1*float32(total)) {
			for i := range hist {
				parts = append(parts, part{i, i})
			}
			break
		}
		for i := n - 1; ; {
			j := bestJ[i]
			parts = append(parts, part{j, i})
			if j == 0 {
				break
			}
			i = j - 1
		}
		slices.Reverse(parts)
	}
	out := make([]bin, len(parts))
	for k, p := range parts {
		count := 0
		for _, b := range hist[p.j : p.i+1] {
			count += b.count
		}
		out[k] = bin{weight: uint32(count), lower: hist[p.j].lower, offsetBits: bitLen(hist[p.i].upper - hist[p.j].lower)}
	}
	return out
}

// quantizeWeights scales bin counts to tANS weights summing to a power of
// two no smaller than the bin count, and at most 2^maxLog unless the bins
// need more; returns the table size log.
func quantizeWeights(counts []uint32, total int, maxLog uint) (uint, []uint32) {
	if len(counts) == 1 {
		return 0, []uint32{1}
	}
	sizeLog := max(uint(bits.Len(uint(len(counts)-1))), maxLog)
	w := quantizeWeightsTo(counts, total, sizeLog)
	shift := uint(32)
	for _, x := range w {
		shift = min(shift, uint(bits.TrailingZeros32(x)))
	}
	for i := range w {
		w[i] >>= shift
	}
	return sizeLog - shift, w
}

func quantizeWeightsTo(counts []uint32, total int, sizeLog uint) []uint32 {
	if sizeLog == 0 {
		return []uint32{1}
	}
	required := uint32(1) << sizeLog
	mult := float32(required) / float32(total)
	surplus := make([]float32, len(counts))
	var desired float32
	for i, c := range counts {
		surplus[i] = max(float32(float32(c)*mult)-1, 0)
		desired += surplus[i]
	}
	requiredSurplus := required - uint32(len(counts))
	var surplusMult float32
	if desired != 0 {
		surplusMult = float32(requiredSurplus) / desired
	}
	fw := make([]float32, len(counts))
	w := make([]uint32, len(counts))
	var sum uint32
	for i, s := range surplus {
		fw[i] = 1 + float32(s*surplusMult)
		w[i] = uint32(math.Round(float64(fw[i])))
		sum += w[i]
	}
	for i := 0; sum > required; i++ {
		if w[i] > 1 && float32(w[i]) > fw[i] {
			w[i]--
			sum--
		}
	}
	for i := 0; sum < required; i++ {
		if float32(w[i]) < fw[i] {
			w[i]++
			sum++
		}
	}
	return w
}

// trainBins chooses a latent variable's bins and tANS table size; counts
// are the bins' latent counts before quantisation.
func trainBins(latents []uint64, binsLog, latentBits uint) (bins []bin, ansLog uint, counts []uint32) {
	n := len(latents)
	if n == 0 {
		return nil, 0, nil
	}
	hist := histogram(latents, binsLog)
	nLogCeil := uint(0)
	if n > 1 {
		nLogCeil = uint(bits.Len(uint(n - 1)))
	}
	estimated := min(binsLog+2, 12, nLogCeil)
	bins = optimizeBins(hist, estimated, latentBits)
	counts = make([]uint32, len(bins))
	for i, b := range bins {
		counts[i] = b.weight
	}
	ansLog, weights := quantizeWeights(slices.Clone(counts), n, estimated)
	for i := range bins {
		bins[i].weight = weights[i]
	}
	return bins, ansLog, counts
}
