package pcodec

import "math"

// formatVersion is the wrapped format version of a file.
type formatVersion struct{ major, minor byte }

// Newest format this package knows; a file of a newer minor version may
// still be readable (pco tries too), a newer major version is not.
var maxFormat = formatVersion{4, 1}

func (v formatVersion) deltaVariants() bool { return v.major >= 3 }

// Modes: how numbers split into latents.
const (
	modeClassic    = 0
	modeIntMult    = 1
	modeFloatMult  = 2
	modeFloatQuant = 3
	modeDict       = 4
)

// Delta encodings of the primary (and optionally secondary) latents.
const (
	deltaNone        = 0
	deltaConsecutive = 1
	deltaLookback    = 2
	deltaConv1       = 3
)

// Format limits (pco's constants.rs).
const (
	maxConsecutiveOrder   = 7
	maxConv1Quantization  = 31
	maxEntries            = 1 << 24 // numbers per chunk
	maxLookbackWindowLog  = 24
	binsCountBits         = 15
	fullBatch             = 256
	ansInterleaving       = 4
	dictLenBits           = 25
	quantizeKBits         = 8
	lookbackWindowLogBits = 5
	lookbackStateLogBits  = 4
	conv1QuantBits        = 5
	conv1WeightsBits      = 5
)

// bin is one range of latents: lower plus an offset of offsetBits bits,
// coded with the given tANS weight.
type bin struct {
	weight     uint32
	lower      uint64
	offsetBits uint
}

// varDelta is the delta encoding one latent variable uses.
type varDelta struct {
	kind      int
	order     int // consecutive order, or conv1's number of weights
	windowLog uint
	stateLog  uint
	quant     uint    // conv1 quantization
	bias      int64   // conv1
	weights   []int64 // conv1
}

// stateN is the number of latents stored per page to start the decoding.
func (d *varDelta) stateN() int {
	switch d.kind {
	case deltaConsecutive, deltaConv1:
		return d.order
	case deltaLookback:
		return 1 << d.stateLog
	}
	return 0
}

// latentVar is one interleaved stream of latents in a chunk.
type latentVar struct {
	bits    uint // latent width
	ansLog  uint
	bins    []bin
	nodes   []ansNode
	delta   varDelta
	maxOffs uint // widest offset of any bin
}

// chunkMeta is a parsed chunk metadata section.
type chunkMeta struct {
	t         NumberType
	mode      int
	base      uint64   // int-mult base latent, float-mult base (as an ordered latent)
	quantK    uint     // float-quant k
	dict      []uint64 // dict values as latents
	deltaKind int
	delta     *latentVar // lookback distances, when deltaKind is lookback
	primary   *latentVar
	secondary *latentVar // int-mult, float-mult and float-quant adjustments
}

