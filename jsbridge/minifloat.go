package jsbridge

// Conversions between the float formats JavaScript has no TypedArray for
// (float16, bfloat16, the float8/float6/float4 families) and float32. This
// file does not touch syscall/js, so it is tested natively.

import (
	"encoding/binary"
	"math"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
)

// miniFormat describes a small float format: exponent and mantissa bits,
// the exponent bias, and how it spends its special encodings.
type miniFormat struct {
	exp, man, bias int
	// ieee: the top exponent means Inf (mantissa 0) or NaN.
	ieee bool
	// fn: finite only; the all-ones bit pattern (sign aside) is NaN.
	fn bool
	// fnuz: finite, no negative zero; the pattern 1000…0 is the only NaN.
	fnuz bool
	// unsignedExp: no sign, no mantissa; 0xff is NaN (float8_e8m0fnu).
	unsignedExp bool
}

var miniFormats = map[string]miniFormat{
	"float8_e3m4":        {exp: 3, man: 4, bias: 3, ieee: true},
	"float8_e4m3":        {exp: 4, man: 3, bias: 7, ieee: true},
	"float8_e4m3fn":      {exp: 4, man: 3, bias: 7, fn: true},
	"float8_e4m3fnuz":    {exp: 4, man: 3, bias: 8, fnuz: true},
	"float8_e4m3b11fnuz": {exp: 4, man: 3, bias: 11, fnuz: true},
	"float8_e5m2":        {exp: 5, man: 2, bias: 15, ieee: true},
	"float8_e5m2fnuz":    {exp: 5, man: 2, bias: 16, fnuz: true},
	"float8_e8m0fnu":     {exp: 8, man: 0, bias: 127, unsignedExp: true},
	"float6_e2m3fn":      {exp: 2, man: 3, bias: 1},
	"float6_e3m2fn":      {exp: 3, man: 2, bias: 3},
	"float4_e2m1fn":      {exp: 2, man: 1, bias: 1},
}

// bits is the width of an encoding.
func (f miniFormat) bits() int {
	if f.unsignedExp {
		return f.exp
	}
	return 1 + f.exp + f.man
}

