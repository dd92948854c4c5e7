//go:build !zarrcore

package codec

import (
	"encoding/binary"
	"slices"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// n5Codec is the registry's "n5_default" (array→bytes), in the full build:
// N5's default-mode blocks, a header (mode 0, the dimension count and the
// block's shape, big-endian) before the elements encoded by the configured
// chain — a transpose reversing the dimensions (N5 blocks are in F order),
// bytes big-endian, at most one compressor. A block's shape may be smaller
// or larger than the chunk's (N5 writers truncate or pad edge blocks): what
// it holds is cut or filled to the chunk. Writing stores whole chunks, as
// zarr-python 2's N5 store does.
type n5Codec struct {
	codecs []Config
}

func init() { Register(newN5, "n5_default") }

type n5Config struct {
	Codecs []NamedConfig `json:"codecs"`
}

func (c *n5Config) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("codecs", jsonx.Objects(&c.Codecs))}
}

func newN5(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c n5Config
	if err := StrictConfig(cfg, &c); err != nil {
		return nil, err
	}
	if len(c.Codecs) < 2 || len(c.Codecs) > 3 {
		return nil, fmtx.Errorf("codecs must be a transpose, a bytes codec and at most one compressor, got %d codecs", len(c.Codecs))
	}
	k := &n5Codec{}
	for _, x := range c.Codecs {
		k.codecs = append(k.codecs, Config{Name: x.Name, Configuration: x.Configuration})
	}
	if c.Codecs[0].Name != "transpose" {
		return nil, fmtx.Errorf("codecs[0] must be transpose (N5 blocks are in F order), got %q", c.Codecs[0].Name)
	}
	var bytesCfg endianConfig
	if c.Codecs[1].Name != "bytes" {
		return nil, fmtx.Errorf("codecs[1] must be bytes, got %q", c.Codecs[1].Name)
	}
	if err := ParseConfig(c.Codecs[1].Configuration, &bytesCfg); err != nil {
		return nil, err
	}
	if in.DType != nil && in.DType.Size > 1 && bytesCfg.Endian != "big" {
		return nil, fmtx.Errorf("codecs[1]: N5 stores %s big-endian, not %q", in.DType, bytesCfg.Endian)
	}
	if in.Shape != nil {
		// the transpose must reverse every dimension
		n := len(in.Shape)
		var order []int
		var tc transposeConfig
		if err := ParseConfig(c.Codecs[0].Configuration, &tc); err != nil || jsonx.UnmarshalStrict(tc.Order, &order) != nil || len(order) != n {
			return nil, fmtx.Errorf("codecs[0]: the transpose must reverse the %d dimensions", n)
		}
		for i, p := range order {
			if p != n-1-i {
				return nil, fmtx.Errorf("codecs[0]: order %v does not reverse the %d dimensions", order, n)
			}
		}
		if n > 1<<16-1 {
			return nil, fmtx.Errorf("N5 blocks have at most 65535 dimensions")
		}
	}
	if len(c.Codecs) == 3 {
		b, err := Build(k.codecs[2], Spec{})
		if err != nil {
			return nil, err
		}
		if Kind(b) != "bytes→bytes" {
			return nil, fmtx.Errorf("codecs[2] must be a bytes→bytes codec, got %q", c.Codecs[2].Name)
		}
	}
	return k, nil
}

type endianConfig struct {
	Endian string `json:"endian"`
}

func (c *endianConfig) JSONFields() []jsonx.Field { return []jsonx.Field{jsonx.F("endian", &c.Endian)} }

func (k *n5Codec) chain(shape []int, t *dtype.DataType, fill dtype.Fill) (*Chain, error) {
	return NewChain(k.codecs, Spec{Shape: shape, DType: t, Fill: fill})
}

func (k *n5Codec) Decode(b []byte, out Spec) (*nd.Array, error) {
	if len(b) < 4 {
		return nil, Corrupt("n5_default", "%d bytes are too short for an N5 block header", len(b))
	}
	if mode := binary.BigEndian.Uint16(b); mode != 0 {
		return nil, errs.New(errs.Unsupported, "n5_default", "N5 block mode %d (varlength or object) is not the default mode", mode)
	}
	n := int(binary.BigEndian.Uint16(b[2:]))
	if n != len(out.Shape) {
		return nil, Corrupt("n5_default", "the block has %d dimensions, the array %d", n, len(out.Shape))
	}
	if len(b) < 4+4*n {
		return nil, Corrupt("n5_default", "%d bytes are too short for the header of a %d-dimensional block", len(b), n)
	}
	shape := make([]int, n)
	for i := range shape {
		shape[i] = int(binary.BigEndian.Uint32(b[4+4*i:]))
	}
	size, ok := nd.CheckedSize(shape, out.DType.Size)
	if !ok || size > effectiveLimit(0) {
		return nil, &errs.Error{Code: errs.Codec, Where: "n5_default", Msg: fmtx.Sprintf("a block of shape %v", shape), Err: ErrTooLarge}
	}
	c, err := k.chain(shape, out.DType, out.Fill)
	if err != nil {
		return nil, err
	}
	block, err := c.Decode(b[4+4*n:])
	if err != nil {
		return nil, err
	}
	if slices.Equal(shape, out.Shape) {
		return block, nil
	}
	// an edge block truncated or padded by its writer
	chunk := nd.Filled(out.DType, out.Shape, out.Fill)
	region := make([]nd.Range, n)
	for i := range region {
		region[i] = nd.Range{Step: 1, Count: min(shape[i], out.Shape[i])}
	}
	nd.Copy(chunk, region, block, region)
	return chunk, nil
}

func (k *n5Codec) Encode(a *nd.Array) ([]byte, error) {
	shape := a.Shape()
	head := make([]byte, 4+4*len(shape))
	binary.BigEndian.PutUint16(head[2:], uint16(len(shape)))
	for i, s := range shape {
		if s > 1<<32-1 {
			return nil, fmtx.Errorf("n5_default: a block dimension of %d does not fit N5's uint32", s)
		}
		binary.BigEndian.PutUint32(head[4+4*i:], uint32(s))
	}
	c, err := k.chain(shape, a.DType(), a.DType().ZeroFill())
	if err != nil {
		return nil, err
	}
	body, err := c.Encode(a)
	if err != nil {
		return nil, err
	}
	return append(head, body...), nil
}
