//go:build !zarrcore

package codec

import (
	"math"
	"math/bits"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// The registry's value codecs: cast_value (a numeric cast with a rounding
// mode, a rule for values out of range and a scalar map, both ways) and
// scale_offset ((x - offset) * scale in the array's own arithmetic). Both
// take the integer and float types, the registry's narrow ones included.
// Full build only: few arrays use them.

func init() {
	Register(newCastValue, "cast_value")
	Register(newScaleOffset, "scale_offset")
}

// numType describes a numeric data type for casting: an integer of bits
// width (signed or not), or a float format.
type numType struct {
	t      *dtype.DataType
	float  *floatFmt
	signed bool
	bits   int
}

// floatFmt is a float format: nearest-even encoding of a finite
// magnitude not above max into its code, and back. Codes of one sign
// increase with the magnitude, so a code's neighbours are code±1.
type floatFmt struct {
	enc      func(float64) uint64
	dec      func(uint64) float64
	max      float64
	inf, nan bool
	sign     uint64 // the sign bit; 0 for an unsigned format (float8_e8m0fnu)
}

func numTypeOf(t *dtype.DataType) (numType, bool) {
	n := t.Numeric()
	if n == nil {
		return numType{}, false
	}
	switch n.Kind {
	case dtype.Int, dtype.Uint:
		b := n.IntBits
		if b == 0 {
			b = n.Size * 8
		}
		return numType{t: t, signed: n.Kind == dtype.Int, bits: b}, true
	case dtype.Float:
	default:
		return numType{}, false
	}
	f := &floatFmt{inf: true, nan: true}
	switch {
	case n.Float != nil:
		lp := *n.Float
		f.enc = func(x float64) uint64 { return uint64(lp.FromFloat64(x)) }
		f.dec = func(c uint64) float64 { return lp.ToFloat64(uint16(c)) }
		f.max = lp.MaxFinite()
		f.inf = lp.HasInf()
		_, f.nan = lp.NaNBits()
		if lp.ExponentBits()+lp.MantissaBits() < lp.Bits() {
			f.sign = 1 << (lp.Bits() - 1)
		}
	case n.Size == 2:
		f.enc = func(x float64) uint64 { return uint64(dtype.Float16Bits(x)) }
		f.dec = func(c uint64) float64 { return dtype.Float16Value(uint16(c)) }
		f.max, f.sign = 65504, 1<<15
	case n.Size == 4:
		f.enc = func(x float64) uint64 { return uint64(math.Float32bits(float32(x))) }
		f.dec = func(c uint64) float64 { return float64(math.Float32frombits(uint32(c))) }
		f.max, f.sign = math.MaxFloat32, 1<<31
	default:
		f.enc = math.Float64bits
		f.dec = math.Float64frombits
		f.max, f.sign = math.MaxFloat64, 1<<63
	}
	return numType{t: t, float: f}, true
}

// value is one value: an integer as sign and magnitude (exact over int64 and
// uint64), or a float.
type value struct {
	isInt bool
	neg   bool
	mag   uint64
	f     float64
}

func (t numType) load(b []byte) value {
	if t.float != nil {
		return value{f: t.t.LoadFloat64(b)}
	}
	if !t.signed {
		if t.bits < 8 {
			return value{isInt: true, mag: uint64(dtype.Int4Value(b[0], false, t.bits))}
		}
		return value{isInt: true, mag: t.t.LoadUint64(b)}
	}
	v := t.t.LoadInt64(b)
	if t.bits < 8 {
		v = dtype.Int4Value(b[0], true, t.bits)
	}
	if v < 0 {
		return value{isInt: true, neg: true, mag: uint64(-v)}
	}
	return value{isInt: true, mag: uint64(v)}
}

// storeInt writes the integer v (two's complement bits) into b.
func (t numType) storeInt(b []byte, v uint64) {
	if t.bits < 8 {
		b[0] = byte(v) & (1<<t.bits - 1)
		if t.signed && v&(1<<(t.bits-1)) != 0 {
			b[0] = byte(v) | ^byte(1<<t.bits-1) // sign-extended through the byte
		}
		return
	}
	t.t.StoreUint64(b, v)
}

// intRange is the integer type's range as sign and magnitude bounds.
func (t numType) intRange() (minMag uint64, max uint64) {
	if t.signed {
		return 1 << (t.bits - 1), 1<<(t.bits-1) - 1
	}
	if t.bits == 64 {
		return 0, math.MaxUint64
	}
	return 0, 1<<t.bits - 1
}

func (v value) equal(w value) bool {
	if v.isInt {
		return v.neg == w.neg && v.mag == w.mag
	}
	return v.f == w.f || (math.IsNaN(v.f) && math.IsNaN(w.f))
}

func (v value) String() string {
	if !v.isInt {
		return fmtx.Sprintf("%v", v.f)
	}
	if v.neg {
		return fmtx.Sprintf("-%d", v.mag)
	}
	return fmtx.Sprintf("%d", v.mag)
}

const (
	roundNearestEven = iota
	roundTowardsZero
	roundTowardsPositive
	roundTowardsNegative
	roundNearestAway
)

var roundingNames = []string{"nearest-even", "towards-zero", "towards-positive", "towards-negative", "nearest-away"}

// caster converts values of one numeric type into another.
type caster struct {
	from, to   numType
	rounding   int
	outOfRange string // "", "clamp" or "wrap"
	mapKeys    []value
	mapValues  [][]byte
}

// cast writes v, cast to c.to, into b.
func (c *caster) cast(b []byte, v value) error {
	for i, k := range c.mapKeys {
		if k.equal(v) {
			copy(b, c.mapValues[i])
			return nil
		}
	}
	if c.to.float == nil {
		return c.toInt(b, v)
	}
	return c.toFloat(b, v)
}

func (c *caster) toInt(b []byte, v value) error {
	minMag, max := c.to.intRange()
	if !v.isInt {
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return fmtx.Errorf("%v has no %s value (scalar_map can give one)", v.f, c.to.t.CommonName())
		}
		r := roundMode(v.f, c.rounding)
		if r != 0 && math.Abs(r) < 1<<64 {
			v = value{isInt: true, neg: r < 0, mag: uint64(math.Abs(r))}
		} else if r == 0 {
			v = value{isInt: true}
		} else { // beyond 64 bits: every such float is a multiple of 2^64
			switch c.outOfRange {
			case "wrap":
				c.to.storeInt(b, 0)
				return nil
			case "clamp":
				v = value{isInt: true, neg: r < 0, mag: math.MaxUint64}
			default:
				return fmtx.Errorf("%v is out of the range of %s (out_of_range is not set)", r, c.to.t.CommonName())
			}
		}
	}
	inRange := (v.neg && v.mag <= minMag) || (!v.neg && v.mag <= max) || v.mag == 0
	if !inRange {
		switch c.outOfRange {
		case "clamp":
			if v.neg {
				v.mag = minMag
			} else {
				v.mag = max
			}
		case "wrap":
			// the value's two's complement bits, cut to the width
		default:
			return fmtx.Errorf("%s is out of the range of %s (out_of_range is not set)", v, c.to.t.CommonName())
		}
	}
	bitsOf := v.mag
	if v.neg {
		bitsOf = -v.mag
	}
	c.to.storeInt(b, bitsOf)
	return nil
}