// decode returns the value of code c.
func (f miniFormat) decode(c uint32) float64 {
	if f.unsignedExp {
		if c == 0xff {
			return math.NaN()
		}
		return math.Ldexp(1, int(c)-f.bias)
	}
	n := f.bits()
	sign := c >> (n - 1) & 1
	e := int(c>>f.man) & (1<<f.exp - 1)
	m := c & (1<<f.man - 1)
	rest := c & (1<<(n-1) - 1)
	switch {
	case f.fnuz && sign == 1 && rest == 0:
		return math.NaN()
	case f.fn && rest == 1<<(n-1)-1:
		return math.NaN()
	case f.ieee && e == 1<<f.exp-1:
		if m != 0 {
			return math.NaN()
		}
		if sign == 1 {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	var v float64
	if e == 0 {
		v = math.Ldexp(float64(m), 1-f.bias-f.man)
	} else {
		v = math.Ldexp(float64(m|1<<f.man), e-f.bias-f.man)
	}
	if sign == 1 {
		v = -v
	}
	return v
}

// miniTable holds every value of a format (≤ 8 bits) for decoding, and the
// finite codes sorted by value for encoding.
type miniTable struct {
	f      miniFormat
	values []float64
}

var miniTables = map[string]*miniTable{}

func tableFor(name string) *miniTable {
	if t, ok := miniTables[name]; ok {
		return t
	}
	f, ok := miniFormats[name]
	if !ok {
		return nil
	}
	t := &miniTable{f: f, values: make([]float64, 1<<f.bits())}
	for c := range t.values {
		t.values[c] = f.decode(uint32(c))
	}
	miniTables[name] = t
	return t
}

// encode returns the code nearest to v (ties to the even code); values
// beyond the largest finite one by more than half a step become Inf where
// the format has it, else NaN, else the largest value.
func (t *miniTable) encode(v float64) uint32 {
	nanCode, infCode := -1, -1
	for c, x := range t.values {
		if math.IsNaN(x) && nanCode < 0 {
			nanCode = c
		}
		if math.IsInf(x, 0) && math.Signbit(x) == math.Signbit(v) {
			infCode = c
		}
	}
	if math.IsNaN(v) {
		return uint32(max(nanCode, 0))
	}
	overflow := func(best int) uint32 {
		switch {
		case infCode >= 0:
			return uint32(infCode)
		case nanCode >= 0:
			return uint32(nanCode)
		}
		return uint32(best) // no Inf, no NaN: saturate
	}
	best, bestD, maxFinite := -1, math.Inf(1), 0.0
	if math.IsInf(v, 0) {
		for c, x := range t.values {
			if !math.IsNaN(x) && !math.IsInf(x, 0) && math.Signbit(x) == math.Signbit(v) && (best < 0 || math.Abs(x) > math.Abs(t.values[best])) {
				best = c
			}
		}
		return overflow(best)
	}
	for c, x := range t.values {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		maxFinite = math.Max(maxFinite, math.Abs(x))
		d := math.Abs(x - v)
		switch {
		case best < 0 || d < bestD:
			best, bestD = c, d
		case d == bestD && x == 0 && t.values[best] == 0:
			if math.Signbit(x) == math.Signbit(v) {
				best = c
			}
		case d == bestD && c&1 == 0 && best&1 == 1:
			best = c
		}
	}
	if math.Abs(v)-maxFinite >= halfTopULP(t.f, maxFinite) {
		return overflow(best)
	}
	return uint32(best)
}

// halfTopULP is half the spacing of values at the top of the range.
func halfTopULP(f miniFormat, maxFinite float64) float64 {
	if f.unsignedExp {
		return maxFinite / 2
	}
	e := math.Floor(math.Log2(maxFinite))
	return math.Ldexp(1, int(e)-f.man) / 2
}

// float32Bytes writes v as little-endian float32 at b.
func float32Bytes(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) }

// isFloat32Like reports whether dt's elements reach JavaScript as a
// converted Float32Array (float16, bfloat16, float8/6/4).
func isFloat32Like(dt *dtype.DataType) bool {
	return dt.Kind == dtype.Float && (dt.Format != "" || dt.Size == 2)
}

// toFloat32 converts n elements of a float16, bfloat16 or small-float type
// to little-endian float32 bytes.
func toFloat32(dt *dtype.DataType, src []byte, n int) []byte {
	out := make([]byte, 4*n)
	switch {
	case dt.Format == "bfloat16":
		for i := 0; i < n; i++ {
			h := binary.LittleEndian.Uint16(src[2*i:])
			binary.LittleEndian.PutUint32(out[4*i:], uint32(h)<<16)
		}
	case dt.Format == "" && dt.Size == 2:
		for i := 0; i < n; i++ {
			float32Bytes(out[4*i:], half2float(binary.LittleEndian.Uint16(src[2*i:])))
		}
	default:
		t := tableFor(dt.Format)
		if t == nil {
			return out
		}
		mask := byte(1<<t.f.bits() - 1)
		if t.f.bits() >= 8 {
			mask = 0xff
		}
		for i := 0; i < n; i++ {
			float32Bytes(out[4*i:], float32(t.values[src[i]&mask]))
		}
	}
	return out
}

// fromFloat32 converts little-endian float32 values to n elements of dt
// (rounding to nearest, ties to even).
func fromFloat32(dt *dtype.DataType, src []byte, n int) []byte {
	out := make([]byte, dt.Size*n)
	switch {
	case dt.Format == "bfloat16":
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint16(out[2*i:], bfloat16Bits(binary.LittleEndian.Uint32(src[4*i:])))
		}
	case dt.Format == "" && dt.Size == 2:
		for i := 0; i < n; i++ {
			f := math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
			binary.LittleEndian.PutUint16(out[2*i:], float32ToHalf(f))
		}
	default:
		t := tableFor(dt.Format)
		if t == nil {
			return out
		}
		for i := 0; i < n; i++ {
			f := math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
			out[i] = byte(t.encode(float64(f)))
		}
	}
	return out
}

// half2float converts IEEE binary16 bits to float32 exactly (NaN payloads
// kept in the top mantissa bits).
func half2float(h uint16) float32 {
	sign := uint32(h>>15) << 31
	e := uint32(h>>10) & 0x1f
	m := uint32(h) & 0x3ff
	switch {
	case e == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	case e == 0:
		if m == 0 {
			return math.Float32frombits(sign)
		}
		// subnormal: normalise
		e = 127 - 15 + 1
		for m&0x400 == 0 {
			m <<= 1
			e--
		}
		m &= 0x3ff
		return math.Float32frombits(sign | e<<23 | m<<13)
	}
	return math.Float32frombits(sign | (e+127-15)<<23 | m<<13)
}

// float32ToHalf rounds a float32 to binary16; NaN payload bits that fit
// are kept, so a value read from float16 writes back bit for bit.
func float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		sign := uint16(b>>16) & 0x8000
		m := uint16(b>>13) & 0x3ff
		if m == 0 {
			m = 0x200
		}
		return sign | 0x7c00 | m
	}
	return dtype.Float16Bits(float64(f))
}

// bfloat16Bits rounds float32 bits to bfloat16 (nearest, ties to even).
func bfloat16Bits(b uint32) uint16 {
	if b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 { // NaN: keep it quiet
		return uint16(b>>16) | 0x40
	}
	round := uint32(0x7fff) + (b>>16)&1
	return uint16((b + round) >> 16)
}
