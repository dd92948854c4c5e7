package dtype

import (
	"encoding/binary"
	"math"
)

// Float16 conversions (IEEE 754 binary16), round half to even.

// Float16Bits converts f to binary16 bits.
func Float16Bits(f float64) uint16 {
	// From float64 bits directly: going through float32 would round twice.
	d := math.Float64bits(f)
	sign := uint16(d>>48) & 0x8000
	exp := int((d>>52)&0x7ff) - 1023
	mant := d & (1<<52 - 1)
	switch {
	case math.IsNaN(f):
		m := uint16(mant >> 42)
		if m == 0 {
			m = 0x200
		}
		return sign | 0x7c00 | m
	case math.IsInf(f, 0):
		return sign | 0x7c00
	case f == 0:
		return sign
	}
	if exp > 15 {
		return sign | 0x7c00
	}
	if exp >= -14 {
		// normal: 10-bit mantissa, drop 42 bits with round half to even
		m := mant >> 42
		rem := mant & (1<<42 - 1)
		half := uint64(1) << 41
		if rem > half || (rem == half && m&1 == 1) {
			m++
		}
		v := uint32(exp+15)<<10 + uint32(m) // carry into exponent is correct
		if v >= 0x7c00 {
			return sign | 0x7c00
		}
		return sign | uint16(v)
	}
	// subnormal: value = m * 2^-24
	full := mant | 1<<52
	shift := uint(42 + (-14 - exp))
	if shift > 63 {
		return sign
	}
	m := full >> shift
	rem := full & (1<<shift - 1)
	half := uint64(1) << (shift - 1)
	if rem > half || (rem == half && m&1 == 1) {
		m++
	}
	return sign | uint16(m)
}

// Float16Value converts binary16 bits to float64.
func Float16Value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * mant * math.Pow(2, -24)
	case 31:
		if mant == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	return sign * (1 + mant/1024) * math.Pow(2, float64(exp-15))
}

// Float16ToFloat32Bits widens binary16 bits to float32 bits exactly (a
// NaN's payload kept in the top mantissa bits).
func Float16ToFloat32Bits(h uint16) uint32 {
	sign := uint32(h>>15) << 31
	e := uint32(h>>10) & 0x1f
	m := uint32(h) & 0x3ff
	switch {
	case e == 0x1f:
		return sign | 0x7f800000 | m<<13
	case e == 0:
		if m == 0 {
			return sign
		}
		// subnormal: normalise
		e = 127 - 15 + 1
		for m&0x400 == 0 {
			m <<= 1
			e--
		}
		return sign | e<<23 | (m&0x3ff)<<13
	}
	return sign | (e+127-15)<<23 | m<<13
}

// Float16FromFloat32Bits rounds float32 bits to binary16 as Float16Bits
// does; a NaN keeps the top 10 bits of its payload (0x200 if they are
// zero), so a value read from float16 writes back bit for bit.
func Float16FromFloat32Bits(b uint32) uint16 {
	if b&0x7fffffff > 0x7f800000 {
		m := uint16(b>>13) & 0x3ff
		if m == 0 {
			m = 0x200
		}
		return uint16(b>>16)&0x8000 | 0x7c00 | m
	}
	return Float16Bits(float64(math.Float32frombits(b)))
}

// LoadFloat64 reads element bytes (in-memory, little-endian) of a numeric,
// bool or datetime type as a float64.
func (t *DataType) LoadFloat64(b []byte) float64 {
	if t.Format != "" {
		if n := t.Numeric(); n != nil && n.Float != nil {
			return n.Float.ToFloat64(uint16(t.LoadUint64(b)))
		} else if n != nil && n.IntBits != 0 {
			return float64(Int4Value(b[0], n.Kind == Int, n.IntBits))
		}
	}
	switch t.Kind {
	case Float:
		switch t.Size {
		case 2:
			return Float16Value(binary.LittleEndian.Uint16(b))
		case 4:
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case 8:
			return math.Float64frombits(binary.LittleEndian.Uint64(b))
		}
	case Uint, Bool:
		return float64(t.LoadUint64(b))
	case Int, Datetime, Timedelta:
		return float64(t.LoadInt64(b))
	case Complex:
		return t.ComplexPart().LoadFloat64(b) // the real part
	}
	return 0
}

// LoadInt64 reads a signed integer element (sign-extended).
func (t *DataType) LoadInt64(b []byte) int64 {
	switch t.Size {
	case 1:
		if t.Kind == Uint || t.Kind == Bool {
			return int64(b[0])
		}
		return int64(int8(b[0]))
	case 2:
		if t.Kind == Uint {
			return int64(binary.LittleEndian.Uint16(b))
		}
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case 4:
		if t.Kind == Uint {
			return int64(binary.LittleEndian.Uint32(b))
		}
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case 8:
		return int64(binary.LittleEndian.Uint64(b))
	}
	return 0
}

// LoadUint64 reads an unsigned integer element (zero-extended).
func (t *DataType) LoadUint64(b []byte) uint64 {
	switch t.Size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case 8:
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// StoreUint64 writes the low Size bytes of v (integer wraparound, as NumPy
// casts between integer types).
func (t *DataType) StoreUint64(b []byte, v uint64) {
	switch t.Size {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	}
}

// StoreFloat64 writes f into an element, converting as a NumPy cast does:
// floats round to the nearest value, integers truncate toward zero, bool is
// f != 0.
func (t *DataType) StoreFloat64(b []byte, f float64) {
	if t.Format != "" {
		if n := t.Numeric(); n != nil && n.Float != nil {
			t.StoreUint64(b, uint64(n.Float.FromFloat64(f)))
			return
		}
	}
	switch t.Kind {
	case Float:
		switch t.Size {
		case 2:
			binary.LittleEndian.PutUint16(b, Float16Bits(f))
		case 4:
			binary.LittleEndian.PutUint32(b, math.Float32bits(float32(f)))
		case 8:
			binary.LittleEndian.PutUint64(b, math.Float64bits(f))
		}
	case Bool:
		if f != 0 {
			b[0] = 1
		} else {
			b[0] = 0
		}
	case Uint:
		if f < 0 {
			t.StoreUint64(b, uint64(int64(f)))
		} else {
			t.StoreUint64(b, uint64(f))
		}
	case Int, Datetime, Timedelta:
		t.StoreUint64(b, uint64(int64(f)))
	case Complex:
		p := t.ComplexPart()
		p.StoreFloat64(b, f)
		p.StoreFloat64(b[p.Size:t.Size], 0)
	}
}

// IsInteger reports whether elements are integers (including bool and datetimes).
func (t *DataType) IsInteger() bool {
	switch t.Kind {
	case Int, Uint, Bool, Datetime, Timedelta:
		return true
	}
	return false
}
