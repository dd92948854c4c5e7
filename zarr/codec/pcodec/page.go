package pcodec

// A page holds n numbers in batches of 256: per batch, per latent variable,
// the tANS-coded bin of each latent, then each latent's offset within its
// bin. The page metadata before them gives each latent variable's delta
// state and the starting states of its four interleaved tANS coders.

// varPage is one latent variable's decoding state through a page.
type varPage struct {
	v      *latentVar
	mask   uint64
	states [ansInterleaving]uint32
	delta  *deltaDecoder
	lat    [fullBatch]uint64
	offs   [fullBatch]uint8
}

// readLatents reads the next k (≤ 256) latents of the variable, before
// delta decoding, into p.lat.
func (p *varPage) readLatents(r *bitReader, k int) {
	v, out := p.v, p.lat[:k]
	if len(v.bins) <= 1 {
		// A single bin (or none) takes no tANS bits.
		var lower uint64
		var ob uint
		if len(v.bins) == 1 {
			lower, ob = v.bins[0].lower, v.bins[0].offsetBits
		}
		for i := range out {
			out[i] = lower
		}
		if ob > 0 {
			pos := r.pos
			for i := range out {
				out[i] = (lower + readAt(r.buf, pos, ob)) & p.mask
				pos += ob
			}
			r.pos = pos
		}
		return
	}
	nodes, buf, pos := v.nodes, r.buf, r.pos
	offs := p.offs[:k]
	s := p.states
	for i := range out {
		j := i & (ansInterleaving - 1)
		n := &nodes[s[j]]
		bits := uint(n.bitsToRead)
		s[j] = n.nextBase + uint32(readAt(buf, pos, bits))
		pos += bits
		out[i] = n.lower
		offs[i] = n.offsetBits
	}
	p.states = s
	if v.maxOffs > 0 {
		for i, ob := range offs {
			if ob != 0 {
				out[i] = (out[i] + readAt(buf, pos, uint(ob))) & p.mask
				pos += uint(ob)
			}
		}
	}
	r.pos = pos
}

// decodePage decodes one page of n numbers of the chunk into dst.
func decodePage(r *bitReader, m *chunkMeta, n int, dst []byte) error {
	vars := m.vars()
	pages := make([]*varPage, len(vars))
	for i, v := range vars {
		p := &varPage{v: v, mask: widthMask(v.bits)}
		stateN := v.delta.stateN()
		if uint(stateN)*v.bits > r.remaining() {
			return corrupt("delta state of %d latents is longer than the data", stateN)
		}
		state := make([]uint64, stateN)
		for j := range state {
			state[j] = r.read(v.bits)
		}
		for j := range p.states {
			p.states[j] = uint32(r.read(v.ansLog))
		}
		if stateN > 0 || v.delta.kind != deltaNone {
			p.delta = newDeltaDecoder(&v.delta, v.bits, state, n)
		}
		pages[i] = p
	}
	if err := r.finishByte("page metadata"); err != nil {
		return err
	}
	primaryState := m.primary.delta.stateN()
	if len(m.primary.bins) == 0 && n > primaryState {
		return corrupt("a chunk with no bins but %d numbers", n-primaryState)
	}
	var lookbacks *varPage
	if m.delta != nil {
		lookbacks, pages = pages[0], pages[1:]
	}
	size := m.t.Size()
	for start := 0; start < n; start += fullBatch {
		batchN := min(fullBatch, n-start)
		remaining := n - start
		valid := min(max(remaining-primaryState, 0), batchN)
		if lookbacks != nil {
			lookbacks.readLatents(r, valid)
			if err := r.check("page"); err != nil {
				return err
			}
		}
		for _, p := range pages {
			pre := min(fullBatch, max(remaining-p.v.delta.stateN(), 0))
			// One batch of one variable reads less than readPadding bytes;
			// checking after each keeps every read inside the buffer.
			p.readLatents(r, pre)
			if err := r.check("page"); err != nil {
				return err
			}
			clear(p.lat[pre:batchN])
			if p.delta != nil {
				var lb []uint64
				if lookbacks != nil {
					lb = lookbacks.lat[:]
				}
				if err := p.delta.decode(p.lat[:batchN], min(pre, batchN), lb); err != nil {
					return err
				}
			}
		}
		var secondary []uint64
		if len(pages) > 1 {
			secondary = pages[1].lat[:batchN]
		}
		if err := m.join(pages[0].lat[:batchN], secondary, dst[start*size:]); err != nil {
			return err
		}
	}
	return r.finishByte("page")
}
