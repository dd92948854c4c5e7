package pcodec

import "encoding/binary"

// Bit packing is little-endian throughout pco: a value's low bits come
// first, starting at the lowest unused bit of the current byte.

// readPadding is how many zero bytes follow the data in a reader's buffer:
// more than one batch of one latent variable can read (256 tANS symbols of
// at most 14 bits and 256 offsets of at most 64 bits), so the hot loops can
// read without bounds checks and the reader checks its position once per
// batch, as pco's reader does.
const readPadding = 4096

// bitReader reads bit-packed values from a copy of the input padded with
// zeros. pos may run past end by less than readPadding bytes; ok() tells
// whether it did.
type bitReader struct {
	buf []byte
	pos uint // bit position
	end uint // bit length of the real data
}

func newBitReader(data []byte) *bitReader {
	buf := make([]byte, len(data)+readPadding)
	copy(buf, data)
	return &bitReader{buf: buf, end: uint(len(data)) * 8}
}

// ok reports whether every bit read so far was real data.
func (r *bitReader) ok() bool { return r.pos <= r.end }

func (r *bitReader) remaining() uint {
	if r.pos >= r.end {
		return 0
	}
	return r.end - r.pos
}

// read returns the next n bits (n ≤ 64) as an integer.
func (r *bitReader) read(n uint) uint64 {
	v := readAt(r.buf, r.pos, n)
	r.pos += n
	return v
}

// readAt reads n ≤ 64 bits at bit position pos of buf.
func readAt(buf []byte, pos, n uint) uint64 {
	if n == 0 {
		return 0
	}
	i, s := pos>>3, pos&7
	w := binary.LittleEndian.Uint64(buf[i:]) >> s
	if n+s > 64 {
		w |= uint64(buf[i+8]) << (64 - s)
	}
	if n < 64 {
		w &= 1<<n - 1
	}
	return w
}

// alignedBytes reads n whole bytes; the reader must be byte-aligned.
func (r *bitReader) alignedBytes(n uint) ([]byte, error) {
	if r.pos&7 != 0 {
		return nil, corrupt("misaligned read at bit %d", r.pos)
	}
	if r.remaining() < n*8 {
		return nil, corrupt("truncated data: %d more bytes needed at byte %d", n, r.pos/8)
	}
	b := r.buf[r.pos/8 : r.pos/8+n]
	r.pos += n * 8
	return b, nil
}

// finishByte skips to the next byte boundary; the skipped bits must be
// zero, as pco writes them.
func (r *bitReader) finishByte(where string) error {
	if !r.ok() {
		return corrupt("truncated data in %s", where)
	}
	if s := r.pos & 7; s != 0 {
		if r.buf[r.pos/8]>>s != 0 {
			return corrupt("nonzero padding bits after %s", where)
		}
		r.pos += 8 - s
	}
	return nil
}

// check returns an error naming where when the reader ran past the data.
func (r *bitReader) check(where string) error {
	if !r.ok() {
		return corrupt("truncated data in %s (bit %d of %d)", where, r.pos, r.end)
	}
	return nil
}

// bitWriter packs values little-endian, as bitReader reads them.
type bitWriter struct {
	buf  []byte
	acc  uint64 // pending bits, low first
	nacc uint   // number of pending bits (< 8 between writes)
}

// write appends the low n bits of v (n ≤ 64).
func (w *bitWriter) write(v uint64, n uint) {
	if n == 0 {
		return
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	// acc holds fewer than 8 bits, so at most 7+64 bits are pending: flush
	// whole bytes as they fill.
	w.acc |= v << w.nacc
	total := w.nacc + n
	if total >= 64 {
		binary.LittleEndian.PutUint64(w.grow(8), w.acc)
		total -= 64
		if total > 0 {
			w.acc = v >> (n - total)
		} else {
			w.acc = 0
		}
	}
	for total >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		total -= 8
	}
	w.nacc = total
}

func (w *bitWriter) grow(n int) []byte {
	l := len(w.buf)
	w.buf = append(w.buf, make([]byte, n)...)
	return w.buf[l:]
}

// finishByte pads with zero bits to the next byte boundary.
func (w *bitWriter) finishByte() {
	if w.nacc > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc, w.nacc = 0, 0
	}
}

// bytes appends whole bytes; the writer must be byte-aligned.
func (w *bitWriter) bytes(b ...byte) {
	w.finishByte()
	w.buf = append(w.buf, b...)
}
