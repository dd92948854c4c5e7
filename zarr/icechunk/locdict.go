//go:build !zarrcore

package icechunk

import "github.com/klauspost/compress/zstd"

// dictDecoder returns a decoder of virtual chunk locations compressed with
// a manifest's zstd dictionary (klauspost/compress; the core WebAssembly
// build leaves these manifests to the full build). Each location decodes
// to at most max bytes.
func dictDecoder(dict []byte, max int) (func([]byte) ([]byte, error), error) {
	d, err := zstd.NewReader(nil, zstd.WithDecoderDicts(dict), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max)))
	if err != nil {
		return nil, err
	}
	return func(b []byte) ([]byte, error) { return d.DecodeAll(b, nil) }, nil
}
