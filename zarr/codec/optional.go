//go:build !zarrcore

package codec

import (
	"encoding/binary"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// optionalCodec is zarrs' "optional" array→bytes codec for the optional
// data type: the mask (a bool array of the chunk's shape) and the present
// values only (a 1-d array of the inner type) through their own codec
// chains, stored as mask length and data length (u64 little-endian each),
// then the encoded mask, then the encoded values.
type optionalCodec struct {
	mask, data []Config
}

func init() { Register(newOptional, "optional") }

type optionalConfig struct {
	Mask []NamedConfig `json:"mask_codecs"`
	Data []NamedConfig `json:"data_codecs"`
}

func (c *optionalConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("mask_codecs", jsonx.Objects(&c.Mask)), jsonx.F("data_codecs", jsonx.Objects(&c.Data))}
}

func newOptional(cfg jsonx.RawMessage, in Spec) (any, error) {
	var c optionalConfig
	if err := ParseConfig(cfg, &c); err != nil {
		return nil, err
	}
	if len(c.Mask) == 0 || len(c.Data) == 0 {
		return nil, fmtx.Errorf("mask_codecs and data_codecs are required")
	}
	k := &optionalCodec{}
	for _, m := range c.Mask {
		k.mask = append(k.mask, Config{Name: m.Name, Configuration: m.Configuration})
	}
	for _, d := range c.Data {
		k.data = append(k.data, Config{Name: d.Name, Configuration: d.Configuration})
	}
	if in.DType != nil && !in.DType.Optional {
		return nil, fmtx.Errorf("the optional codec takes an optional data type, not %s", in.DType)
	}
	return k, nil
}

func (k *optionalCodec) chains(shape []int, t *dtype.DataType, valid int) (*Chain, *Chain, error) {
	mask, err := NewChain(k.mask, Spec{Shape: shape, DType: dtype.NewBool()})
	if err != nil {
		return nil, nil, err
	}
	inner := t.Fields[0].Type
	data, err := NewChain(k.data, Spec{Shape: []int{max(valid, 1)}, DType: inner, Fill: inner.ZeroFill()})
	return mask, data, err
}

func (k *optionalCodec) Decode(b []byte, out Spec) (*nd.Array, error) {
	t := out.DType
	if t == nil || !t.Optional {
		return nil, Corrupt("optional", "not an optional data type")
	}
	if t.Variable() {
		return k.decodeValues(b, out)
	}
	mask, db, valid, err := k.decodeMask(b, out.Shape, t)
	if err != nil {
		return nil, err
	}
	size, inner := t.Size, t.Fields[0].Type
	dec := make([]byte, nd.Size(out.Shape)*size)
	if valid > 0 {
		_, dataChain, err := k.chains(out.Shape, t, valid)
		if err != nil {
			return nil, err
		}
		da, err := dataChain.Decode(db)
		if err != nil {
			return nil, err
		}
		data := da.Bytes()
		if len(data) != valid*inner.Size {
			return nil, Corrupt("optional", "%d bytes of values for %d present elements of %s", len(data), valid, inner)
		}
		j := 0
		for i, m := range mask {
			if m != 0 {
				copy(dec[i*size:], data[j*inner.Size:(j+1)*inner.Size])
				dec[i*size+inner.Size] = 1
				j++
			}
		}
	}
	return nd.FromBytes(t, out.Shape, dec)
}

func (k *optionalCodec) Encode(a *nd.Array) ([]byte, error) {
	t := a.DType()
	if !t.Optional {
		return nil, errs.New(errs.Unsupported, "optional", "not an optional data type")
	}
	if t.Variable() {
		return k.encodeValues(a)
	}
	size, inner := t.Size, t.Fields[0].Type
	src := a.Bytes()
	mask := make([]byte, a.Len())
	var data []byte
	for i := range mask {
		if src[i*size+inner.Size] != 0 {
			mask[i] = 1
			data = append(data, src[i*size:i*size+inner.Size]...)
		}
	}
	valid := len(data) / max(inner.Size, 1)
	return k.encodeParts(a, mask, valid, func() (*nd.Array, error) { return nd.FromBytes(inner, []int{valid}, data) })
}

