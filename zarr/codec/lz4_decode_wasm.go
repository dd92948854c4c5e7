//go:build wasm

package codec

import "github.com/zarr-wasm/zarr-wasm/zarr/blosc"

// lz4Uncompress decodes a raw LZ4 block into dst, which it must fill, with
// Blosc's LZ4 decoder (faster than github.com/pierrec/lz4/v4's under
// WebAssembly, and keeps that package out of the core build).
func lz4Uncompress(src, dst []byte) (int, error) {
	if err := blosc.DecodeLZ4Block(dst, src); err != nil {
		return 0, err
	}
	return len(dst), nil
}
