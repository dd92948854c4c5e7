package codec

import (
	"encoding/binary"
	mbits "math/bits"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// bitroundCodec is numcodecs "bitround" and the v3 "bitround" codec: keep
// keepbits bits of the float mantissa, rounding half to even on the bit
// pattern. Decoding is the identity.
type bitroundCodec struct{ keepbits int }

func init() { Register(newBitround, "numcodecs.bitround") }

func newBitround(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	if len(m["keepbits"]) == 0 {
		return nil, fmtx.Errorf("keepbits is required")
	}
	k, err := intOption(m["keepbits"], "keepbits", 0)
	if err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, fmtx.Errorf("keepbits must be zero or positive, got %d", k)
	}
	return &bitroundCodec{keepbits: k}, nil
}

// mantissaBits is the stored mantissa width of IEEE floats.
func mantissaBits(t *dtype.DataType) (int, bool) {
	if t.Kind != dtype.Float || t.Format != "" {
		return 0, false
	}
	switch t.Size {
	case 2:
		return 10, true
	case 4:
		return 23, true
	case 8:
		return 52, true
	}
	return 0, false
}

// check returns the mantissa width of a float type, or for an integer type
// (zarrs' bitround, which keeps the keepbits most significant bits of each
// value) its width and integer set.
// check returns, for t, the width in bytes of the parts rounded one by one
// (a complex number's two floats are rounded apart) and their mantissa
// width, or for integers (zarrs' bitround, which keeps the keepbits most
// significant bits of each value; datetimes and timedeltas as their int64
// ticks) their width in bits and integer set.
func (c *bitroundCodec) check(t *dtype.DataType) (part, bits int, integer bool, err error) {
	switch {
	case (t.Kind == dtype.Int || t.Kind == dtype.Uint) && t.Format == "" && t.Size <= 8,
		t.Kind == dtype.Datetime || t.Kind == dtype.Timedelta:
		return t.Size, 8 * t.Size, true, nil
	case t.Kind == dtype.Float && t.Format == "bfloat16":
		part, bits = 2, 7
	case t.Kind == dtype.Complex:
		if part, bits, _, err = c.check(t.ComplexPart()); err != nil {
			return 0, 0, false, err
		}
	default:
		var ok bool
		if bits, ok = mantissaBits(t); !ok {
			return 0, 0, false, fmtx.Errorf("bitround works on IEEE floats, bfloat16, complex numbers and integers, not %s", t)
		}
		part = t.Size
	}
	// keepbits beyond the mantissa keeps every bit (zarrs writes such
	// arrays; numcodecs refuses to encode them): the identity.
	return part, bits, false, nil
}

func (c *bitroundCodec) Encoded(in Spec) (Spec, error) {
	if in.DType == nil {
		return Spec{}, fmtx.Errorf("bitround needs a data type")
	}
	if _, _, _, err := c.check(in.DType); err != nil {
		return Spec{}, err
	}
	out := in
	out.Shape = append([]int(nil), in.Shape...)
	out.Fill = encodeFill(in, in.DType, c.Encode)
	return out, nil
}

func (c *bitroundCodec) Encode(a *nd.Array) (*nd.Array, error) {
	w, bits, integer, err := c.check(a.DType())
	if err != nil {
		return nil, err
	}
	data := append([]byte(nil), a.Bytes()...)
	for i := 0; i+w <= len(data); i += w {
		var v uint64
		switch w {
		case 1:
			v = uint64(data[i])
		case 2:
			v = uint64(binary.LittleEndian.Uint16(data[i:]))
		case 4:
			v = uint64(binary.LittleEndian.Uint32(data[i:]))
		default:
			v = binary.LittleEndian.Uint64(data[i:])
		}
		putUint(data[i:i+w], roundBits(v, c.keepbits, bits, integer, 8*w))
	}
	return nd.FromBytes(a.DType(), a.Shape(), data)
}

// roundBits rounds v (a width-bit pattern) to keepbits significant bits,
// ties to even: of a float's mantissa (bits wide), or of an integer counted
// from its highest set bit, the sum saturating at the width as zarrs does.
func roundBits(v uint64, keepbits, bits int, integer bool, width int) uint64 {
	if integer {
		bits = width - (bits64LeadingZeros(v) - (64 - width))
	}
	if keepbits >= bits {
		return v
	}
	drop := bits - keepbits
	add := (v>>drop)&1 + (1<<(drop-1) - 1)
	limit := uint64(1)<<width - 1
	if width == 64 {
		limit = ^uint64(0)
	}
	if integer && v > limit-add {
		v = limit // saturating add
	} else {
		v += add
	}
	return v &^ (1<<drop - 1) & limit
}

func (c *bitroundCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	if a.DType().Variable() || len(a.Bytes()) != nd.Size(out.Shape)*out.DType.Size {
		return nil, Corrupt("bitround", "expected %d elements of %s", nd.Size(out.Shape), out.DType)
	}
	return nd.FromBytes(out.DType, out.Shape, a.Bytes())
}

func bits64LeadingZeros(v uint64) int { return mbits.LeadingZeros64(v) }
