//go:build !zarrcore

package codec

import (
	"encoding/binary"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// gdeflateCodec is zarrs' "zarrs.gdeflate" (codec.zarrs.dev/bytes_to_bytes/
// gdeflate): the input in pages of 64 KiB, each compressed as a GDeflate
// stream (NVIDIA's and Microsoft's DEFLATE with its bits dealt out to 32
// sub-streams so a GPU decodes them in parallel), stored after a header of
// the decoded length, the page count and each page's compressed length
// (u64 little-endian each). Read only: no other implementation here could
// check what an encoder of ours writes.
type gdeflateCodec struct{}

func init() {
	Register(newGDeflate, "zarrs.gdeflate")
}

type gdeflateConfig struct {
	Level jsonx.RawMessage `json:"level"`
}

func (c *gdeflateConfig) JSONFields() []jsonx.Field { return []jsonx.Field{jsonx.F("level", &c.Level)} }

func newGDeflate(cfg jsonx.RawMessage, _ Spec) (any, error) {
	var c gdeflateConfig
	if err := StrictConfig(cfg, &c); err != nil {
		return nil, err
	}
	level, err := intOption(c.Level, "level", 0)
	if err != nil {
		return nil, err
	}
	if level < 0 || level > 12 {
		return nil, fmtx.Errorf("level %d is not 0 to 12", level)
	}
	return gdeflateCodec{}, nil
}

func (gdeflateCodec) Encode([]byte) ([]byte, error) {
	return nil, errs.New(errs.Unsupported, "zarrs.gdeflate", "is read, not written: no other implementation here checks what an encoder writes; use zstd or gzip")
}

func (c gdeflateCodec) Decode(b []byte) ([]byte, error) { return c.DecodeLimit(b, 0) }

func (gdeflateCodec) DecodeLimit(b []byte, max int) ([]byte, error) {
	if len(b) < 16 {
		return nil, Corrupt("zarrs.gdeflate", "%d bytes are too short for the 16-byte header", len(b))
	}
	total, pages := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	limit := effectiveLimit(max)
	if total > uint64(limit) {
		return nil, &errs.Error{Code: errs.Codec, Where: "zarrs.gdeflate", Msg: fmtx.Sprintf("the header's %d decoded bytes", total), Err: ErrTooLarge}
	}
	if pages > uint64(len(b)-16)/8 || pages != (total+gdeflatePage-1)/gdeflatePage {
		return nil, Corrupt("zarrs.gdeflate", "%d pages for %d decoded bytes in %d bytes", pages, total, len(b))
	}
	at := 16 + 8*int(pages)
	out := make([]byte, total)
	pos := 0
	var d gdeflateDecoder
	for p := 0; p < int(pages); p++ {
		n := binary.LittleEndian.Uint64(b[16+8*p:])
		if n > uint64(len(b)-at) {
			return nil, Corrupt("zarrs.gdeflate", "page %d's %d bytes run past the chunk's end", p, n)
		}
		end := min(pos+gdeflatePage, len(out))
		k, err := d.page(b[at:at+int(n)], out[pos:end])
		if err != nil {
			return nil, Corrupt("zarrs.gdeflate", "page %d: %v", p, err)
		}
		if k != end-pos {
			return nil, Corrupt("zarrs.gdeflate", "page %d holds %d bytes, not %d", p, k, end-pos)
		}
		pos, at = end, at+int(n)
	}
	return out, nil
}

const (
	gdeflatePage    = 64 << 10
	gdeflateStreams = 32
	// gdeflatePadding bounds how far past its end a stream's sub-streams may
	// read (as zeros): a writer pads with 32 words at most.
	gdeflatePadding = 4 * gdeflateStreams
)

// gdeflateDecoder decodes one page. Its order of work is the format: the
// sub-streams take turns (one Huffman symbol each), a turn ends by topping
// the sub-stream's bit buffer up to 32 bits with the stream's next 32-bit
// word, and a match's distance is read on its sub-stream's next turn, when
// the match is copied (its length was reserved in the output already).
type gdeflateDecoder struct {
	in      []byte
	next    int
	bits    [gdeflateStreams]uint64
	nbits   [gdeflateStreams]uint
	pending [gdeflateStreams]struct {
		at, length int
		set        bool
	}
	cur      int
	litlen   huffman
	dist     huffman
	lens     [288 + 32 + 138]uint8
	overread bool
}

// refill tops sub-stream s up to at least 32 bits.
func (d *gdeflateDecoder) refill(s int) {
	if d.nbits[s] >= 32 {
		return
	}
	var w uint32
	switch {
	case d.next+4 <= len(d.in):
		w = binary.LittleEndian.Uint32(d.in[d.next:])
	case d.next < len(d.in):
		var tail [4]byte
		copy(tail[:], d.in[d.next:])
		w = binary.LittleEndian.Uint32(tail[:])
	default:
		if d.next >= len(d.in)+gdeflatePadding {
			d.overread = true
		}
	}
	d.bits[s] |= uint64(w) << d.nbits[s]
	d.nbits[s] += 32
	d.next += 4
}

// take removes n bits (n <= 32) from the current sub-stream.
func (d *gdeflateDecoder) take(n uint) uint32 {
	s := d.cur
	if d.nbits[s] < n {
		d.overread = true
		return 0
	}
	v := uint32(d.bits[s] & (1<<n - 1))
	d.bits[s] >>= n
	d.nbits[s] -= n
	return v
}

// advance ends the current sub-stream's turn.
func (d *gdeflateDecoder) advance() {
	d.refill(d.cur)
	d.cur = (d.cur + 1) % gdeflateStreams
}

// symbol decodes one Huffman symbol from the current sub-stream.
func (d *gdeflateDecoder) symbol(h *huffman) (int, error) {
	s := d.cur
	e := h.table[d.bits[s]&(1<<h.bits-1)]
	n := uint(e & 15)
	if e < 0 || n == 0 || n > d.nbits[s] {
		return 0, fmtx.Errorf("invalid Huffman code")
	}
	d.bits[s] >>= n
	d.nbits[s] -= n
	return int(e >> 4), nil
}

var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	precodeKeys = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// page decodes one GDeflate stream into out and returns its length.
func (d *gdeflateDecoder) page(in, out []byte) (int, error) {
	d.in, d.next, d.cur, d.overread = in, 0, 0, false
	for s := range d.bits {
		d.bits[s], d.nbits[s] = 0, 0
		d.pending[s].set = false
		d.advance()
	}
	pos := 0
	for {
		d.cur = 0
		final := d.take(1)
		kind := d.take(2)
		d.refill(0)
		switch kind {
		case 0: // stored: a 16-bit length, then the bytes dealt out in turn
			n := int(d.take(16))
			if n > len(out)-pos {
				return 0, fmtx.Errorf("a stored block of %d bytes overflows the page", n)
			}
			for ; n > 0; n-- {
				out[pos] = byte(d.take(8))
				pos++
				d.advance()
			}
		case 1, 2:
			if err := d.tables(kind); err != nil {
				return 0, err
			}
			var err error
			if pos, err = d.block(out, pos); err != nil {
				return 0, err
			}
		default:
			return 0, fmtx.Errorf("block type 3 is reserved")
		}
		// every sub-stream takes a last turn for its pending match
		for range gdeflateStreams {
			if d.pending[d.cur].set {
				if err := d.copyMatch(out); err != nil {
					return 0, err
				}
			}
			d.advance()
		}
		if d.overread {
			return 0, fmtx.Errorf("the stream ends early")
		}
		if final == 1 {
			return pos, nil
		}
	}
}

// tables reads a block's Huffman codes (kind 1: the fixed ones).
func (d *gdeflateDecoder) tables(kind uint32) error {
	nlit, ndist := 288, 32
	lens := d.lens[:]
	if kind == 1 {
		for i := range 288 {
			switch {
			case i < 144:
				lens[i] = 8
			case i < 256:
				lens[i] = 9
			case i < 280:
				lens[i] = 7
			default:
				lens[i] = 8
			}
		}
		for i := 288; i < 320; i++ {
			lens[i] = 5
		}
	} else {
		nlit = int(d.take(5)) + 257
		ndist = int(d.take(5)) + 1
		nprecode := int(d.take(4)) + 4
		d.refill(0)
		var pre [19]uint8
		for i := range nprecode {
			pre[precodeKeys[i]] = uint8(d.take(3))
			d.advance()
		}
		var precode huffman
		if err := precode.build(pre[:], 7); err != nil {
			return fmtx.Errorf("code length code: %v", err)
		}
		d.cur = 0
		for i := 0; i < nlit+ndist; {
			sym, err := d.symbol(&precode)
			if err != nil {
				return err
			}
			switch {
			case sym < 16:
				lens[i] = uint8(sym)
				i++
			case sym == 16:
				if i == 0 {
					return fmtx.Errorf("a repeat before the first code length")
				}
				for n, v := 3+int(d.take(2)), lens[i-1]; n > 0; n-- {
					lens[i] = v
					i++
				}
			default:
				var n int
				if sym == 17 {
					n = 3 + int(d.take(3))
				} else {
					n = 11 + int(d.take(7))
				}
				for ; n > 0; n-- {
					lens[i] = 0
					i++
				}
			}
			if i > nlit+ndist {
				return fmtx.Errorf("code lengths run past their count")
			}
			d.advance()
		}
	}
	if err := d.litlen.build(lens[:nlit], 15); err != nil {
		return fmtx.Errorf("literal/length code: %v", err)
	}
	if err := d.dist.build(lens[nlit:nlit+ndist], 15); err != nil {
		return fmtx.Errorf("distance code: %v", err)
	}
	d.cur = 0
	return nil
}

// block decodes a Huffman block's symbols until its end-of-block symbol.
func (d *gdeflateDecoder) block(out []byte, pos int) (int, error) {
	for {
		if d.pending[d.cur].set {
			if err := d.copyMatch(out); err != nil {
				return 0, err
			}
			d.advance()
			continue
		}
		sym, err := d.symbol(&d.litlen)
		if err != nil {
			return 0, err
		}
		switch {
		case sym < 256:
			if pos == len(out) {
				return 0, fmtx.Errorf("literals overflow the page")
			}
			out[pos] = byte(sym)
			pos++
		case sym == 256:
			return pos, nil // the sub-stream's turn continues after the block
		case sym <= 285:
			length := int(lengthBase[sym-257]) + int(d.take(uint(lengthExtra[sym-257])))
			if length > len(out)-pos {
				return 0, fmtx.Errorf("a match overflows the page")
			}
			d.pending[d.cur].at, d.pending[d.cur].length, d.pending[d.cur].set = pos, length, true
			pos += length
		default:
			return 0, fmtx.Errorf("invalid length symbol %d", sym)
		}
		if d.overread {
			return 0, fmtx.Errorf("the stream ends early")
		}
		d.advance()
	}
}

// copyMatch reads the current sub-stream's pending match's distance and
// copies it.
func (d *gdeflateDecoder) copyMatch(out []byte) error {
	p := &d.pending[d.cur]
	p.set = false
	sym, err := d.symbol(&d.dist)
	if err != nil {
		return err
	}
	if sym >= 30 {
		return fmtx.Errorf("invalid distance symbol %d", sym)
	}
	dist := int(distBase[sym]) + int(d.take(uint(distExtra[sym])))
	if dist > p.at {
		return fmtx.Errorf("a match reaches %d bytes before the page's start", dist-p.at)
	}
	for i := range p.length {
		out[p.at+i] = out[p.at+i-dist]
	}
	return nil
}

// huffman is a canonical Huffman code as one lookup table indexed by the
// next bits (least significant first): symbol<<4 | length, -1 for bit
// patterns no code starts with.
type huffman struct {
	table []int32
	bits  uint
}

// build makes the table of a code given by its lengths (0: unused).
// Incomplete codes are allowed (a DEFLATE distance code may have a single
// code); oversubscribed ones are not.
func (h *huffman) build(lens []uint8, maxBits uint) error {
	var count [16]int
	longest := uint(0)
	for _, l := range lens {
		if uint(l) > maxBits {
			return fmtx.Errorf("code length %d", l)
		}
		count[l]++
		longest = max(longest, uint(l))
	}
	count[0] = 0
	left := 1
	for l := 1; l <= 15; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return fmtx.Errorf("oversubscribed")
		}
	}
	h.bits = max(longest, 1)
	size := 1 << h.bits
	if cap(h.table) < size {
		h.table = make([]int32, size)
	}
	h.table = h.table[:size]
	for i := range h.table {
		h.table[i] = -1
	}
	var next [16]int
	code := 0
	for l := 1; l <= 15; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	for sym, l := range lens {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		// reverse the code: DEFLATE sends a code's bits most significant first
		r := 0
		for i := uint(0); i < uint(l); i++ {
			r |= (c >> i & 1) << (uint(l) - 1 - i)
		}
		for i := r; i < size; i += 1 << l {
			h.table[i] = int32(sym)<<4 | int32(l)
		}
	}
	return nil
}
