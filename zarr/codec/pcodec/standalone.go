package pcodec

// The standalone format wraps the wrapped format's pieces in a file:
//
//	"pco!", a standalone version byte, (version ≥ 3) a uniform number type
//	byte or 0, (version ≥ 2) a size hint (6 bits of bit length - 1, then the
//	hint), zero bits to a byte boundary, the wrapped header (format major
//	version, and from major 4 a minor version), then per chunk: its number
//	type byte, 24 bits of count - 1, chunk metadata and one page; and a
//	terminating 0 byte where a number type would come.
//
// Standalone versions 0 and 1 had no version byte of their own: the byte
// after the magic is already the wrapped format version.

var magic = [4]byte{'p', 'c', 'o', '!'}

const maxStandaloneVersion = 3

// Header is what a standalone file says about itself before its chunks.
type Header struct {
	StandaloneVersion int
	Format            [2]byte    // wrapped format major and minor version
	UniformType       NumberType // 0 when chunks may differ in type
	NHint             uint64     // the writer's count of numbers, 0 if unknown; not trusted
}

func readHeader(r *bitReader) (Header, error) {
	var h Header
	m, err := r.alignedBytes(4)
	if err != nil {
		return h, corrupt("not pco data: shorter than its magic header")
	}
	if [4]byte(m) != magic {
		return h, corrupt("not pco data: magic header %q is not \"pco!\"", m)
	}
	b, err := r.alignedBytes(1)
	if err != nil {
		return h, err
	}
	h.StandaloneVersion = int(b[0])
	if h.StandaloneVersion < 2 {
		r.pos -= 8 // that byte was the wrapped format version
	} else {
		if h.StandaloneVersion > maxStandaloneVersion {
			return h, corrupt("standalone version %d is newer than this reader's %d", h.StandaloneVersion, maxStandaloneVersion)
		}
		if h.StandaloneVersion >= 3 {
			if b, err = r.alignedBytes(1); err != nil {
				return h, err
			}
			h.UniformType = NumberType(b[0])
			if h.UniformType != 0 && !h.UniformType.Valid() {
				return h, corrupt("unknown uniform number type %d", b[0])
			}
		}
		power := 1 + uint(r.read(6))
		h.NHint = r.read(power)
		if err := r.finishByte("size hint"); err != nil {
			return h, err
		}
	}
	if b, err = r.alignedBytes(1); err != nil {
		return h, err
	}
	h.Format[0] = b[0]
	if h.Format[0] >= 4 {
		if b, err = r.alignedBytes(1); err != nil {
			return h, err
		}
		h.Format[1] = b[0]
	}
	if h.Format[0] > maxFormat.major {
		return h, corrupt("format version %d.%d is newer than this reader's %d.%d", h.Format[0], h.Format[1], maxFormat.major, maxFormat.minor)
	}
	return h, nil
}

// ReadHeader parses the header of a standalone file.
func ReadHeader(src []byte) (Header, error) {
	return readHeader(newBitReader(src[:min(len(src), 64)]))
}

// Decode decodes a standalone file of numbers of type t into dst, which
// must hold exactly the file's numbers (len(dst)/t.Size() of them),
// little-endian. A file with more or fewer numbers, or of another type, is
// an error; nothing beyond dst is allocated for the numbers.
func Decode(src []byte, t NumberType, dst []byte) error {
	if !t.Valid() {
		return corrupt("unknown number type %d", byte(t))
	}
	if len(dst)%t.Size() != 0 {
		return corrupt("output of %d bytes is not a whole number of %s", len(dst), t)
	}
	_, n, err := decode(src, t, len(dst)/t.Size(), dst)
	if err != nil {
		return err
	}
	if want := len(dst) / t.Size(); n != want {
		return corrupt("data holds %d numbers, expected %d", n, want)
	}
	return nil
}

// DecodeAny decodes a standalone file of any number type holding at most
// maxN numbers, returning their type and little-endian bytes (type 0 for a
// file with no chunks).
func DecodeAny(src []byte, maxN int) (NumberType, []byte, error) {
	t, n, buf, err := decodeGrow(src, maxN)
	if err != nil {
		return 0, nil, err
	}
	return t, buf[:n*t.Size()], nil
}

func decodeGrow(src []byte, maxN int) (NumberType, int, []byte, error) {
	var buf []byte
	t, n, err := decodeChunks(src, 0, maxN, func(t NumberType, at, n int) []byte {
		need := (at + n) * t.Size()
		if need > len(buf) {
			buf = append(buf, make([]byte, need-len(buf))...)
		}
		return buf[at*t.Size() : need]
	})
	return t, n, buf, err
}

func decode(src []byte, want NumberType, maxN int, dst []byte) (NumberType, int, error) {
	return decodeChunks(src, want, maxN, func(t NumberType, at, n int) []byte {
		return dst[at*t.Size() : (at+n)*t.Size()]
	})
}

// decodeChunks walks the chunks of a standalone file, decoding each into
// the bytes out returns for it. Chunks must share one type (want, if not 0)
// and hold at most maxN numbers in all.
func decodeChunks(src []byte, want NumberType, maxN int, out func(t NumberType, at, n int) []byte) (NumberType, int, error) {
	r := newBitReader(src)
	h, err := readHeader(r)
	if err != nil {
		return 0, 0, err
	}
	version := formatVersion{h.Format[0], h.Format[1]}
	t := want
	total := 0
	for {
		b, err := r.alignedBytes(1)
		if err != nil {
			return 0, 0, corrupt("truncated data: no end-of-file byte")
		}
		ct := NumberType(b[0])
		if ct == 0 {
			return t, total, nil
		}
		switch {
		case !ct.Valid():
			return 0, 0, corrupt("unknown number type %d", b[0])
		case h.UniformType != 0 && ct != h.UniformType:
			return 0, 0, corrupt("chunk of %s in a file of %s", ct, h.UniformType)
		case t != 0 && ct != t:
			return 0, 0, corrupt("chunk of %s where %s was expected", ct, t)
		}
		t = ct
		nb, err := r.alignedBytes(3)
		if err != nil {
			return 0, 0, err
		}
		n := 1 + (int(nb[0]) | int(nb[1])<<8 | int(nb[2])<<16)
		if n > maxN-total {
			return 0, 0, corrupt("data holds more than the %d numbers expected", maxN)
		}
		m, err := readChunkMeta(r, version, t)
		if err != nil {
			return 0, 0, err
		}
		if err := decodePage(r, m, n, out(t, total, n)); err != nil {
			return 0, 0, err
		}
		total += n
	}
}
