package dtype

import (
	"math"
	"sort"
)

// Low-precision floats and sub-byte integers of the Zarr v3 extension data
// types registry (zarr-developers/zarr-extensions, data-types/*/README.md),
// as implemented by ml_dtypes (jax-ml/ml_dtypes) and TensorStore.

// LowPrec is one low-precision float format: a sign bit, E exponent bits, M
// mantissa bits and a bias. Biased exponent 0 is subnormal (0.m × 2^(1-bias)),
// any other biased exponent e is normal (1.m × 2^(e-bias)), except for the
// special encodings of the format's family:
//
//	ieee  bfloat16, float8_e3m4, float8_e4m3, float8_e5m2: biased exponent
//	      all ones is ±Inf (mantissa 0) or NaN (mantissa ≠ 0), as IEEE 754.
//	fn    float8_e4m3fn: no Inf; S.1111.111 (0x7f, 0xff) is NaN, every other
//	      pattern with exponent 1111 is a finite number (max 448).
//	fnuz  float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3b11fnuz: no Inf, no
//	      negative zero; 0x80 is the only NaN.
//	mx    float4_e2m1fn, float6_e2m3fn, float6_e3m2fn (OCP MX): no Inf, no
//	      NaN; every pattern is a finite number. Stored one per byte in the
//	      low bits; the upper bits are ignored on reading, zero on writing.
//	e8m0  float8_e8m0fnu (OCP MX's scale format E8M0): no sign, no mantissa,
//	      no zero, no Inf; code c is 2^(c-127), 0xff is NaN.
//
// FromFloat64 rounds |f| once, to nearest with ties to even, as if the
// exponent range were unbounded; a result beyond the largest finite value is
// an overflow. Overflow, Inf and NaN inputs follow ml_dtypes' default
// (non-saturating) conversion, ConvertImpl in ml_dtypes/include/float8.h:
// the result is the format's infinity(), which is
//
//	ieee  ±Inf                      (NaN input: quiet NaN with its sign)
//	fn    NaN with the input's sign (0x7f / 0xff), for overflow, ±Inf, NaN
//	fnuz  NaN 0x80                  for overflow, ±Inf, NaN; -0 becomes +0
//	mx    ±max finite (saturates)   for overflow and ±Inf; NaN input gives a
//	      zero of the opposite sign (ml_dtypes' quiet_NaN() for these formats
//	      is the -0 pattern, negated for a negative NaN; the MX spec leaves
//	      NaN conversion implementation-defined).
//
// So e4m3fn turns |f| > 464 into NaN, not 448, and e4m3fnuz |f| ≥ 248 into
// NaN. e8m0 rounds to the nearest power of two, a tie (1.5 × 2^k) up, as
// ml_dtypes' ConvertImpl does (its only kept significand bit is the implicit
// 1, so the tie carries); zero, negative numbers, ±Inf, NaN and values that
// round past 2^127 become NaN, values up to 2^-127 become 2^-127, and values
// in (2^-127, 2^-126) become 2^-126, as ml_dtypes rounds them (although
// 2^-127 is nearer below 1.5 × 2^-127; the registry's README says nothing
// about rounding, so ml_dtypes, which zarr-python uses, decides). TensorStore's float8 and MX types (tensorstore/util/
// float8.h, mxfloat.h) are derived from ml_dtypes and follow the same rules.
//
// bfloat16 NaN is 0x7fc0 / 0xffc0, as Eigen's float_to_bfloat16_rtne (which
// ml_dtypes' bfloat16 is) and the registry's "NaN" fill; TensorStore's own
// BFloat16 keeps the top float32 payload bits and sets bit 5 instead (0x7fe0
// for a default quiet NaN). Either is a NaN to every reader.
//
// Double rounding: FromFloat64 converts as ml_dtypes' scalar types do when
// called on a Python float (zarr-python's fill values): the float8, float6
// and float4 formats round once from float64, bfloat16 rounds to float32
// first (Eigen's bfloat16(double), and TensorStore's BFloat16(double), go
// through float32). ml_dtypes' NumPy array casts from float64 (what
// zarr-python does to a float64 array) go through float32 for every format
// (NPyCast: static_cast<float> first), and may differ in the last bit for
// float64 inputs that are not float32 values; FromFloat64(float64(
// float32(f))) reproduces those. tests/testdata/ml_dtypes holds ml_dtypes'
// results for all three paths, which the tests compare with.
//
// The zero LowPrec is not usable; get formats from LowPrecFloat.
type LowPrec struct {
	name           string
	bits, exp, man int
	bias           int
	family         lpFamily
	// viaFloat32: FromFloat64 rounds to float32 first (bfloat16, as Eigen).
	viaFloat32 bool
}

