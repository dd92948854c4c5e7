package codec

import (
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// numericFilter holds what delta, fixedscaleoffset, quantize and astype
// share: the decoded type (dtype) the chunk is viewed as, and the encoded
// type (astype).
type numericFilter struct {
	name   string
	dt, as *dtype.DataType // in memory (memType)
	dn, an ntype
	// cfgDT, cfgAs are the types as configured, with their byte orders.
	cfgDT, cfgAs *dtype.DataType
}

// ViewTypes returns dtype and astype as configured.
func (f *numericFilter) ViewTypes() (in, out *dtype.DataType) { return f.cfgDT, f.cfgAs }

func parseNumericFilter(name string, m map[string]jsonx.RawMessage, dtKey, asKey string, asRequired bool) (numericFilter, error) {
	f := numericFilter{name: name}
	var err error
	if f.dt, err = parseFilterDType(m[dtKey], dtKey); err != nil {
		return f, err
	}
	if raw := strings.TrimSpace(string(m[asKey])); (raw == "" || raw == "null") && !asRequired {
		f.as = f.dt
	} else if f.as, err = parseFilterDType(m[asKey], asKey); err != nil {
		return f, err
	}
	f.cfgDT, f.cfgAs = f.dt, f.as
	f.dt, f.as = memType(f.dt), memType(f.as)
	var ok bool
	if f.dn, ok = ntypeOf(f.dt); !ok {
		return f, fmtx.Errorf("%s %s is not a numeric type", dtKey, f.dt)
	}
	if f.an, ok = ntypeOf(f.as); !ok {
		return f, fmtx.Errorf("%s %s is not a numeric type", asKey, f.as)
	}
	return f, nil
}

// encodedSpec is the output representation: astype, the input shape (or
// its flattened length when the view changes the element size).
func (f *numericFilter) encodedSpec(in Spec, enc func(*nd.Array) (*nd.Array, error)) (Spec, error) {
	if in.DType == nil || in.DType.Variable() {
		return Spec{}, fmtx.Errorf("%s needs fixed-size elements", f.name)
	}
	shape, err := viewShape(in.Shape, in.DType, f.dt)
	if err != nil {
		return Spec{}, err
	}
	return Spec{Shape: shape, DType: f.as, Fill: encodeFill(in, f.as, enc)}, nil
}

// input views the chunk as dtype.
func (f *numericFilter) input(a *nd.Array) (*nd.Array, error) {
	v, err := viewArray(a, f.dt)
	if err != nil {
		return nil, fmtx.Errorf("%s: %v", f.name, err)
	}
	return v, nil
}

// checkEncoded verifies that a holds elements of astype's size.
func (f *numericFilter) checkEncoded(a *nd.Array) error {
	if a.DType().Variable() || a.DType().Size != f.as.Size {
		return Corrupt(f.name, "expected %s elements, got %s", f.as, a.DType())
	}
	return nil
}

// finish views decoded elements of dtype as the requested representation.
func finish(name string, data []byte, out Spec) (*nd.Array, error) {
	if want := nd.Size(out.Shape) * out.DType.Size; len(data) != want {
		return nil, Corrupt(name, "decoded %d bytes, expected %d for shape %v of %s", len(data), want, out.Shape, out.DType)
	}
	return nd.FromBytes(out.DType, out.Shape, data)
}

// deltaCodec is numcodecs "delta": enc[0] = x[0], enc[i] = x[i] - x[i-1]
// computed in dtype and cast to astype; decoding is a cumulative sum.
type deltaCodec struct{ numericFilter }

func init() { Register(newDelta, "numcodecs.delta") }

func newDelta(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	f, err := parseNumericFilter("delta", m, "dtype", "astype", false)
	if err != nil {
		return nil, err
	}
	return &deltaCodec{f}, nil
}

func (c *deltaCodec) Encoded(in Spec) (Spec, error) { return c.encodedSpec(in, c.Encode) }

func (c *deltaCodec) Encode(a *nd.Array) (*nd.Array, error) {
	if c.dn.kind == 'b' || c.an.kind == 'b' {
		// numcodecs reads such chunks (its decoder is a running OR), so they
		// read here; but its encoder stores XORs, which read back as other
		// values: writing one would change the data.
		return nil, errs.New(errs.Unsupported, "delta", "delta on bool does not read back what was written (numcodecs encodes NumPy's diff, an exclusive or, and decodes a running or); it is read, not written")
	}
	v, err := c.input(a)
	if err != nil {
		return nil, err
	}
	src := v.Bytes()
	n := v.Len()
	ds, as := c.dt.Size, c.as.Size
	out := make([]byte, n*as)
	var prev num
	for i := 0; i < n; i++ {
		x := load(c.dn, src[i*ds:])
		d := x
		if i > 0 {
			d = arith(c.dn, '-', x, prev)
		}
		store(c.an, out[i*as:], cast(d, c.dn, c.an))
		prev = x
	}
	return nd.FromBytes(c.as, v.Shape(), out)
}

// Decode accumulates as np.cumsum(enc, out=dec) does: in the promoted type
// of astype and dtype, each partial sum cast to dtype.
func (c *deltaCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	if err := c.checkEncoded(a); err != nil {
		return nil, err
	}
	loop := promote(c.dn, c.an)
	src := a.Bytes()
	n := a.Len()
	ds, as := c.dt.Size, c.as.Size
	dec := make([]byte, n*ds)
	var acc num
	for i := 0; i < n; i++ {
		x := cast(load(c.an, src[i*as:]), c.an, loop)
		if i == 0 {
			acc = x
		} else {
			acc = arith(loop, '+', acc, x)
		}
		store(c.dn, dec[i*ds:], cast(acc, loop, c.dn))
	}
	return finish("delta", dec, out)
}
