//go:build zarrcore

package blosc

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// The core build decodes Blosc's zlib and zstd streams only through the
// host's decoders (SetStreamDecoder); the rest is the full build's, and so
// are the encoders of everything but blosclz (github.com/pierrec/lz4/v4,
// whose package initialisation would link fmt and reflect): the core build
// does not write (encodeOther stores every stream raw).

type zlibEncoder struct{}

type lz4Encoder struct{}

func zlibDecode(d, s []byte) error { return fmtx.Errorf("zlib: %w", errs.OtherBuild) }

func zstdDecode(d, s []byte) error { return fmtx.Errorf("zstd: %w", errs.OtherBuild) }

func (e *encState) encodeOther(string, int, []byte, []byte) int { return 0 }
