package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// bitPacking is zarr-extensions' v3 "packbits" array→bytes codec: the bits
// first_bit..last_bit of every component (bool 1 bit, int2/uint2 2, int4/
// uint4/float4 4, float6 6, any other type its whole width; complex two
// components) packed least significant bit first, with an optional byte
// giving the padding bits at the start or the end. (numcodecs' packbits is
// another codec, "numcodecs.packbits".)
type bitPacking struct {
	padding         string // "none", "first_byte", "last_byte"
	firstBit        int
	lastBit         int // -1: the component's last bit
	compBits, comps int
	signed          bool
	dt              *dtype.DataType
}

func init() { Register(newBitPacking, "packbits") }

func newBitPacking(cfg jsonx.RawMessage, in Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	c := &bitPacking{}
	if c.padding, err = stringOption(m["padding_encoding"], "padding_encoding", "none"); err != nil {
		return nil, err
	}
	switch c.padding {
	case "none", "first_byte", "last_byte":
	default:
		return nil, fmtx.Errorf("padding_encoding must be none, first_byte or last_byte, got %q", c.padding)
	}
	if c.firstBit, err = intOption(m["first_bit"], "first_bit", 0); err != nil {
		return nil, err
	}
	if c.lastBit, err = intOption(m["last_bit"], "last_bit", -1); err != nil {
		return nil, err
	}
	if in.DType == nil {
		return c, nil
	}
	t := in.DType
	if t.Variable() || t.Kind == dtype.Struct {
		return nil, errs.New(errs.Unsupported, "packbits", "packbits takes numbers and bools, not %s", t)
	}
	c.dt, c.comps, c.compBits = t, 1, 8*t.Size
	if t.Kind == dtype.Complex {
		c.comps, c.compBits = 2, 4*t.Size
		t = t.ComplexPart() // each part packed as its type
	}
	switch {
	case t.Kind == dtype.Bool:
		c.compBits = 1
	case t.Format != "":
		if signed, bits, ok := dtype.LowPrecInt(t.Format); ok {
			c.compBits, c.signed = bits, signed
		} else if lp, ok := dtype.LowPrecFloat(t.Format); ok && lp.Bits() < 8 {
			c.compBits = lp.Bits()
		}
	}
	if c.lastBit < 0 {
		c.lastBit = c.compBits - 1
	}
	if c.firstBit < 0 || c.firstBit > c.lastBit || c.lastBit >= c.compBits {
		return nil, fmtx.Errorf("first_bit %d and last_bit %d do not fit %d-bit components", c.firstBit, c.lastBit, c.compBits)
	}
	return c, nil
}

// layout returns the bits kept per component and the packed size of n
// elements (without the padding byte).
func (c *bitPacking) layout(n int) (kept, packed int) {
	kept = c.lastBit - c.firstBit + 1
	return kept, (n*c.comps*kept + 7) / 8
}

// padded is a component's width in memory: whole bytes.
func (c *bitPacking) padded() int { return 8 * ((c.compBits + 7) / 8) }

func (c *bitPacking) Encode(a *nd.Array) ([]byte, error) {
	if c.dt == nil {
		return nil, errs.New(errs.Unsupported, "packbits", "packbits needs a data type")
	}
	n := a.Len()
	kept, packed := c.layout(n)
	out := make([]byte, packed)
	src := a.Bytes()
	for comp := 0; comp < n*c.comps; comp++ {
		for b := 0; b < kept; b++ {
			from := comp*c.padded() + c.firstBit + b
			if src[from/8]>>(from%8)&1 == 1 {
				to := comp*kept + b
				out[to/8] |= 1 << (to % 8)
			}
		}
	}
	pad := byte(packed*8 - n*c.comps*kept)
	switch c.padding {
	case "first_byte":
		out = append([]byte{pad}, out...)
	case "last_byte":
		out = append(out, pad)
	}
	return out, nil
}

func (c *bitPacking) Decode(b []byte, out Spec) (*nd.Array, error) {
	if c.dt == nil || out.DType == nil || out.DType.Size != c.dt.Size {
		return nil, Corrupt("packbits", "packbits was set up for another data type")
	}
	n := nd.Size(out.Shape)
	kept, packed := c.layout(n)
	want := packed
	if c.padding != "none" {
		want++
	}
	if len(b) != want {
		return nil, Corrupt("packbits", "%d bytes, expected %d for %d elements", len(b), want, n)
	}
	switch c.padding {
	case "first_byte":
		b = b[1:]
	case "last_byte":
		b = b[:packed]
	}
	dec := make([]byte, n*c.dt.Size)
	for comp := 0; comp < n*c.comps; comp++ {
		top := false
		for k := 0; k < kept; k++ {
			from := comp*kept + k
			bit := b[from/8]>>(from%8)&1 == 1
			if bit {
				to := comp*c.padded() + c.firstBit + k
				dec[to/8] |= 1 << (to % 8)
			}
			top = bit
		}
		if c.signed && top {
			// sign-extend through the byte, as sub-byte integers are held
			last := comp*c.padded() + c.firstBit + kept - 1
			for bit := last%8 + 1; bit < 8; bit++ {
				dec[last/8] |= 1 << bit
			}
		}
	}
	return nd.FromBytes(out.DType, out.Shape, dec)
}
