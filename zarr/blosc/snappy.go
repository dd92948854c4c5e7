package blosc

import (
	"encoding/binary"
	"errors"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// snappyDecode decodes one snappy block (the format Blosc's snappy streams
// use: a varint of the decoded length, then literals and back-references)
// into d, which it must fill exactly. Written here rather than taken from
// klauspost/compress so that the core WebAssembly build, which only reads,
// carries no compression library for it.
func snappyDecode(d, s []byte) error {
	n, k := binary.Uvarint(s)
	if k <= 0 {
		return errors.New("snappy: bad length header")
	}
	if n != uint64(len(d)) {
		return fmtx.Errorf("snappy stream decodes to %d bytes, want %d", n, len(d))
	}
	s = s[k:]
	o := 0
	for len(s) > 0 {
		tag := s[0]
		var length, offset int
		switch tag & 3 {
		case 0: // literal
			length = int(tag>>2) + 1
			s = s[1:]
			if length > 60 {
				extra := length - 60 // 1 to 4 bytes of length-1
				if len(s) < extra {
					return errors.New("snappy: truncated literal length")
				}
				length = 0
				for i := extra - 1; i >= 0; i-- {
					length = length<<8 | int(s[i])
				}
				length++
				s = s[extra:]
			}
			if length <= 0 || length > len(s) || length > len(d)-o {
				return errors.New("snappy: literal runs past the input or the output")
			}
			o += copy(d[o:], s[:length])
			s = s[length:]
			continue
		case 1:
			if len(s) < 2 {
				return errors.New("snappy: truncated copy")
			}
			length = 4 + int(tag>>2)&7
			offset = int(tag>>5)<<8 | int(s[1])
			s = s[2:]
		case 2:
			if len(s) < 3 {
				return errors.New("snappy: truncated copy")
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint16(s[1:]))
			s = s[3:]
		case 3:
			if len(s) < 5 {
				return errors.New("snappy: truncated copy")
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint32(s[1:]))
			s = s[5:]
		}
		if offset <= 0 || offset > o || length > len(d)-o {
			return errors.New("snappy: copy outside the output")
		}
		// Byte by byte where the copy overlaps what it writes.
		if offset >= length {
			o += copy(d[o:o+length], d[o-offset:])
		} else {
			for end := o + length; o < end; o++ {
				d[o] = d[o-offset]
			}
		}
	}
	if o != len(d) {
		return fmtx.Errorf("snappy stream decodes to %d bytes, want %d", o, len(d))
	}
	return nil
}
