package codec

import (
	"encoding/binary"

	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// lz4Codec is numcodecs "lz4": the uncompressed size as a 4-byte
// little-endian signed integer, then one raw LZ4 block (not the LZ4 frame
// format). The compressor reproduces LZ4_compress_fast.
type lz4Codec struct{ acceleration int }

func init() { Register(newLZ4, "numcodecs.lz4") }

func newLZ4(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	acc, err := intOption(m["acceleration"], "acceleration", 1)
	if err != nil {
		return nil, err
	}
	if acc < 1 {
		acc = 1 // LZ4_compress_fast treats values below 1 as 1
	}
	return &lz4Codec{acceleration: acc}, nil
}

// An LZ4 block expands at most 255:1 (each 0xFF length byte adds 255).
const lz4MaxRatio = 256

func (c *lz4Codec) Decode(b []byte) ([]byte, error) { return c.DecodeLimit(b, 0) }

func (c *lz4Codec) DecodeLimit(b []byte, max int) ([]byte, error) {
	if len(b) < 4 {
		return nil, Corrupt("lz4", "%d bytes are too short for the size header", len(b))
	}
	n := int(int32(binary.LittleEndian.Uint32(b)))
	if n <= 0 {
		return nil, Corrupt("lz4", "size header %d is not positive", n)
	}
	limit := ratioLimit(effectiveLimit(max), len(b)-4, lz4MaxRatio, 64)
	if n > limit {
		return nil, Corrupt("lz4", "size header %d is more than %d compressed bytes can hold (or than the limit)", n, len(b)-4)
	}
	out := make([]byte, n)
	got, err := lz4Uncompress(b[4:], out)
	if err != nil {
		return nil, Corrupt("lz4", "cannot decompress: %v", err)
	}
	if got != n {
		return nil, Corrupt("lz4", "decompressed %d bytes, the header says %d", got, n)
	}
	return out, nil
}