func roundMode(f float64, mode int) float64 {
	switch mode {
	case roundTowardsZero:
		return math.Trunc(f)
	case roundTowardsPositive:
		return math.Ceil(f)
	case roundTowardsNegative:
		return math.Floor(f)
	case roundNearestAway:
		return math.Round(f)
	}
	return math.RoundToEven(f)
}

func (c *caster) toFloat(b []byte, v value) error {
	f := c.to.float
	neg := v.neg
	var x float64
	if v.isInt {
		if f.max == math.MaxFloat64 && v.mag > 1<<53 {
			c.to.t.StoreUint64(b, math.Float64bits(intToFloat64(neg, v.mag, c.rounding)))
			return nil
		}
		x = roundToOdd(v.mag)
	} else {
		x = math.Abs(v.f)
		neg = math.Signbit(v.f)
		if math.IsNaN(v.f) {
			if !f.nan {
				return fmtx.Errorf("NaN has no %s value (scalar_map can give one)", c.to.t.CommonName())
			}
			c.to.t.StoreUint64(b, encodeSpecial(f, v.f))
			return nil
		}
		if math.IsInf(v.f, 0) {
			if !f.inf {
				return fmtx.Errorf("%v has no %s value (scalar_map can give one)", v.f, c.to.t.CommonName())
			}
			c.to.t.StoreUint64(b, encodeSpecial(f, v.f))
			return nil
		}
	}
	if neg && f.sign == 0 && x != 0 {
		return fmtx.Errorf("%s has no negative values (got %s)", c.to.t.CommonName(), v)
	}
	code, over := roundTo(f, x, neg, c.rounding)
	if over {
		if c.outOfRange != "clamp" {
			return fmtx.Errorf("%s is out of the range of %s (out_of_range is not set)", v, c.to.t.CommonName())
		}
		if f.inf {
			code = f.enc(math.Inf(1))
		} else {
			code = f.enc(f.max)
		}
	}
	if neg {
		code |= f.sign
	}
	c.to.t.StoreUint64(b, code)
	return nil
}

