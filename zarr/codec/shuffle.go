package codec

import (
	"encoding/base64"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// shuffleCodec is numcodecs "shuffle": a byte transpose. Byte k of element
// i goes to position k*count+i, grouping the bytes of equal significance.
// An element size of 0 or 1 leaves the data unchanged.
type shuffleCodec struct{ size int }

// base64Codec is numcodecs "base64": standard base64 with padding.
type base64Codec struct{}

func init() {
	Register(newShuffle, "numcodecs.shuffle")
	Register(func(jsonx.RawMessage, Spec) (any, error) { return base64Codec{}, nil }, "numcodecs.base64")
}

func newShuffle(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	size, err := intOption(m["elementsize"], "elementsize", 4)
	if err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, fmtx.Errorf("elementsize must not be negative, got %d", size)
	}
	return &shuffleCodec{size: size}, nil
}

func (c *shuffleCodec) Encode(b []byte) ([]byte, error) {
	if c.size <= 1 {
		return append([]byte(nil), b...), nil
	}
	if len(b)%c.size != 0 {
		return nil, fmtx.Errorf("shuffle: %d bytes are not a whole number of %d-byte elements", len(b), c.size)
	}
	n := len(b) / c.size
	out := make([]byte, len(b))
	for i := 0; i < n; i++ {
		for k := 0; k < c.size; k++ {
			out[k*n+i] = b[i*c.size+k]
		}
	}
	return out, nil
}

func (c *shuffleCodec) Decode(b []byte) ([]byte, error) {
	if c.size <= 1 {
		return append([]byte(nil), b...), nil
	}
	if len(b)%c.size != 0 {
		return nil, Corrupt("shuffle", "%d bytes are not a whole number of %d-byte elements", len(b), c.size)
	}
	n := len(b) / c.size
	out := make([]byte, len(b))
	for i := 0; i < n; i++ {
		for k := 0; k < c.size; k++ {
			out[i*c.size+k] = b[k*n+i]
		}
	}
	return out, nil
}

func (c *shuffleCodec) EncodedSize(n int) (int, bool) { return n, true }

func (base64Codec) Encode(b []byte) ([]byte, error) {
	out := make([]byte, base64.StdEncoding.EncodedLen(len(b)))
	base64.StdEncoding.Encode(out, b)
	return out, nil
}

// Decode drops characters outside the base64 alphabet first, as Python's
// base64.b64decode does without validate=True.
func (base64Codec) Decode(b []byte) ([]byte, error) {
	clean := make([]byte, 0, len(b))
	for _, c := range b {
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' {
			clean = append(clean, c)
		}
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(clean)))
	n, err := base64.StdEncoding.Decode(out, clean)
	if err != nil {
		return nil, Corrupt("base64", "invalid base64: %v", err)
	}
	return out[:n], nil
}
