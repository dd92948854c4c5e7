package codec

import (
	"math"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// fixedScaleOffsetCodec is numcodecs "fixedscaleoffset":
// enc = around((x - offset) * scale) cast to astype, and
// dec = enc / scale + offset cast to dtype, with NumPy's types for each
// step (offset and scale are Python scalars: an integer offset keeps an
// integer array integral, a float one makes it float64).
type fixedScaleOffsetCodec struct {
	numericFilter
	scale, offset pyScalar
}

// quantizeCodec is numcodecs "quantize": enc = around(x * 2^bits) / 2^bits
// with bits chosen from digits; decoding only casts astype to dtype.
type quantizeCodec struct {
	numericFilter
	digits int
	scale  pyScalar // 2^bits, a Python float
}

func init() {
	Register(newFixedScaleOffset, "numcodecs.fixedscaleoffset")
	Register(newQuantize, "numcodecs.quantize")
}

func newFixedScaleOffset(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	f, err := parseNumericFilter("fixedscaleoffset", m, "dtype", "astype", false)
	if err != nil {
		return nil, err
	}
	c := &fixedScaleOffsetCodec{numericFilter: f}
	if c.scale, err = parsePyScalar(m["scale"], "scale"); err != nil {
		return nil, err
	}
	if c.offset, err = parsePyScalar(m["offset"], "offset"); err != nil {
		return nil, err
	}
	for _, t := range []ntype{f.dn, f.an} {
		if t.kind == 'b' || t.kind == 'c' {
			return nil, fmtx.Errorf("fixedscaleoffset supports integer and float types, not %s", t)
		}
	}
	return c, nil
}

func (c *fixedScaleOffsetCodec) Encoded(in Spec) (Spec, error) { return c.encodedSpec(in, c.Encode) }

func (c *fixedScaleOffsetCodec) Encode(a *nd.Array) (*nd.Array, error) {
	v, err := c.input(a)
	if err != nil {
		return nil, err
	}
	r1 := resultWithScalar(c.dn, c.offset) // x - offset
	r2 := resultWithScalar(r1, c.scale)    // (...) * scale
	off, sc := scalarIn(c.offset, r1), scalarIn(c.scale, r2)
	src := v.Bytes()
	n := v.Len()
	ds, as := c.dt.Size, c.as.Size
	out := make([]byte, n*as)
	for i := 0; i < n; i++ {
		x := cast(load(c.dn, src[i*ds:]), c.dn, r1)
		y := arith(r1, '-', x, off)
		y = arith(r2, '*', cast(y, r1, r2), sc)
		y = rint(r2, y)
		store(c.an, out[i*as:], cast(y, r2, c.an))
	}
	return nd.FromBytes(c.as, v.Shape(), out)
}

func (c *fixedScaleOffsetCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	if err := c.checkEncoded(a); err != nil {
		return nil, err
	}
	r3 := resultWithScalar(c.an, c.scale) // enc / scale (true division)
	if r3.kind != 'f' {
		r3 = ntype{'f', 8}
	}
	r4 := resultWithScalar(r3, c.offset) // (...) + offset
	sc, off := scalarIn(c.scale, r3), scalarIn(c.offset, r4)
	src := a.Bytes()
	n := a.Len()
	ds, as := c.dt.Size, c.as.Size
	dec := make([]byte, n*ds)
	for i := 0; i < n; i++ {
		y := arith(r3, '/', cast(load(c.an, src[i*as:]), c.an, r3), sc)
		z := arith(r4, '+', cast(y, r3, r4), off)
		store(c.dn, dec[i*ds:], cast(z, r4, c.dn))
	}
	return finish("fixedscaleoffset", dec, out)
}

func newQuantize(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	f, err := parseNumericFilter("quantize", m, "dtype", "astype", false)
	if err != nil {
		return nil, err
	}
	if f.dn.kind != 'f' || f.an.kind != 'f' {
		return nil, fmtx.Errorf("quantize supports only float types")
	}
	c := &quantizeCodec{numericFilter: f}
	if len(m["digits"]) == 0 {
		return nil, fmtx.Errorf("digits is required")
	}
	if c.digits, err = intOption(m["digits"], "digits", 0); err != nil {
		return nil, err
	}
	if c.digits < -300 || c.digits > 300 {
		return nil, fmtx.Errorf("digits %d is out of range", c.digits)
	}
	c.scale = pyScalar{isFloat: true, f: quantizeScale(c.digits)}
	return c, nil
}

// quantizeScale follows numcodecs: precision = 10**-digits; exp =
// floor(log10(precision)) (ceil when >= 0); bits = ceil(log2(10**-exp));
// scale = 2**bits. Python's math.log(x, b) is log(x)/log(b).
func quantizeScale(digits int) float64 {
	precision := math.Pow(10, float64(-digits))
	e := math.Log(precision) / math.Log(10)
	if e < 0 {
		e = math.Floor(e)
	} else {
		e = math.Ceil(e)
	}
	bits := math.Ceil(math.Log(math.Pow(10, -e)) / math.Log(2))
	return math.Pow(2, bits)
}

func (c *quantizeCodec) Encoded(in Spec) (Spec, error) { return c.encodedSpec(in, c.Encode) }

func (c *quantizeCodec) Encode(a *nd.Array) (*nd.Array, error) {
	v, err := c.input(a)
	if err != nil {
		return nil, err
	}
	r := resultWithScalar(c.dn, c.scale) // scale * x
	r2 := resultWithScalar(r, c.scale)   // around(...) / scale
	sc, sc2 := scalarIn(c.scale, r), scalarIn(c.scale, r2)
	src := v.Bytes()
	n := v.Len()
	ds, as := c.dt.Size, c.as.Size
	out := make([]byte, n*as)
	for i := 0; i < n; i++ {
		x := cast(load(c.dn, src[i*ds:]), c.dn, r)
		y := rint(r, arith(r, '*', sc, x))
		y = arith(r2, '/', cast(y, r, r2), sc2)
		store(c.an, out[i*as:], cast(y, r2, c.an))
	}
	return nd.FromBytes(c.as, v.Shape(), out)
}

func (c *quantizeCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	if err := c.checkEncoded(a); err != nil {
		return nil, err
	}
	return castDecode("quantize", a, c.as, c.an, c.dt, c.dn, out)
}
