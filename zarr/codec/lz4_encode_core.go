//go:build zarrcore

package codec

// The core build does not write: numcodecs "lz4" encodes in the full build
// only (github.com/pierrec/lz4/v4's package initialisation would link fmt
// and reflect into the core build).
func (c *lz4Codec) Encode(b []byte) ([]byte, error) { return nil, otherBuild("numcodecs.lz4") }
