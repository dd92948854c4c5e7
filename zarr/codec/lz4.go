package codec

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"sync"

	"github.com/pierrec/lz4/v4"
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// lz4Codec is numcodecs "lz4": the uncompressed size as a 4-byte
// little-endian signed integer, then one raw LZ4 block (not the LZ4 frame
// format). The compressor reproduces LZ4_compress_fast.
type lz4Codec struct{ acceleration int }

func init() { Register(newLZ4, "numcodecs.lz4") }

func newLZ4(cfg json.RawMessage, _ Spec) (any, error) {
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

var lz4Compressors = sync.Pool{New: func() any { return new(lz4.CompressorCCompat) }}

func (c *lz4Codec) Encode(b []byte) ([]byte, error) {
	if len(b) > math.MaxInt32 {
		return nil, fmtx.Errorf("lz4: %d bytes exceed the 2 GiB limit of the format", len(b))
	}
	out := make([]byte, 4+lz4.CompressBlockBound(len(b)))
	binary.LittleEndian.PutUint32(out, uint32(len(b)))
	comp := lz4Compressors.Get().(*lz4.CompressorCCompat)
	comp.Acceleration = c.acceleration
	n, err := comp.CompressBlock(b, out[4:])
	lz4Compressors.Put(comp)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		if len(b) > 0 {
			return nil, fmtx.Errorf("lz4: compression failed")
		}
		// Empty input: LZ4 writes a single token with no literals.
		out[4] = 0
		n = 1
	}
	return out[:4+n], nil
}

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
	got, err := lz4.UncompressBlock(b[4:], out)
	if err != nil {
		return nil, Corrupt("lz4", "cannot decompress: %v", err)
	}
	if got != n {
		return nil, Corrupt("lz4", "decompressed %d bytes, the header says %d", got, n)
	}
	return out, nil
}
