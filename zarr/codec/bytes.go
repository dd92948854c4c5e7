package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// bytesCodec is the v3 "bytes" array→bytes codec: elements in C order in the
// configured byte order, which every multi-byte type needs (package meta
// puts a v1/v2 dtype's order here). Unset only for types without one.
type bytesCodec struct{ endian byte }

func init() {
	Register(newBytes, "bytes")
}

type bytesConfig struct {
	Endian *string `json:"endian"`
}

func (c *bytesConfig) JSONFields() []jsonx.Field { return []jsonx.Field{jsonx.F("endian", &c.Endian)} }

func newBytes(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c bytesConfig
	if err := ParseConfig(cfg, &c); err != nil {
		return nil, err
	}
	bc := &bytesCodec{endian: dtype.Unset}
	if c.Endian != nil {
		switch *c.Endian {
		case "little":
			bc.endian = dtype.Little
		case "big":
			bc.endian = dtype.Big
		default:
			return nil, fmtx.Errorf("endian must be \"little\" or \"big\", got %q", *c.Endian)
		}
	}
	if in.DType != nil {
		if in.DType.Variable() {
			return nil, fmtx.Errorf("%s has no fixed size; use vlen-utf8 or vlen-bytes", in.DType)
		}
		if bc.endian == dtype.Unset && in.DType.Name == "structured" {
			bc.endian = dtype.Little // the legacy v3 structured type's default
		}
		if bc.endian == dtype.Unset && in.DType.HasMultiByte() {
			return nil, fmtx.Errorf("endian is required for %s", in.DType)
		}
	}
	return bc, nil
}

// Bytes returns the bytes codec for a given byte order (Unset for types
// without multi-byte parts).
func Bytes(endian byte) ArrayToBytes { return &bytesCodec{endian: endian} }

func (c *bytesCodec) Encode(a *nd.Array) ([]byte, error) {
	out := append([]byte(nil), a.Bytes()...)
	dtype.SwapTo(a.DType(), out, c.endian)
	return out, nil
}

func (c *bytesCodec) Decode(b []byte, out Spec) (*nd.Array, error) {
	want := nd.Size(out.Shape) * out.DType.Size
	if len(b) != want {
		return nil, Corrupt("bytes", "chunk has %d bytes, expected %d for shape %v of %s", len(b), want, out.Shape, out.DType)
	}
	signed, bits, lowInt := dtype.LowPrecInt(out.DType.Format)
	if !lowInt && !c.swaps(out.DType) {
		// Nothing to change: the array shares b (the chain copies where a
		// later step could modify it).
		return nd.FromBytes(out.DType, out.Shape, b)
	}
	data := append([]byte(nil), b...)
	dtype.SwapTo(out.DType, data, c.endian)
	if lowInt {
		// Sub-byte integers: readers ignore the upper bits; in memory the
		// value is sign- or zero-extended through the byte.
		for i, v := range data {
			data[i] = byte(dtype.Int4Value(v, signed, bits))
		}
	}
	return nd.FromBytes(out.DType, out.Shape, data)
}

// swaps reports whether decoding t reverses any bytes.
func (c *bytesCodec) swaps(t *dtype.DataType) bool {
	return c.endian == dtype.Big && t.HasMultiByte()
}

func (c *bytesCodec) EncodedSize(n int) (int, bool) { return n, true }