// encodeSpecial is the code of NaN or an infinity (the format has it).
func encodeSpecial(f *floatFmt, x float64) uint64 {
	code := f.enc(math.Abs(x))
	if math.Signbit(x) && !math.IsNaN(x) {
		code |= f.sign
	}
	return code
}

// roundTo rounds the magnitude x (finite, >= 0) to a code of f by mode;
// over reports a result beyond f's largest finite value.
func roundTo(f *floatFmt, x float64, neg bool, mode int) (code uint64, over bool) {
	maxCode := f.enc(f.max)
	var lo, hi uint64
	var loV, hiV float64
	if x > f.max {
		lo, loV = maxCode, f.max
		hi, hiV = maxCode+1, f.max+(f.max-f.dec(maxCode-1))
	} else {
		r := f.enc(x)
		d := f.dec(r)
		if d == x {
			return r, false
		}
		if d < x {
			lo, loV, hi = r, d, r+1
			hiV = f.dec(hi)
			if r == maxCode {
				hiV = f.max + (f.max - f.dec(maxCode-1))
			}
		} else {
			lo, hi, hiV = r-1, r, d
			loV = f.dec(lo)
		}
	}
	up := false // the larger magnitude
	switch mode {
	case roundTowardsZero:
	case roundTowardsPositive:
		up = !neg
	case roundTowardsNegative:
		up = neg
	default:
		dl, dh := x-loV, hiV-x
		switch {
		case dl < dh:
		case dl > dh:
			up = true
		case mode == roundNearestAway:
			up = true
		default:
			up = hi&1 == 0
		}
	}
	if up {
		return hi, hi > maxCode
	}
	return lo, false
}

// roundToOdd converts an integer magnitude to float64 rounding to odd, so
// that rounding the result again to a format of at most 51 significant bits
// gives what rounding the integer itself would.
func roundToOdd(mag uint64) float64 {
	s := bits.Len64(mag) - 53
	if s <= 0 {
		return float64(mag)
	}
	m := mag >> s
	if mag&(1<<s-1) != 0 {
		m |= 1
	}
	return math.Ldexp(float64(m), s)
}

