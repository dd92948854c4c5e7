//go:build zarrcore

package blosc

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// The core build decodes Blosc's zlib and zstd streams only through the
// host's decoders (SetStreamDecoder); the rest is the full build's.

type zlibEncoder struct{}

func zlibDecode(d, s []byte) error { return fmtx.Errorf("zlib: %w", errs.OtherBuild) }

func zstdDecode(d, s []byte) error { return fmtx.Errorf("zstd: %w", errs.OtherBuild) }

func (e *encState) encodeOther(string, int, []byte, []byte) int { return 0 }
