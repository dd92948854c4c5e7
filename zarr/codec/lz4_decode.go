//go:build !wasm

package codec

import "github.com/pierrec/lz4/v4"

// lz4Uncompress decodes a raw LZ4 block into dst, returning its length.
func lz4Uncompress(src, dst []byte) (int, error) { return lz4.UncompressBlock(src, dst) }