// encodeParts encodes a chunk's mask and, when any is present, its present
// values (made by values) through their chains, and joins them.
func (k *optionalCodec) encodeParts(a *nd.Array, mask []byte, valid int, values func() (*nd.Array, error)) ([]byte, error) {
	maskChain, dataChain, err := k.chains(a.Shape(), a.DType(), valid)
	if err != nil {
		return nil, err
	}
	ma, _ := nd.FromBytes(dtype.NewBool(), a.Shape(), mask)
	mb, err := maskChain.Encode(ma)
	if err != nil {
		return nil, err
	}
	var db []byte
	if valid > 0 {
		da, err := values()
		if err != nil {
			return nil, err
		}
		if db, err = dataChain.Encode(da); err != nil {
			return nil, err
		}
	}
	return joinOptional(mb, db), nil
}

// joinOptional is the stored chunk: the two lengths, the mask, the values.
func joinOptional(mb, db []byte) []byte {
	out := make([]byte, 16, 16+len(mb)+len(db))
	binary.LittleEndian.PutUint64(out, uint64(len(mb)))
	binary.LittleEndian.PutUint64(out[8:], uint64(len(db)))
	return append(append(out, mb...), db...)
}

// splitOptional returns a stored chunk's encoded mask and values.
func splitOptional(b []byte) ([]byte, []byte, error) {
	if len(b) < 16 {
		return nil, nil, Corrupt("optional", "%d bytes are too short for the 16-byte header", len(b))
	}
	ml, dl := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if ml > uint64(len(b)-16) || dl != uint64(len(b)-16)-ml {
		return nil, nil, Corrupt("optional", "the header's lengths (%d, %d) do not add up to the chunk's %d bytes", ml, dl, len(b)-16)
	}
	return b[16 : 16+ml], b[16+ml:], nil
}

// decodeValues decodes an optional type of a variable-size inner type:
// the values where the mask is set, nil elsewhere.
func (k *optionalCodec) decodeValues(b []byte, out Spec) (*nd.Array, error) {
	mask, db, valid, err := k.decodeMask(b, out.Shape, out.DType)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(mask))
	if valid > 0 {
		_, dataChain, err := k.chains(out.Shape, out.DType, valid)
		if err != nil {
			return nil, err
		}
		da, err := dataChain.Decode(db)
		if err != nil {
			return nil, err
		}
		present, _ := da.Objects()
		if len(present) != valid {
			return nil, Corrupt("optional", "%d values for %d present elements", len(present), valid)
		}
		j := 0
		for i, m := range mask {
			if m != 0 {
				vals[i] = present[j]
				j++
			}
		}
	}
	return nd.FromObjects(out.DType, out.Shape, vals)
}

// encodeValues encodes an optional type of a variable-size inner type (nil
// is missing).
func (k *optionalCodec) encodeValues(a *nd.Array) ([]byte, error) {
	items, err := a.Objects()
	if err != nil {
		return nil, err
	}
	mask := make([]byte, len(items))
	var present []any
	for i, v := range items {
		if v != nil {
			mask[i] = 1
			present = append(present, v)
		}
	}
	return k.encodeParts(a, mask, len(present), func() (*nd.Array, error) {
		return nd.FromObjects(a.DType().Fields[0].Type, []int{len(present)}, present)
	})
}

// decodeMask splits an encoded chunk into its decoded mask and its values'
// stored bytes, and counts the mask's valid elements.
func (k *optionalCodec) decodeMask(b []byte, shape []int, t *dtype.DataType) (mask, db []byte, valid int, err error) {
	mb, db, err := splitOptional(b)
	if err != nil {
		return nil, nil, 0, err
	}
	maskChain, _, err := k.chains(shape, t, 1)
	if err != nil {
		return nil, nil, 0, err
	}
	ma, err := maskChain.Decode(mb)
	if err != nil {
		return nil, nil, 0, err
	}
	mask = ma.Bytes()
	for _, m := range mask {
		if m != 0 {
			valid++
		}
	}
	return mask, db, valid, nil
}
