package blosc

import "errors"

// A raw LZ4 block decoder (lz4_Block_format.md). c-blosc stores every lz4
// and lz4hc stream as one raw block decoded with LZ4_decompress_safe into
// exactly neblock bytes. This decoder is written for speed in pure Go (it is
// what runs under GOOS=js GOARCH=wasm, where no assembly is available) and
// checks every read and write.
//
// Sequence: token (hi nibble literal length, lo nibble match length-4; 15
// means "add the following bytes while they are 255"), literals, 2-byte
// little-endian offset (0 invalid), match. The last sequence normally has
// literals only.

var errLZ4 = errors.New("invalid lz4 block")

func lz4Decode(dst, src []byte) error {
	si, di := 0, 0
	// Like pierrec/lz4 (used on amd64/arm64), a block may also end right
	// after a match; LZ4_decompress_safe is stricter there. Every platform
	// thus accepts the same streams.
	for si < len(src) {
		tok := int(src[si])
		si++
		lit := tok >> 4
		// Fast path: short literal run and short match, with room to
		// over-copy 16 bytes on both sides.
		if lit < 15 && len(src)-si >= 18 && len(dst)-di >= 16 {
			le.PutUint64(dst[di:], le.Uint64(src[si:]))
			le.PutUint64(dst[di+8:], le.Uint64(src[si+8:]))
			di += lit
			si += lit
			off := int(src[si]) | int(src[si+1])<<8
			si += 2
			ml := tok&15 + 4
			if ml < 19 && off >= 8 && off <= di && len(dst)-di >= 18 {
				le.PutUint64(dst[di:], le.Uint64(dst[di-off:]))
				le.PutUint64(dst[di+8:], le.Uint64(dst[di-off+8:]))
				le.PutUint16(dst[di+16:], le.Uint16(dst[di-off+16:]))
				di += ml
				continue
			}
			if ml == 19 {
				for {
					if si >= len(src) {
						return errLZ4
					}
					c := int(src[si])
					si++
					ml += c
					if c != 255 {
						break
					}
					if ml > len(dst) {
						return errLZ4
					}
				}
			}
			if off == 0 || off > di || ml > len(dst)-di {
				return errLZ4
			}
			matchCopy(dst, di, off, ml)
			di += ml
			continue
		}
		if lit == 15 {
			for {
				if si >= len(src) {
					return errLZ4
				}
				c := int(src[si])
				si++
				lit += c
				if c != 255 {
					break
				}
				if lit > len(src) {
					return errLZ4
				}
			}
		}
		if lit > len(src)-si || lit > len(dst)-di {
			return errLZ4
		}
		copy(dst[di:di+lit], src[si:si+lit])
		di += lit
		si += lit
		if si == len(src) {
			// Last sequence: literals only, with an empty match nibble.
			if tok&15 != 0 {
				return errLZ4
			}
			break
		}
		if len(src)-si < 2 {
			return errLZ4
		}
		off := int(src[si]) | int(src[si+1])<<8
		si += 2
		ml := tok&15 + 4
		if ml == 19 {
			for {
				if si >= len(src) {
					return errLZ4
				}
				c := int(src[si])
				si++
				ml += c
				if c != 255 {
					break
				}
				if ml > len(dst) {
					return errLZ4
				}
			}
		}
		if off == 0 || off > di || ml > len(dst)-di {
			return errLZ4
		}
		matchCopy(dst, di, off, ml)
		di += ml
	}
	if di != len(dst) {
		return errLZ4
	}
	return nil
}