type lpFamily uint8

const (
	lpIEEE lpFamily = iota
	lpFN
	lpFNUZ
	lpMX
	lpE8M0
)

var lowPrecFloats = map[string]LowPrec{
	// zarr-extensions data-types/bfloat16: 8 exponent bits, bias 127, 7
	// mantissa bits, IEEE 754 with NaN and ±Inf.
	"bfloat16": {"bfloat16", 16, 8, 7, 127, lpIEEE, true},
	// data-types/float8_e3m4: bias 3, IEEE with NaN and ±Inf.
	"float8_e3m4": {"float8_e3m4", 8, 3, 4, 3, lpIEEE, false},
	// data-types/float8_e4m3: bias 7, IEEE with NaN and ±Inf.
	"float8_e4m3": {"float8_e4m3", 8, 4, 3, 7, lpIEEE, false},
	// Not in the zarr-extensions registry (which has float8_e4m3); ml_dtypes
	// README: bias 7, no Inf, NaN is 0bS111'1111.
	"float8_e4m3fn": {"float8_e4m3fn", 8, 4, 3, 7, lpFN, false},
	// data-types/float8_e4m3fnuz: bias 8, no Inf, NaN 0b1000'0000.
	"float8_e4m3fnuz": {"float8_e4m3fnuz", 8, 4, 3, 8, lpFNUZ, false},
	// data-types/float8_e4m3b11fnuz: bias 11, no Inf, NaN 0b1000'0000.
	"float8_e4m3b11fnuz": {"float8_e4m3b11fnuz", 8, 4, 3, 11, lpFNUZ, false},
	// data-types/float8_e5m2: bias 15, IEEE with NaN and ±Inf.
	"float8_e5m2": {"float8_e5m2", 8, 5, 2, 15, lpIEEE, false},
	// data-types/float8_e5m2fnuz: bias 16, no Inf, NaN 0b1000'0000.
	"float8_e5m2fnuz": {"float8_e5m2fnuz", 8, 5, 2, 16, lpFNUZ, false},
	// data-types/float4_e2m1fn: bias 1, no Inf, no NaN; byte 0bXXXXSEEM.
	"float4_e2m1fn": {"float4_e2m1fn", 4, 2, 1, 1, lpMX, false},
	// data-types/float6_e2m3fn: bias 1, no Inf, no NaN; byte 0bXXSEEMMM.
	"float6_e2m3fn": {"float6_e2m3fn", 6, 2, 3, 1, lpMX, false},
	// data-types/float6_e3m2fn: bias 3, no Inf, no NaN; byte 0bXXSEEEMM.
	"float6_e3m2fn": {"float6_e3m2fn", 6, 3, 2, 3, lpMX, false},
	// data-types/float8_e8m0fnu: 8 exponent bits, bias 127, no sign, no
	// mantissa, no zero, no Inf, NaN 0xff (OCP MX 5.4.1's E8M0).
	"float8_e8m0fnu": {"float8_e8m0fnu", 8, 8, 0, 127, lpE8M0, false},
}

// LowPrecFloat returns the low-precision float format with the given Zarr v3
// data type name.
func LowPrecFloat(format string) (LowPrec, bool) {
	p, ok := lowPrecFloats[format]
	return p, ok
}

