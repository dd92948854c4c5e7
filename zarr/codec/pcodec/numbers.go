package pcodec

import (
	"math"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
)

// NumberType is pco's one-byte code for the type of the numbers in a chunk.
type NumberType byte

// The number types pco defines (docs/format.md, "number type 1-byte
// representations").
const (
	U32 NumberType = 1
	U64 NumberType = 2
	I32 NumberType = 3
	I64 NumberType = 4
	F32 NumberType = 5
	F64 NumberType = 6
	U16 NumberType = 7
	I16 NumberType = 8
	F16 NumberType = 9
	U8  NumberType = 10
	I8  NumberType = 11
)

var numberTypeNames = [...]string{U32: "u32", U64: "u64", I32: "i32", I64: "i64", F32: "f32",
	F64: "f64", U16: "u16", I16: "i16", F16: "f16", U8: "u8", I8: "i8"}

// Valid reports whether t is a number type pco defines.
func (t NumberType) Valid() bool { return t >= U32 && t <= I8 }

func (t NumberType) String() string {
	if t.Valid() {
		return numberTypeNames[t]
	}
	return "unknown"
}

// Bits is the width of the type (and of its latents).
func (t NumberType) Bits() uint {
	switch t {
	case U8, I8:
		return 8
	case U16, I16, F16:
		return 16
	case U32, I32, F32:
		return 32
	}
	return 64
}

// Size is the width in bytes.
func (t NumberType) Size() int { return int(t.Bits() / 8) }

// IsFloat reports whether t is f16, f32 or f64.
func (t NumberType) IsFloat() bool { return t == F16 || t == F32 || t == F64 }

func (t NumberType) isSigned() bool { return t == I8 || t == I16 || t == I32 || t == I64 }

// precisionBits is the number of explicit mantissa bits of a float type.
func (t NumberType) precisionBits() uint {
	switch t {
	case F16:
		return 10
	case F32:
		return 23
	}
	return 52
}

func widthMask(bits uint) uint64 {
	if bits >= 64 {
		return math.MaxUint64
	}
	return 1<<bits - 1
}

// fromLatentOrdered maps a latent to the number's bit pattern (low Bits()
// bits), preserving order: unsigned numbers are their latents, signed
// numbers are offset by the minimum, floats have their sign bit toggled and,
// when negative, every bit.
func (t NumberType) fromLatentOrdered(l uint64) uint64 {
	bits := t.Bits()
	top := uint64(1) << (bits - 1)
	switch {
	case t.IsFloat():
		if l&top != 0 {
			return l ^ top
		}
		return ^l & widthMask(bits)
	case t.isSigned():
		return l ^ top
	}
	return l
}

// toLatentOrdered inverts fromLatentOrdered.
func (t NumberType) toLatentOrdered(x uint64) uint64 {
	bits := t.Bits()
	top := uint64(1) << (bits - 1)
	switch {
	case t.IsFloat():
		if x&top != 0 {
			return ^x & widthMask(bits)
		}
		return x ^ top
	case t.isSigned():
		return x ^ top
	}
	return x
}

// Floats are handled through float64 values: every f16 and f32 is exact in
// float64, and products are rounded back to the type once (an f16 product
// computed in f32 is exact, so rounding it to f16 equals pco's arithmetic).

func (t NumberType) floatFromBits(x uint64) float64 {
	switch t {
	case F16:
		return dtype.Float16Value(uint16(x))
	case F32:
		return float64(math.Float32frombits(uint32(x)))
	}
	return math.Float64frombits(x)
}

func (t NumberType) floatToBits(f float64) uint64 {
	switch t {
	case F16:
		return uint64(dtype.Float16Bits(f))
	case F32:
		return uint64(math.Float32bits(float32(f)))
	}
	return math.Float64bits(f)
}

// floatMul multiplies two floats of the type, rounded as the type's own
// multiplication rounds.
func (t NumberType) floatMul(a, b uint64) uint64 {
	switch t {
	case F16:
		return uint64(dtype.Float16Bits(float64(float32(dtype.Float16Value(uint16(a))) * float32(dtype.Float16Value(uint16(b))))))
	case F32:
		return uint64(math.Float32bits(math.Float32frombits(uint32(a)) * math.Float32frombits(uint32(b))))
	}
	return math.Float64bits(math.Float64frombits(a) * math.Float64frombits(b))
}

// intFloatFromLatent maps a latent onto the integer-valued floats of the
// type (pco's int_float_from_latent): latents above the middle are the
// non-negative integers 0, 1, 2, ... up to 2^(mantissa digits), then every
// representable float beyond; latents below the middle mirror them as
// negatives (so -0.0 and +0.0 differ).
func (t NumberType) intFloatFromLatent(l uint64) uint64 {
	bits := t.Bits()
	mask := widthMask(bits)
	mid := uint64(1) << (bits - 1)
	var neg bool
	var absInt uint64
	if l >= mid {
		absInt = l - mid
	} else {
		neg, absInt = true, mid-1-l
	}
	gpi := uint64(1) << (t.precisionBits() + 1)
	var abs uint64
	if absInt < gpi {
		abs = t.floatToBits(float64(absInt))
	} else {
		abs = (t.floatToBits(float64(gpi)) + (absInt - gpi)) & mask
	}
	if neg {
		abs ^= mid
	}
	return abs
}

// isFiniteNonZero reports whether a float bit pattern is finite and not ±0.
func (t NumberType) isFiniteNonZero(x uint64) bool {
	f := t.floatFromBits(x)
	return f != 0 && !math.IsInf(f, 0) && !math.IsNaN(f)
}