// intToFloat64 rounds an integer magnitude above 2^53 to float64 by mode.
func intToFloat64(neg bool, mag uint64, mode int) float64 {
	s := bits.Len64(mag) - 53
	lo := mag >> s << s
	rem, half := mag-lo, uint64(1)<<(s-1)
	loF := float64(lo)
	hiF := loF + math.Ldexp(1, s)
	up := false
	switch mode {
	case roundTowardsZero:
	case roundTowardsPositive:
		up = !neg && rem > 0
	case roundTowardsNegative:
		up = neg && rem > 0
	case roundNearestAway:
		up = rem >= half
	default:
		up = rem > half || (rem == half && (lo>>s)&1 == 1)
	}
	r := loF
	if up {
		r = hiF
	}
	if neg {
		r = -r
	}
	return r
}

// castValueCodec is the registry's cast_value.
type castValueCodec struct {
	cfg      castValueConfig
	to       *dtype.DataType
	rounding int
	enc, dec *caster
	outFill  dtype.Fill
}

type castValueConfig struct {
	DataType   jsonx.RawMessage `json:"data_type"`
	Rounding   string           `json:"rounding"`
	OutOfRange string           `json:"out_of_range"`
	ScalarMap  jsonx.RawMessage `json:"scalar_map"`
}

func (c *castValueConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("data_type", &c.DataType), jsonx.F("rounding", &c.Rounding),
		jsonx.F("out_of_range", &c.OutOfRange), jsonx.F("scalar_map", &c.ScalarMap)}
}

type scalarMapConfig struct {
	Encode [][]jsonx.RawMessage `json:"encode"`
	Decode [][]jsonx.RawMessage `json:"decode"`
}

func (c *scalarMapConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("encode", &c.Encode), jsonx.F("decode", &c.Decode)}
}