// LowPrecFloatFormats lists the names LowPrecFloat knows, sorted. Not among
// them: the complex_* pairs of the extensions registry built on these
// formats.
func LowPrecFloatFormats() []string {
	names := make([]string, 0, len(lowPrecFloats))
	for n := range lowPrecFloats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Name is the Zarr v3 data type name.
func (p LowPrec) Name() string { return p.name }

// Bits is the width of an encoding: 16, 8, 6 or 4. Formats narrower than 8
// bits are stored one per byte, in the low bits.
func (p LowPrec) Bits() int { return p.bits }

// StorageSize is the size of one stored element in bytes (1 or 2).
func (p LowPrec) StorageSize() int { return (p.bits + 7) / 8 }

// ExponentBits, MantissaBits and Bias describe the layout.
func (p LowPrec) ExponentBits() int { return p.exp }
func (p LowPrec) MantissaBits() int { return p.man }
func (p LowPrec) Bias() int         { return p.bias }

// HasInf reports whether the format has infinities (the IEEE-like formats).
func (p LowPrec) HasInf() bool { return p.family == lpIEEE }

// NaNBits returns the canonical NaN encoding — the one the registry's
// READMEs give for the fill value "NaN" (bfloat16 0x7fc0, e3m4 0x78, e4m3
// 0x7c, e5m2 0x7e, *fnuz 0x80, e8m0 0xff) and ml_dtypes' quiet_NaN()
// (e4m3fn 0x7f) — or false for the MX formats, which have no NaN.
func (p LowPrec) NaNBits() (uint16, bool) {
	switch p.family {
	case lpE8M0:
		return 0xff, true
	case lpIEEE:
		return p.expMask() | 1<<(p.man-1), true
	case lpFN:
		return p.signBit() - 1, true
	case lpFNUZ:
		return p.signBit(), true
	}
	return 0, false
}

// InfBits returns the encoding of +Inf, or false if there is none.
func (p LowPrec) InfBits() (uint16, bool) {
	if p.family == lpIEEE {
		return p.expMask(), true
	}
	return 0, false
}

// MaxFinite returns the largest finite value.
func (p LowPrec) MaxFinite() float64 { return p.ToFloat64(p.maxCode()) }

// signBit is the sign bit's mask; e8m0 has none.
func (p LowPrec) signBit() uint16 {
	if p.family == lpE8M0 {
		return 0
	}
	return 1 << (p.bits - 1)
}
func (p LowPrec) expMask() uint16 { return (1<<p.exp - 1) << p.man }

// maxCode is the encoding (sign bit clear) of the largest finite value.
func (p LowPrec) maxCode() uint16 {
	switch p.family {
	case lpIEEE:
		return p.expMask() - 1
	case lpFN:
		return p.signBit() - 2
	case lpE8M0:
		return 0xfe
	}
	return p.signBit() - 1
}

// ToFloat64 decodes bits (only the low Bits() bits are looked at) exactly.
// NaN encodings decode to a NaN carrying the encoding's sign bit.
func (p LowPrec) ToFloat64(bits uint16) float64 {
	bits &= 1<<p.bits - 1
	if p.family == lpE8M0 {
		if bits == 0xff {
			return math.NaN()
		}
		return math.Ldexp(1, int(bits)-p.bias)
	}
	neg := bits&p.signBit() != 0
	mag := bits &^ p.signBit()
	switch p.family {
	case lpIEEE:
		if mag&p.expMask() == p.expMask() {
			if mag == p.expMask() {
				return math.Inf(signInt(neg))
			}
			return signedNaN(neg)
		}
	case lpFN:
		if mag == p.signBit()-1 {
			return signedNaN(neg)
		}
	case lpFNUZ:
		if bits == p.signBit() {
			return signedNaN(true)
		}
	}
	e := int(mag >> p.man)
	m := int(mag & (1<<p.man - 1))
	var v float64
	if e == 0 {
		v = math.Ldexp(float64(m), 1-p.bias-p.man)
	} else {
		v = math.Ldexp(float64(m|1<<p.man), e-p.bias-p.man)
	}
	if neg {
		return -v
	}
	return v
}

// FromFloat64 encodes f, rounding to nearest, ties to even; see the LowPrec
// comment for overflow, Inf and NaN.
func (p LowPrec) FromFloat64(f float64) uint16 {
	if p.family == lpE8M0 {
		return p.e8m0FromFloat64(f)
	}
	d := math.Float64bits(f)
	neg := d>>63 != 0
	var sign uint16
	if neg {
		sign = p.signBit()
	}
	switch {
	case math.IsNaN(f):
		switch p.family {
		case lpIEEE:
			n, _ := p.NaNBits()
			return sign | n
		case lpFN:
			return sign | (p.signBit() - 1)
		case lpFNUZ:
			return p.signBit()
		default: // MX: quiet_NaN() is the -0 pattern, negated if f < 0
			return p.signBit() ^ sign
		}
	case math.IsInf(f, 0):
		return p.overflow(sign)
	}
	if p.viaFloat32 && math.Abs(f) <= math.MaxFloat32 {
		// (larger values overflow bfloat16 either way)
		d = math.Float64bits(float64(float32(f)))
	}
	exp := int(d>>52) & 0x7ff
	if exp == 0 {
		// zero or a float64 subnormal (< 2^-1022): far below half the
		// smallest subnormal of every format here (bfloat16's is 2^-133).
		return p.zero(sign)
	}
	full := d&(1<<52-1) | 1<<52 // 1.m × 2^52
	// Target biased exponent; below 1 the value lands among the subnormals,
	// whose spacing is that of biased exponent 1.
	e := exp - 1023 + p.bias
	shift := 52 - p.man
	if e < 1 {
		shift += 1 - e
	}
	var q uint64
	if shift < 54 { // from 54 on, full >> shift rounds to 0 (< 1/2)
		q = full >> shift
		rem := full & (1<<shift - 1)
		half := uint64(1) << (shift - 1)
		if rem > half || (rem == half && q&1 == 1) {
			q++
		}
	}
	// For normals q is 1.m (with carry possibly 2.0) × 2^man, so adding
	// (e-1) << man yields the encoding, a carry stepping into the next binade.
	code := q
	if e > 1 {
		code += uint64(e-1) << p.man
	}
	if code > uint64(p.maxCode()) {
		return p.overflow(sign)
	}
	if code == 0 {
		return p.zero(sign)
	}
	return sign | uint16(code)
}

// e8m0FromFloat64 is FromFloat64 for float8_e8m0fnu (see LowPrec).
func (p LowPrec) e8m0FromFloat64(f float64) uint16 {
	if !(f > 0) || math.IsInf(f, 1) {
		return 0xff
	}
	frac, exp := math.Frexp(f) // f = frac × 2^exp, frac in [0.5, 1)
	e := exp - 1
	if frac >= 0.75 { // at or past the midpoint 1.5 × 2^(exp-1): up
		e = exp
	}
	switch {
	case e < -p.bias:
		return 0
	case e > p.bias:
		return 0xff
	case e == -p.bias && f > math.Ldexp(1, -p.bias):
		return 1 // ml_dtypes: (2^-127, 2^-126) rounds up to 2^-126
	}
	return uint16(e + p.bias)
}

func (p LowPrec) zero(sign uint16) uint16 {
	if p.family == lpFNUZ {
		return 0 // no negative zero
	}
	return sign
}

// overflow is ml_dtypes' infinity() of the format, with the sign applied.
func (p LowPrec) overflow(sign uint16) uint16 {
	switch p.family {
	case lpIEEE:
		return sign | p.expMask()
	case lpFN:
		return sign | (p.signBit() - 1)
	case lpFNUZ:
		return p.signBit()
	}
	return sign | p.maxCode()
}

func signInt(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

func signedNaN(neg bool) float64 {
	if neg {
		return math.Copysign(math.NaN(), -1)
	}
	return math.NaN()
}

// Sub-byte integers: int2, int4, uint2, uint4 (zarr-extensions
// data-types/{int,uint}{2,4}/README.md), stored one per byte in the low bits
// (0bIIIIXXXX, 0bIIIIIIXX); the upper bits are ignored on reading.

// LowPrecInt returns the signedness and width of a sub-byte integer type
// name ("int2", "int4", "uint2", "uint4").
func LowPrecInt(name string) (signed bool, bits int, ok bool) {
	n := LookupNumeric(name)
	if n == nil || n.IntBits == 0 {
		return false, 0, false
	}
	return n.Kind == Int, n.IntBits, true
}

// LowPrecIntFormats lists the names LowPrecInt knows.
func LowPrecIntFormats() []string {
	var names []string
	for _, n := range numerics {
		if n.IntBits != 0 {
			names = append(names, n.Name)
		}
	}
	return names
}

// Int4Value decodes a sub-byte integer of the given width (1..8 bits; 2 and
// 4 are the registry's) from the low bits of b, ignoring the upper bits, and
// sign-extending if signed.
func Int4Value(b byte, signed bool, bits int) int64 {
	if bits < 1 || bits > 8 {
		return 0
	}
	s := uint(8 - bits)
	if signed {
		return int64(int8(b<<s) >> s)
	}
	return int64(b << s >> s)
}

// Int4Bits encodes v as a sub-byte integer of the given width, or reports
// false if v is out of range ([-2^(bits-1), 2^(bits-1)-1] signed, [0,
// 2^bits-1] unsigned). Signed values are written sign-extended through the
// whole byte, as TensorStore's Int4Padded stores them (ml_dtypes keeps the
// upper bits zero instead; readers ignore them either way); unsigned values
// have the upper bits zero.
func Int4Bits(v int64, signed bool, bits int) (byte, bool) {
	if bits < 1 || bits > 8 {
		return 0, false
	}
	if signed {
		lo, hi := -int64(1)<<(bits-1), int64(1)<<(bits-1)-1
		if v < lo || v > hi {
			return 0, false
		}
		return byte(int8(v)), true
	}
	if v < 0 || v > int64(1)<<bits-1 {
		return 0, false
	}
	return byte(v), true
}
