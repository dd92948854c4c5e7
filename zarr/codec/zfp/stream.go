package zfp

import "encoding/binary"

// reader reads a zfp bit stream: bits in order of significance within
// little-endian 64-bit words, as LLNL's bitstream.inl buffers them. Words past
// the end of the data read as zero; the decoder checks afterwards that no bit
// past the end was consumed.
type reader struct {
	data   []byte
	next   int    // index of the next word to load
	buffer uint64 // bits not yet consumed, least significant first
	bits   uint   // number of bits in buffer (0..63)
}

func (r *reader) word() uint64 {
	off := r.next * 8
	r.next++
	if off >= 0 && off+8 <= len(r.data) {
		return binary.LittleEndian.Uint64(r.data[off:])
	}
	var w uint64
	for i := 0; i < 8; i++ {
		if o := off + i; o >= 0 && o < len(r.data) {
			w |= uint64(r.data[o]) << (8 * i)
		}
	}
	return w
}

func (r *reader) readBit() uint64 {
	if r.bits == 0 {
		r.buffer = r.word()
		r.bits = 64
	}
	r.bits--
	b := r.buffer & 1
	r.buffer >>= 1
	return b
}

// readBits reads n <= 64 bits, the first read being the least significant.
func (r *reader) readBits(n uint) uint64 {
	value := r.buffer
	if r.bits < n {
		w := r.word()
		value += w << r.bits
		r.bits += 64 - n
		if r.bits == 0 {
			r.buffer = 0
		} else {
			r.buffer = w >> (64 - r.bits)
			value &= 2<<(n-1) - 1
		}
		return value
	}
	r.bits -= n
	r.buffer >>= n
	return value & (1<<n - 1)
}

// tell is the offset in bits of the next bit to read.
func (r *reader) tell() uint64 { return uint64(r.next)*64 - uint64(r.bits) }

func (r *reader) seek(off uint64) {
	r.next = int(off / 64)
	n := uint(off % 64)
	if n == 0 {
		r.buffer, r.bits = 0, 0
		return
	}
	r.buffer = r.word() >> n
	r.bits = 64 - n
}

func (r *reader) skip(n uint64) { r.seek(r.tell() + n) }

// overrun reports whether more bits were consumed than the data holds.
func (r *reader) overrun() bool { return r.tell() > uint64(len(r.data))*8 }

// writer writes a zfp bit stream (the inverse of reader). It buffers 64-bit
// words; flush may end the stream on a smaller word.
type writer struct {
	out    []byte
	buffer uint64
	bits   uint
}

func (w *writer) put(word uint64) {
	w.out = binary.LittleEndian.AppendUint64(w.out, word)
}

func (w *writer) writeBit(bit uint64) uint64 {
	w.buffer |= bit << w.bits
	w.bits++
	if w.bits == 64 {
		w.put(w.buffer)
		w.buffer, w.bits = 0, 0
	}
	return bit
}

// writeBits writes the n <= 64 low bits of value and returns value >> n.
func (w *writer) writeBits(value uint64, n uint) uint64 {
	if n == 0 {
		return value
	}
	low := value
	if n < 64 {
		low &= 1<<n - 1
	}
	w.buffer |= low << w.bits
	if w.bits+n >= 64 {
		w.put(w.buffer)
		w.buffer = low >> (64 - w.bits) // all of low went out when bits was 0
		w.bits = w.bits + n - 64
	} else {
		w.bits += n
	}
	return value >> n
}

// pad appends n zero bits.
func (w *writer) pad(n uint64) {
	total := uint64(w.bits) + n
	for ; total >= 64; total -= 64 {
		w.put(w.buffer)
		w.buffer = 0
	}
	w.bits = uint(total)
}

// flush pads the stream to a whole word of wordBits bits and writes out
// what is buffered.
func (w *writer) flush(wordBits uint) {
	n := (w.bits + wordBits - 1) / wordBits * wordBits
	for i := uint(0); i < n; i += 8 {
		w.out = append(w.out, byte(w.buffer>>i))
	}
	w.buffer, w.bits = 0, 0
}

func (w *writer) tell() uint64 { return uint64(len(w.out))*8 + uint64(w.bits) }