func newCastValue(cfg jsonx.RawMessage, in Spec) (any, error) {
	k := &castValueCodec{}
	if err := StrictConfig(cfg, &k.cfg); err != nil {
		return nil, err
	}
	if k.cfg.DataType == nil {
		return nil, fmtx.Errorf("configuration needs \"data_type\"")
	}
	to, err := dtype.ParseV3(k.cfg.DataType)
	if err != nil {
		return nil, fmtx.Errorf("data_type: %v", err)
	}
	if _, ok := numTypeOf(to); !ok {
		return nil, fmtx.Errorf("data_type %s: cast_value casts to integer and float types", to.CommonName())
	}
	k.to = to
	k.rounding = -1
	if k.cfg.Rounding == "" {
		k.rounding = roundNearestEven
	}
	for i, n := range roundingNames {
		if n == k.cfg.Rounding {
			k.rounding = i
		}
	}
	if k.rounding < 0 {
		return nil, errs.New(errs.InvalidMetadata, "configuration.rounding", "%q is not one of %v", k.cfg.Rounding, roundingNames).WithSuggestion(k.cfg.Rounding, roundingNames)
	}
	switch k.cfg.OutOfRange {
	case "", "clamp":
	case "wrap":
		if to.Kind != dtype.Int && to.Kind != dtype.Uint {
			return nil, fmtx.Errorf("out_of_range \"wrap\" needs an integer data_type, not %s", to.CommonName())
		}
	default:
		return nil, errs.New(errs.InvalidMetadata, "configuration.out_of_range", "%q is not \"clamp\" or \"wrap\"", k.cfg.OutOfRange).WithSuggestion(k.cfg.OutOfRange, []string{"clamp", "wrap"})
	}
	if k.cfg.ScalarMap != nil {
		var sm scalarMapConfig
		if err := StrictConfig(k.cfg.ScalarMap, &sm); err != nil {
			return nil, fmtx.Errorf("scalar_map: %v", err)
		}
	}
	if in.DType != nil {
		if _, err := k.Encoded(in); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// newCaster builds the cast from one type to another with the scalar map's
// entries (JSON pairs: a fill value of from, then one of to).
func newCaster(from, to numType, rounding int, outOfRange string, entries [][]jsonx.RawMessage, which string) (*caster, error) {
	c := &caster{from: from, to: to, rounding: rounding, outOfRange: outOfRange}
	if to.float != nil && outOfRange == "wrap" {
		c.outOfRange = "" // wrap is an integer rule; a float keeps the rule unset
	}
	for i, e := range entries {
		if len(e) != 2 {
			return nil, fmtx.Errorf("scalar_map.%s[%d] must be a pair [input, output]", which, i)
		}
		if string(e[0]) == `"+Infinity"` { // the registry's README writes it so
			e[0] = jsonx.RawMessage(`"Infinity"`)
		}
		kf, err := from.t.ParseFillV3(e[0])
		if err != nil {
			return nil, fmtx.Errorf("scalar_map.%s[%d][0]: %v", which, i, err)
		}
		vf, err := to.t.ParseFillV3(e[1])
		if err != nil {
			return nil, fmtx.Errorf("scalar_map.%s[%d][1]: %v", which, i, err)
		}
		c.mapKeys = append(c.mapKeys, from.load(kf.Bytes))
		c.mapValues = append(c.mapValues, vf.Bytes)
	}
	return c, nil
}

func (k *castValueCodec) Encoded(in Spec) (Spec, error) {
	from, ok := numTypeOf(in.DType)
	if !ok {
		return Spec{}, fmtx.Errorf("cast_value casts integer and float arrays, not %s", in.DType.CommonName())
	}
	to, _ := numTypeOf(k.to)
	var sm scalarMapConfig
	if k.cfg.ScalarMap != nil {
		if err := StrictConfig(k.cfg.ScalarMap, &sm); err != nil {
			return Spec{}, fmtx.Errorf("scalar_map: %v", err)
		}
	}
	enc, err := newCaster(from, to, k.rounding, k.cfg.OutOfRange, sm.Encode, "encode")
	if err != nil {
		return Spec{}, err
	}
	dec, err := newCaster(to, from, k.rounding, k.cfg.OutOfRange, sm.Decode, "decode")
	if err != nil {
		return Spec{}, err
	}
	k.enc, k.dec = enc, dec
	out := Spec{Shape: in.Shape, DType: k.to, Fill: k.to.ZeroFill()}
	out.Fill.Null = false
	if len(in.Fill.Bytes) == in.DType.Size {
		fb := make([]byte, k.to.Size)
		if err := enc.cast(fb, from.load(in.Fill.Bytes)); err != nil {
			return Spec{}, fmtx.Errorf("the fill value cannot be cast to %s: %v", k.to.CommonName(), err)
		}
		back := make([]byte, in.DType.Size)
		if err := dec.cast(back, to.load(fb)); err != nil || !from.load(back).equal(from.load(in.Fill.Bytes)) {
			return Spec{}, fmtx.Errorf("the fill value %s does not survive the cast to %s and back", from.load(in.Fill.Bytes), k.to.CommonName())
		}
		out.Fill.Bytes = fb
	}
	return out, nil
}

func (k *castValueCodec) Encode(a *nd.Array) (*nd.Array, error) {
	if k.enc == nil || !a.DType().Equal(k.enc.from.t) {
		if _, err := k.Encoded(Spec{Shape: a.Shape(), DType: a.DType()}); err != nil {
			return nil, err
		}
	}
	return castArray(k.enc, a, k.to, a.Shape())
}

func (k *castValueCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	if k.dec == nil || !out.DType.Equal(k.dec.to.t) {
		if _, err := k.Encoded(Spec{Shape: out.Shape, DType: out.DType}); err != nil {
			return nil, err
		}
	}
	if a.DType().Size != k.to.Size || a.Len() != nd.Size(out.Shape) {
		return nil, Corrupt("cast_value", "%d elements of %s decoded for a chunk of shape %v", a.Len(), a.DType(), out.Shape)
	}
	return castArray(k.dec, a, out.DType, out.Shape)
}

func castArray(c *caster, a *nd.Array, to *dtype.DataType, shape []int) (*nd.Array, error) {
	src, fs, ts := a.Bytes(), c.from.t.Size, to.Size
	n := len(src) / fs
	out := make([]byte, n*ts)
	for i := 0; i < n; i++ {
		if err := c.cast(out[i*ts:(i+1)*ts], c.from.load(src[i*fs:])); err != nil {
			return nil, fmtx.Errorf("cast_value: element %d: %v", i, err)
		}
	}
	return nd.FromBytes(to, shape, out)
}

// scaleOffsetCodec is the registry's scale_offset: encoding gives
// (x - offset) * scale, decoding x / scale + offset, each step in the
// array's type (integer division truncates); a result the type cannot
// hold is an error.
type scaleOffsetCodec struct {
	cfg           scaleOffsetConfig
	scale, offset value
	t             numType
}

type scaleOffsetConfig struct {
	Offset jsonx.RawMessage `json:"offset"`
	Scale  jsonx.RawMessage `json:"scale"`
}

func (c *scaleOffsetConfig) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("offset", &c.Offset), jsonx.F("scale", &c.Scale)}
}

