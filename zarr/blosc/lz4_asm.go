//go:build (amd64 || arm || arm64) && gc && !noasm

package blosc

import "github.com/pierrec/lz4/v4"

// Where github.com/pierrec/lz4/v4 has an assembly decoder it is about twice
// as fast as lz4Decode, so use it there. Everywhere else (notably wasm),
// lz4Decode is the faster one.
func lz4DecodeBlock(dst, src []byte) error {
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return errLZ4
	}
	if n != len(dst) {
		return errLZ4
	}
	return nil
}
