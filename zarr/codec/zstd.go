package codec

import (
	"encoding/binary"
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// zstdCodec is numcodecs "zstd" and the v3 "zstd" codec: one zstd frame
// when encoding; decoding accepts any number of frames (and skippable
// frames), with or without a content size.
type zstdCodec struct {
	level    int
	checksum bool
}

func init() { Register(newZstd, "zstd") }

// libzstd's ZSTD_minCLevel and ZSTD_maxCLevel.
const (
	zstdMinLevel = -(1 << 17)
	zstdMaxLevel = 22
)

func newZstd(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	level, err := intOption(m["level"], "level", 0)
	if err != nil {
		return nil, err
	}
	// libzstd clamps a level outside [ZSTD_minCLevel, ZSTD_maxCLevel] (and
	// numcodecs has written level 100); decoding never uses it.
	level = min(max(level, zstdMinLevel), zstdMaxLevel)
	checksum, err := boolOption(m["checksum"], "checksum", false)
	if err != nil {
		return nil, err
	}
	return &zstdCodec{level: level, checksum: checksum}, nil
}

func (c *zstdCodec) Encode(b []byte) ([]byte, error) {
	level := c.level
	if level == 0 {
		level = 3 // the zstd library's default, as the Go encoder maps it
	}
	if out, ok := hostEncode("zstd", level, c.checksum, b); ok {
		return out, nil
	}
	return zstdCompress(b, c.level, c.checksum)
}

func (c *zstdCodec) Decode(b []byte) ([]byte, error) { return c.DecodeLimit(b, 0) }

func (c *zstdCodec) DecodeLimit(b []byte, max int) ([]byte, error) {
	limit := effectiveLimit(max)
	bound, err := zstdBound(b)
	if err != nil {
		return nil, Corrupt("zstd", "%v", err)
	}
	if bound > limit {
		return nil, &errs.Error{Code: errs.Codec, Where: "zstd", Msg: fmtx.Sprintf("frames may decode to %d bytes, more than the limit of %d", bound, limit), Err: ErrTooLarge}
	}
	if out, ok := hostDecode("zstd", b, max, bound); ok {
		return out, nil
	}
	return zstdDecompress(b)
}

const zstdMaxBlock = 128 << 10

// zstdBound walks the frames of b (without decoding) and returns an upper
// bound of the decoded size: the sum over frames of the content size, or of
// the most each block can produce. A content size no block sequence can
// reach marks a corrupt frame, and rejecting it keeps the decoder from
// allocating it.
func zstdBound(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, fmtx.Errorf("empty input")
	}
	total := 0
	for p := 0; p < len(b); {
		if len(b)-p < 4 {
			return 0, fmtx.Errorf("truncated frame at byte %d", p)
		}
		magic := binary.LittleEndian.Uint32(b[p:])
		if magic&0xFFFFFFF0 == 0x184D2A50 { // skippable frame
			if len(b)-p < 8 {
				return 0, fmtx.Errorf("truncated skippable frame at byte %d", p)
			}
			n := int(binary.LittleEndian.Uint32(b[p+4:]))
			if n < 0 || n > len(b)-p-8 {
				return 0, fmtx.Errorf("truncated skippable frame at byte %d", p)
			}
			p += 8 + n
			continue
		}
		if magic != 0xFD2FB528 {
			return 0, fmtx.Errorf("no zstd frame at byte %d (magic %08x)", p, magic)
		}
		p += 4
		if p >= len(b) {
			return 0, fmtx.Errorf("truncated frame header")
		}
		fhd := b[p]
		p++
		single := fhd&0x20 != 0
		if fhd&0x08 != 0 {
			return 0, fmtx.Errorf("reserved bit set in frame header")
		}
		if !single {
			p++ // window descriptor
		}
		p += [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
		fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
		if fcsLen == 0 && single {
			fcsLen = 1
		}
		if p+fcsLen > len(b) {
			return 0, fmtx.Errorf("truncated frame header")
		}
		fcs := uint64(0)
		for i := fcsLen - 1; i >= 0; i-- {
			fcs = fcs<<8 | uint64(b[p+i])
		}
		if fcsLen == 2 {
			fcs += 256
		}
		p += fcsLen
		frame := 0
		for {
			if p+3 > len(b) {
				return 0, fmtx.Errorf("truncated block header")
			}
			h := int(b[p]) | int(b[p+1])<<8 | int(b[p+2])<<16
			p += 3
			last, typ, size := h&1 != 0, (h>>1)&3, h>>3
			switch typ {
			case 0: // raw
				p += size
				frame += size
			case 1: // RLE
				p++
				frame += size
			case 2: // compressed
				p += size
				frame += zstdMaxBlock
			default:
				return 0, fmtx.Errorf("reserved block type")
			}
			if size > zstdMaxBlock {
				return 0, fmtx.Errorf("block of %d bytes exceeds the 128 KiB maximum", size)
			}
			if p > len(b) {
				return 0, fmtx.Errorf("truncated block")
			}
			if frame > maxDecodedSize && fcsLen == 0 {
				// (with a content size, that size is the bound: blocks
				// may decode to less than their 128 KiB maximum)
				return 0, fmtx.Errorf("frame too large")
			}
			if last {
				break
			}
		}
		if fhd&0x04 != 0 {
			p += 4 // content checksum
			if p > len(b) {
				return 0, fmtx.Errorf("truncated checksum")
			}
		}
		if fcsLen > 0 {
			if fcs > uint64(frame) {
				return 0, fmtx.Errorf("frame content size %d is more than its blocks can hold", fcs)
			}
			frame = int(fcs)
		}
		total += frame
		if total > maxDecodedSize {
			return total, nil
		}
	}
	return total, nil
}