func newScaleOffset(cfg jsonx.RawMessage, in Spec) (any, error) {
	k := &scaleOffsetCodec{}
	if err := StrictConfig(cfg, &k.cfg); err != nil {
		return nil, err
	}
	if in.DType != nil {
		if err := k.bind(in.DType); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// bind parses offset and scale as values of the array's type t.
func (k *scaleOffsetCodec) bind(t *dtype.DataType) error {
	nt, ok := numTypeOf(t)
	if !ok {
		return fmtx.Errorf("scale_offset takes integer and float arrays, not %s", t.CommonName())
	}
	k.t = nt
	k.offset = value{isInt: nt.float == nil}
	k.scale = value{isInt: nt.float == nil, mag: 1, f: 1}
	for _, p := range []struct {
		name string
		raw  jsonx.RawMessage
		v    *value
	}{{"offset", k.cfg.Offset, &k.offset}, {"scale", k.cfg.Scale, &k.scale}} {
		if p.raw == nil {
			continue
		}
		f, err := t.ParseFillV3(p.raw)
		if err != nil {
			return fmtx.Errorf("%s %s is not a %s value: %v", p.name, short(p.raw), t.CommonName(), err)
		}
		*p.v = nt.load(f.Bytes)
	}
	if k.scale.isInt && k.scale.mag == 0 {
		return fmtx.Errorf("scale is 0: decoding divides by it")
	}
	return nil
}

func (k *scaleOffsetCodec) Encoded(in Spec) (Spec, error) {
	if k.t.t == nil || !k.t.t.Equal(in.DType) {
		if err := k.bind(in.DType); err != nil {
			return Spec{}, err
		}
	}
	out := in
	if len(in.Fill.Bytes) == in.DType.Size {
		fb := make([]byte, in.DType.Size)
		if err := k.apply(fb, k.t.load(in.Fill.Bytes), true); err != nil {
			return Spec{}, fmtx.Errorf("the fill value: %v", err)
		}
		out.Fill = dtype.Fill{Bytes: fb}
	}
	return out, nil
}

func (k *scaleOffsetCodec) Encode(a *nd.Array) (*nd.Array, error) {
	return k.run(a, a.Shape(), true)
}

func (k *scaleOffsetCodec) Decode(a *nd.Array, out Spec) (*nd.Array, error) {
	if a.Len() != nd.Size(out.Shape) || !a.DType().Equal(out.DType) {
		return nil, Corrupt("scale_offset", "%d elements of %s decoded for a chunk of shape %v", a.Len(), a.DType(), out.Shape)
	}
	return k.run(a, out.Shape, false)
}

func (k *scaleOffsetCodec) run(a *nd.Array, shape []int, encode bool) (*nd.Array, error) {
	if k.t.t == nil || !k.t.t.Equal(a.DType()) {
		if err := k.bind(a.DType()); err != nil {
			return nil, err
		}
	}
	src, size := a.Bytes(), a.DType().Size
	out := make([]byte, len(src))
	for i := 0; i+size <= len(src); i += size {
		if err := k.apply(out[i:i+size], k.t.load(src[i:]), encode); err != nil {
			return nil, fmtx.Errorf("scale_offset: element %d: %v", i/size, err)
		}
	}
	return nd.FromBytes(a.DType(), shape, out)
}

// apply writes one encoded (or decoded) value into b.
func (k *scaleOffsetCodec) apply(b []byte, v value, encode bool) error {
	t := k.t
	if f := t.float; f != nil {
		round := func(x float64) (float64, error) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return x, nil
			}
			if math.Abs(x) > f.max {
				return 0, fmtx.Errorf("%v is beyond the largest %s", x, t.t.CommonName())
			}
			code := f.enc(math.Abs(x))
			r := f.dec(code)
			if x < 0 {
				r = -r
			}
			return r, nil
		}
		var x float64
		var err error
		if encode {
			if x, err = round(v.f - k.offset.f); err == nil {
				x, err = round(x * k.scale.f)
			}
		} else {
			if x, err = round(v.f / k.scale.f); err == nil {
				x, err = round(x + k.offset.f)
			}
		}
		if err != nil {
			return err
		}
		if !math.IsInf(v.f, 0) && math.IsInf(x, 0) {
			return fmtx.Errorf("%v overflows %s", v.f, t.t.CommonName())
		}
		var code uint64
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			if (math.IsNaN(x) && !f.nan) || (math.IsInf(x, 0) && !f.inf) {
				return fmtx.Errorf("%v has no %s value", x, t.t.CommonName())
			}
			code = encodeSpecial(f, x)
		default:
			code = f.enc(math.Abs(x))
			if math.Signbit(x) {
				code |= f.sign
			}
		}
		t.t.StoreUint64(b, code)
		return nil
	}
	var r value
	var ok bool
	if encode {
		if r, ok = addInt(v, negate(k.offset)); ok {
			r, ok = mulInt(r, k.scale)
		}
	} else {
		r = divInt(v, k.scale)
		r, ok = addInt(r, k.offset)
	}
	minMag, max := t.intRange()
	if !ok || (r.neg && r.mag > minMag) || (!r.neg && r.mag > max) {
		return fmtx.Errorf("%s does not fit %s", v, t.t.CommonName())
	}
	bitsOf := r.mag
	if r.neg {
		bitsOf = -r.mag
	}
	t.storeInt(b, bitsOf)
	return nil
}

func negate(v value) value {
	if v.mag == 0 {
		return v
	}
	v.neg = !v.neg
	return v
}

// addInt adds two sign-magnitude integers; false when the magnitude passes
// 64 bits.
func addInt(a, b value) (value, bool) {
	if a.neg == b.neg {
		s, carry := bits.Add64(a.mag, b.mag, 0)
		return value{isInt: true, neg: a.neg && s != 0, mag: s}, carry == 0
	}
	if a.mag >= b.mag {
		d := a.mag - b.mag
		return value{isInt: true, neg: a.neg && d != 0, mag: d}, true
	}
	return value{isInt: true, neg: b.neg, mag: b.mag - a.mag}, true
}

func mulInt(a, b value) (value, bool) {
	hi, lo := bits.Mul64(a.mag, b.mag)
	return value{isInt: true, neg: a.neg != b.neg && lo != 0, mag: lo}, hi == 0
}

// divInt divides, truncating toward zero.
func divInt(a, b value) value {
	q := a.mag / b.mag
	return value{isInt: true, neg: a.neg != b.neg && q != 0, mag: q}
}
