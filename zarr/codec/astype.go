package codec

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// astypeCodec is numcodecs "astype": NumPy casts from decode_dtype to
// encode_dtype and back (lossy when encode_dtype is narrower).
type astypeCodec struct{ numericFilter }

func init() { Register(newAstype, "numcodecs.astype") }

func newAstype(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	f, err := parseNumericFilter("astype", m, "decode_dtype", "encode_dtype", true)
	if err != nil {
		return nil, err
	}
	if err := checkTimeCast(f.dt, f.as); err != nil {
		return nil, err
	}
	return &astypeCodec{f}, nil
}

// checkTimeCast rejects casts NumPy would do with unit conversions
// (datetime64[s] to datetime64[ms], ...), which are not implemented.
func checkTimeCast(a, b *dtype.DataType) error {
	isTime := func(t *dtype.DataType) bool { return t.Kind == dtype.Datetime || t.Kind == dtype.Timedelta }
	switch {
	case isTime(a) && isTime(b):
		if a.Kind != b.Kind || a.Unit != b.Unit || a.Scale != b.Scale {
			return fmtx.Errorf("casting %s to %s is not supported", a, b)
		}
	case isTime(a) || isTime(b):
		other := a
		if isTime(a) {
			other = b
		}
		if other.Kind != dtype.Int && other.Kind != dtype.Uint {
			return fmtx.Errorf("casting between %s and %s is not supported", a, b)
		}
	}
	return nil
}

func (c *astypeCodec) Encoded(in Spec) (Spec, error) { return c.encodedSpec(in, c.Encode) }

func (c *astypeCodec) Encode(a *nd.Array) (*nd.Array, error) {
	v, err := c.input(a)
	if err != nil {
		return nil, err
	}
	out := castBytes(v.Bytes(), c.dn, c.dt.Size, c.an, c.as.Size)
	return nd.FromBytes(c.as, v.Shape(), out)
}

func (c *astypeCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	if err := c.checkEncoded(a); err != nil {
		return nil, err
	}
	return castDecode("astype", a, c.as, c.an, c.dt, c.dn, out)
}

// castBytes casts every element of src (type from, size fs) to type to.
func castBytes(src []byte, from ntype, fs int, to ntype, ts int) []byte {
	n := len(src) / fs
	out := make([]byte, n*ts)
	for i := 0; i < n; i++ {
		store(to, out[i*ts:], cast(load(from, src[i*fs:]), from, to))
	}
	return out
}

// castDecode casts encoded elements back to dtype and views them as out.
func castDecode(name string, a *nd.Array, as *dtype.DataType, an ntype, dt *dtype.DataType, dn ntype, out Spec) (*nd.Array, error) {
	dec := castBytes(a.Bytes(), an, as.Size, dn, dt.Size)
	return finish(name, dec, out)
}
