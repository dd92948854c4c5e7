package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// packbitsCodec is numcodecs "packbits": a bool chunk becomes a 1-d uint8
// array: the number of padding bits (0-7), then the bits packed 8 per byte,
// most significant bit first (np.packbits). (zarr-extensions' v3 "packbits",
// an array→bytes codec, is another codec.)
type packbitsCodec struct{}

func init() {
	Register(newPackbits, "numcodecs.packbits")
}

func newPackbits(cfg jsonx.RawMessage, _ Spec) (any, error) {
	if _, err := configMembers(cfg); err != nil {
		return nil, err
	}
	return packbitsCodec{}, nil
}

var packbitsIn = &dtype.DataType{Kind: dtype.Bool, Size: 1, Endian: dtype.NoOrder, Name: "|b1"}

// ViewTypes: numcodecs views the input as bool and produces uint8.
func (packbitsCodec) ViewTypes() (in, out *dtype.DataType) { return packbitsIn, packbitsOut }

func packbitsInput(t *dtype.DataType) error {
	if t == nil || t.Variable() || t.Size != 1 || (t.Kind != dtype.Bool && t.Kind != dtype.Int && t.Kind != dtype.Uint) {
		return fmtx.Errorf("packbits works on bool chunks, not %v", t)
	}
	return nil
}

var packbitsOut = &dtype.DataType{Kind: dtype.Uint, Size: 1, Endian: dtype.NoOrder, Name: "|u1"}

func (packbitsCodec) Encoded(in Spec) (Spec, error) {
	if err := packbitsInput(in.DType); err != nil {
		return Spec{}, err
	}
	n := nd.Size(in.Shape)
	return Spec{Shape: []int{1 + (n+7)/8}, DType: packbitsOut, Fill: dtype.Fill{Bytes: []byte{0}}}, nil
}

func (packbitsCodec) Encode(a *nd.Array) (*nd.Array, error) {
	if err := packbitsInput(a.DType()); err != nil {
		return nil, err
	}
	src := a.Bytes()
	n := len(src)
	out := make([]byte, 1+(n+7)/8)
	out[0] = byte((8 - n%8) % 8)
	for i, v := range src {
		if v != 0 {
			out[1+i/8] |= 0x80 >> (i % 8)
		}
	}
	return nd.FromBytes(packbitsOut, []int{len(out)}, out)
}

func (packbitsCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	b := a.Bytes()
	n := nd.Size(out.Shape)
	if a.DType().Variable() || a.DType().Size != 1 || len(b) < 1 {
		return nil, Corrupt("packbits", "expected at least one byte")
	}
	pad := int(b[0])
	if pad > 7 {
		return nil, Corrupt("packbits", "padding of %d bits (at most 7)", pad)
	}
	if got := 8*(len(b)-1) - pad; got != n || (len(b) > 1) != (n > 0) {
		return nil, Corrupt("packbits", "%d packed bits, expected %d for shape %v", got, n, out.Shape)
	}
	dec := make([]byte, n)
	for i := range dec {
		dec[i] = (b[1+i/8] >> (7 - i%8)) & 1
	}
	return nd.FromBytes(out.DType, out.Shape, dec)
}
