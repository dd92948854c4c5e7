package pcodec

// Delta decoding of one latent variable within a page, batch by batch. The
// latents of a page start with its delta state (stateN latents stored in the
// page metadata) and continue with the values the deltas rebuild; all
// arithmetic wraps at the latent width. Deltas are stored "centred" (offset
// by half the latent range) so that small negative and positive deltas stay
// together.

// deltaDecoder holds one latent variable's delta state through a page.
type deltaDecoder struct {
	d    *varDelta
	mask uint64
	mid  uint64

	moments []uint64 // consecutive: one running sum per order

	ring     []uint64 // lookback: recent latents, by position
	ringMask int
	pos      int // lookback: position of the next latent (state latents are at -stateN..-1)
	stateN   int

	conv []uint64 // conv1: the last order latents
}

// newDeltaDecoder starts a page whose delta state is state and which holds
// pageN numbers.
func newDeltaDecoder(d *varDelta, bits uint, state []uint64, pageN int) *deltaDecoder {
	dd := &deltaDecoder{d: d, mask: widthMask(bits), mid: 1 << (bits - 1), stateN: len(state)}
	switch d.kind {
	case deltaConsecutive:
		dd.moments = state
	case deltaConv1:
		dd.conv = state
	case deltaLookback:
		// The ring must hold every latent a lookback can reach (no further
		// back than the window, nor before the page's state: positions
		// before it read as zero) and a batch's outputs, which lag stateN
		// behind.
		reach := min(1<<d.windowLog, pageN+len(state))
		size := 1
		for size < max(reach, fullBatch+len(state))+1 {
			size <<= 1
		}
		dd.ring = make([]uint64, size)
		dd.ringMask = size - 1
		copy(dd.ring, state)
	}
	return dd
}

// decode turns the batch's deltas (the first valid of them real, the rest of
// lat filler) into latents in place. lookbacks are the batch's lookback
// distances, for lookback encoding.
func (dd *deltaDecoder) decode(lat []uint64, valid int, lookbacks []uint64) error {
	for i := range lat {
		lat[i] = (lat[i] + dd.mid) & dd.mask
	}
	switch dd.d.kind {
	case deltaConsecutive:
		// Each order is a running sum started at its moment; the highest
		// order's sum is undone first.
		for o := len(dd.moments) - 1; o >= 0; o-- {
			m := dd.moments[o]
			for i, d := range lat {
				lat[i] = m
				m = (m + d) & dd.mask
			}
			dd.moments[o] = m
		}
	case deltaLookback:
		return dd.lookback(lat, valid, lookbacks)
	case deltaConv1:
		dd.conv1(lat)
	}
	return nil
}

func (dd *deltaDecoder) lookback(lat []uint64, valid int, lookbacks []uint64) error {
	window := uint64(1) << dd.d.windowLog
	ring, rm, sn := dd.ring, dd.ringMask, dd.stateN
	start := dd.pos
	for i := 0; i < valid; i++ {
		lb := lookbacks[i]
		if lb == 0 || lb > window {
			return corrupt("lookback of %d outside the window [1, %d]", lb, window)
		}
		p := dd.pos
		var prev uint64
		if q := p - int(lb); q >= -sn {
			prev = ring[(q+sn)&rm]
		}
		ring[(p+sn)&rm] = (lat[i] + prev) & dd.mask
		dd.pos++
	}
	// The page's latents lag the rebuilt ones by the state: its first
	// stateN latents are the state itself.
	for i := range lat {
		lat[i] = ring[(start+i)&rm]
	}
	return nil
}

func (dd *deltaDecoder) conv1(lat []uint64) {
	d, st := dd.d, dd.conv
	order := len(st)
	for i, res := range lat {
		s := d.bias
		for j, w := range d.weights {
			s += w * int64(st[j])
		}
		pred := uint64(max(s, 0)>>d.quant) & dd.mask
		lat[i] = st[0]
		copy(st, st[1:])
		st[order-1] = (res + pred) & dd.mask
	}
}
