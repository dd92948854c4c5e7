package blosc

// DecodeLZ4Block decodes one raw LZ4 block (no frame, no size header) into
// dst, which it must fill exactly, with the decoder Blosc's lz4 streams use
// on this platform (package codec's numcodecs "lz4" uses it under
// WebAssembly, where github.com/pierrec/lz4/v4 is left out of the core
// build).
func DecodeLZ4Block(dst, src []byte) error { return lz4DecodeBlock(dst, src) }