func (m *chunkMeta) vars() []*latentVar {
	out := make([]*latentVar, 0, 3)
	for _, v := range []*latentVar{m.delta, m.primary, m.secondary} {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

// readChunkMeta parses chunk metadata for numbers of type t.
func readChunkMeta(r *bitReader, v formatVersion, t NumberType) (*chunkMeta, error) {
	m := &chunkMeta{t: t}
	bits := t.Bits()
	m.mode = int(r.read(4))
	switch m.mode {
	case modeClassic:
	case modeIntMult:
		if v.major == 0 {
			return nil, corrupt("int-mult mode of format version 0 (pco 0.0.0's yanked GCD encoding) is not readable")
		}
		m.base = r.read(bits)
		if t.IsFloat() || m.base == 0 {
			return nil, corrupt("invalid int-mult mode for %s (base %d)", t, m.base)
		}
	case modeFloatMult:
		m.base = r.read(bits)
		if !t.IsFloat() || !t.isFiniteNonZero(t.fromLatentOrdered(m.base)) {
			return nil, corrupt("invalid float-mult mode for %s", t)
		}
	case modeFloatQuant:
		m.quantK = uint(r.read(quantizeKBits))
		if !t.IsFloat() || m.quantK == 0 || m.quantK > t.precisionBits() {
			return nil, corrupt("invalid float-quant mode for %s (k = %d)", t, m.quantK)
		}
	case modeDict:
		n := uint(r.read(dictLenBits))
		if err := r.finishByte("dict mode length"); err != nil {
			return nil, err
		}
		if n*bits > r.remaining() {
			return nil, corrupt("dict of %d values is longer than the data", n)
		}
		m.dict = make([]uint64, n)
		for i := range m.dict {
			m.dict[i] = r.read(bits)
		}
	default:
		return nil, corrupt("unknown mode %d", m.mode)
	}
	if err := r.check("mode"); err != nil {
		return nil, err
	}

	primary, err := readDeltaEncoding(r, v, m)
	if err != nil {
		return nil, err
	}
	primaryBits := bits
	if m.mode == modeDict {
		primaryBits = 32 // dict indices
	}
	if m.deltaKind == deltaLookback {
		if m.delta, err = readLatentVar(r, 32); err != nil {
			return nil, err
		}
		window := uint64(1) << primary.windowLog
		for _, b := range m.delta.bins {
			if b.lower < 1 || b.lower > window {
				return nil, corrupt("lookback bin lower bound %d outside the window [1, %d]", b.lower, window)
			}
		}
	}
	if m.primary, err = readLatentVar(r, primaryBits); err != nil {
		return nil, err
	}
	m.primary.delta = primary.forPrimary
	if m.mode == modeIntMult || m.mode == modeFloatMult || m.mode == modeFloatQuant {
		if m.secondary, err = readLatentVar(r, bits); err != nil {
			return nil, err
		}
		if primary.secondaryUsesDelta {
			m.secondary.delta = primary.forPrimary
		}
	}
	if m.deltaKind == deltaConv1 {
		if err := checkConv1(&m.primary.delta, m.primary.bits); err != nil {
			return nil, err
		}
	}
	if err := r.finishByte("chunk metadata"); err != nil {
		return nil, err
	}
	return m, nil
}

type deltaHeader struct {
	forPrimary         varDelta
	windowLog          uint
	secondaryUsesDelta bool
}

func readDeltaEncoding(r *bitReader, v formatVersion, m *chunkMeta) (deltaHeader, error) {
	var h deltaHeader
	if !v.deltaVariants() {
		// Before format 3 only consecutive deltas existed: 3 bits of order.
		order := int(r.read(3))
		if order > 0 {
			m.deltaKind = deltaConsecutive
			h.forPrimary = varDelta{kind: deltaConsecutive, order: order}
		}
		return h, r.check("delta encoding")
	}
	m.deltaKind = int(r.read(4))
	switch m.deltaKind {
	case deltaNone:
	case deltaConsecutive:
		order := int(r.read(3))
		if order == 0 {
			return h, corrupt("consecutive delta encoding of order 0")
		}
		h.secondaryUsesDelta = r.read(1) == 1
		h.forPrimary = varDelta{kind: deltaConsecutive, order: order}
	case deltaLookback:
		windowLog := 1 + uint(r.read(lookbackWindowLogBits))
		stateLog := uint(r.read(lookbackStateLogBits))
		if windowLog > maxLookbackWindowLog {
			return h, corrupt("lookback window of 2^%d exceeds the maximum 2^%d", windowLog, maxLookbackWindowLog)
		}
		if stateLog > windowLog {
			return h, corrupt("lookback state of 2^%d exceeds its window of 2^%d", stateLog, windowLog)
		}
		h.secondaryUsesDelta = r.read(1) == 1
		h.windowLog = windowLog
		h.forPrimary = varDelta{kind: deltaLookback, windowLog: windowLog, stateLog: stateLog}
	case deltaConv1:
		quant := uint(r.read(conv1QuantBits))
		bias := int64(r.read(64) ^ 1<<63) // an i64 as an ordered latent
		order := 1 + int(r.read(conv1WeightsBits))
		weights := make([]int64, order)
		for i := range weights {
			weights[i] = int64(int32(uint32(r.read(32)) ^ 1<<31))
		}
		h.forPrimary = varDelta{kind: deltaConv1, order: order, quant: quant, bias: bias, weights: weights}
	default:
		return h, corrupt("unknown delta encoding %d", m.deltaKind)
	}
	return h, r.check("delta encoding")
}

// checkConv1 refuses conv1 parameters whose predictions could overflow the
// accumulator (twice the latent width, signed), as pco does.
func checkConv1(d *varDelta, latentBits uint) error {
	if latentBits > 32 {
		return corrupt("conv1 delta encoding on %d-bit latents", latentBits)
	}
	convBits := 2 * latentBits
	if d.quant > maxConv1Quantization || d.quant > convBits-1 {
		return corrupt("conv1 quantization %d exceeds the maximum for %d-bit latents", d.quant, latentBits)
	}
	sum := 0.0
	for _, w := range d.weights {
		sum += math.Abs(float64(w))
	}
	maxPred := math.Abs(float64(d.bias)) + math.Ldexp(sum, int(latentBits))
	if maxPred >= math.Ldexp(1, int(convBits)-1) {
		return corrupt("conv1 weights and bias could overflow (up to %g)", maxPred)
	}
	return nil
}

// offsetBitsWidth is how many bits encode a bin's offset width.
func offsetBitsWidth(latentBits uint) uint {
	n := uint(0)
	for x := latentBits; x > 0; x >>= 1 {
		n++
	}
	return n
}

func readLatentVar(r *bitReader, bits uint) (*latentVar, error) {
	v := &latentVar{bits: bits}
	v.ansLog = uint(r.read(4))
	nBins := uint(r.read(binsCountBits))
	if err := r.check("bins"); err != nil {
		return nil, err
	}
	switch {
	case v.ansLog > maxANSSizeLog:
		return nil, corrupt("tANS size log %d exceeds %d", v.ansLog, maxANSSizeLog)
	case nBins > 1<<v.ansLog:
		return nil, corrupt("%d bins do not fit a tANS table of 2^%d", nBins, v.ansLog)
	case nBins == 1 && v.ansLog > 0:
		return nil, corrupt("one bin with a tANS size log of %d", v.ansLog)
	}
	obw := offsetBitsWidth(bits)
	if nBins*(v.ansLog+bits+obw) > r.remaining() {
		return nil, corrupt("%d bins are longer than the data", nBins)
	}
	v.bins = make([]bin, nBins)
	for i := range v.bins {
		b := &v.bins[i]
		b.weight = uint32(r.read(v.ansLog)) + 1
		b.lower = r.read(bits)
		b.offsetBits = uint(r.read(obw))
		if b.offsetBits > bits {
			return nil, corrupt("bin offset of %d bits exceeds the %d-bit latents", b.offsetBits, bits)
		}
		v.maxOffs = max(v.maxOffs, b.offsetBits)
	}
	if err := r.check("bins"); err != nil {
		return nil, err
	}
	var err error
	v.nodes, err = decodeTable(v.ansLog, v.bins)
	return v, err
}
