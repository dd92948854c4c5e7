//go:build !zarrcore

package codec

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/pierrec/lz4/v4"
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

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
