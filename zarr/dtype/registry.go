package dtype

import (
	"encoding/binary"
	"math"
	"sync"
)

// Numeric is one fixed-size numeric data type of the registry: every name,
// size and conversion the layers need, so that a new numeric type is one
// entry in numerics rather than a case in each switch over Kind.
type Numeric struct {
	// Name is the Zarr v3 name; it is also the type's CommonName and
	// TensorStore's name for it.
	Name string
	Kind Kind
	// Size is the size of one element in memory, in bytes.
	Size int
	// Typestr is NumPy's type code and size without the byte order ("b1",
	// "i4", "f2", "c16"); "" where NumPy has none.
	Typestr string
	// V2Ext: TensorStore's zarr2 driver takes Name as a .zarray "dtype"
	// (little-endian; sub-byte integers padded to a byte).
	V2Ext bool
	// JSArray is the TypedArray a read gives in JavaScript, JSItems how
	// many of its items make one element (2 for complex: re, im).
	JSArray string
	JSItems int
	// Float is the format of a float that is not IEEE binary16/32/64
	// (bfloat16, the float8/6/4 families), nil otherwise.
	Float *LowPrec
	// IntBits is the width of a sub-byte integer (int2, int4, uint2,
	// uint4), stored one per byte in the low bits; 0 otherwise.
	IntBits int
	// Part is the type of each of a complex number's two parts (real, then
	// imaginary), nil for the other kinds.
	Part     *Numeric
	partName string

	f32Once sync.Once
	f32     []uint32 // float32 bits of each code of a one-byte Float format
}

// numerics is the registry, in the order V3Names lists the names.
var numerics = []*Numeric{
	{Name: "bool", Kind: Bool, Size: 1, Typestr: "b1", JSArray: "Uint8Array"},
	{Name: "int8", Kind: Int, Size: 1, Typestr: "i1", JSArray: "Int8Array"},
	{Name: "int16", Kind: Int, Size: 2, Typestr: "i2", JSArray: "Int16Array"},
	{Name: "int32", Kind: Int, Size: 4, Typestr: "i4", JSArray: "Int32Array"},
	{Name: "int64", Kind: Int, Size: 8, Typestr: "i8", JSArray: "BigInt64Array"},
	{Name: "uint8", Kind: Uint, Size: 1, Typestr: "u1", JSArray: "Uint8Array"},
	{Name: "uint16", Kind: Uint, Size: 2, Typestr: "u2", JSArray: "Uint16Array"},
	{Name: "uint32", Kind: Uint, Size: 4, Typestr: "u4", JSArray: "Uint32Array"},
	{Name: "uint64", Kind: Uint, Size: 8, Typestr: "u8", JSArray: "BigUint64Array"},
	{Name: "float16", Kind: Float, Size: 2, Typestr: "f2", JSArray: "Float32Array"},
	{Name: "float32", Kind: Float, Size: 4, Typestr: "f4", JSArray: "Float32Array"},
	{Name: "float64", Kind: Float, Size: 8, Typestr: "f8", JSArray: "Float64Array"},
	{Name: "complex64", Kind: Complex, Size: 8, Typestr: "c8", JSArray: "Float32Array", JSItems: 2, partName: "float32"},
	{Name: "complex128", Kind: Complex, Size: 16, Typestr: "c16", JSArray: "Float64Array", JSItems: 2, partName: "float64"},
	lowPrecNumeric("bfloat16", true),
	subByteInt("int2", Int, 2, true),
	subByteInt("int4", Int, 4, true),
	subByteInt("uint2", Uint, 2, false),
	subByteInt("uint4", Uint, 4, false),
	lowPrecNumeric("float8_e3m4", true),
	lowPrecNumeric("float8_e4m3", false),
	lowPrecNumeric("float8_e4m3fn", true),
	lowPrecNumeric("float8_e4m3fnuz", true),
	lowPrecNumeric("float8_e4m3b11fnuz", true),
	lowPrecNumeric("float8_e5m2", true),
	lowPrecNumeric("float8_e5m2fnuz", true),
	lowPrecNumeric("float6_e2m3fn", false),
	lowPrecNumeric("float6_e3m2fn", false),
	lowPrecNumeric("float4_e2m1fn", true),
	lowPrecNumeric("float8_e8m0fnu", true),
	// the extensions registry's complex numbers of the narrower floats
	complexOf("complex_bfloat16", "bfloat16"),
	complexOf("complex_float16", "float16"),
	complexOf("complex_float8_e3m4", "float8_e3m4"),
	complexOf("complex_float8_e4m3", "float8_e4m3"),
	complexOf("complex_float8_e4m3b11fnuz", "float8_e4m3b11fnuz"),
	complexOf("complex_float8_e4m3fnuz", "float8_e4m3fnuz"),
	complexOf("complex_float8_e5m2", "float8_e5m2"),
	complexOf("complex_float8_e5m2fnuz", "float8_e5m2fnuz"),
	complexOf("complex_float8_e8m0fnu", "float8_e8m0fnu"),
	complexOf("complex_float6_e2m3fn", "float6_e2m3fn"),
	complexOf("complex_float6_e3m2fn", "float6_e3m2fn"),
	complexOf("complex_float4_e2m1fn", "float4_e2m1fn"),
}

// numericAliases are other v3 names of registry types: zarr-extensions'
// names for the complex types (zarrs writes them).
var numericAliases = map[string]string{"complex_float32": "complex64", "complex_float64": "complex128"}

func lowPrecNumeric(name string, v2ext bool) *Numeric {
	lp, ok := LowPrecFloat(name)
	if !ok {
		panic("dtype: no low-precision format " + name)
	}
	return &Numeric{Name: name, Kind: Float, Size: lp.StorageSize(), V2Ext: v2ext, JSArray: "Float32Array", Float: &lp}
}

// complexOf is the complex type whose parts are the registry type part
// (init completes it).
func complexOf(name, part string) *Numeric {
	return &Numeric{Name: name, Kind: Complex, JSItems: 2, partName: part}
}

func subByteInt(name string, k Kind, bits int, v2ext bool) *Numeric {
	js := "Uint8Array"
	if k == Int {
		js = "Int8Array"
	}
	return &Numeric{Name: name, Kind: k, Size: 1, V2Ext: v2ext, JSArray: js, IntBits: bits}
}

type kindSize struct {
	kind Kind
	size int
}

var (
	numericByName     = map[string]*Numeric{}
	numericByKindSize = map[kindSize]*Numeric{} // the types Kind and Size name alone
)

func init() {
	for _, n := range numerics {
		if n.partName == "" {
			continue
		}
		for _, p := range numerics {
			if p.Name == n.partName {
				n.Part, n.Size, n.JSArray = p, 2*p.Size, p.JSArray
			}
		}
	}
	for _, n := range numerics {
		if n.JSItems == 0 {
			n.JSItems = 1
		}
		numericByName[n.Name] = n
		if !n.extension() {
			numericByKindSize[kindSize{n.Kind, n.Size}] = n
		}
	}
	for alias, name := range numericAliases {
		numericByName[alias] = numericByName[name]
	}
}

// LookupNumeric returns the registry entry of a v3 numeric type name (or an
// alias of one: complex_float32), or nil.
func LookupNumeric(name string) *Numeric { return numericByName[name] }

// Numerics lists the registry, in V3Names order.
func Numerics() []*Numeric { return numerics }

// extension reports whether the type is named by DataType.Format (Kind and
// Size alone do not tell it).
func (n *Numeric) extension() bool {
	return n.Float != nil || n.IntBits != 0 || (n.Part != nil && n.Part.extension()) || n.Name == "complex_float16"
}

// Numeric returns t's registry entry, or nil when t is not a registry type
// (datetimes, strings, structs, ...).
func (t *DataType) Numeric() *Numeric {
	switch t.Kind {
	case Bool, Int, Uint, Float, Complex:
	default:
		return nil
	}
	if t.Format != "" {
		return numericByName[t.Format]
	}
	return numericByKindSize[kindSize{t.Kind, t.Size}]
}

// newDataType builds the data type of entry n, parsed from name (kept for
// messages), without a stored byte order (the bytes codec gives it).
func (n *Numeric) newDataType(name string) *DataType {
	t := &DataType{Kind: n.Kind, Size: n.Size, Endian: Unset, Name: name}
	if n.Size == 1 {
		t.Endian = NoOrder
	}
	if n.extension() {
		t.Format = n.Name
	}
	return t
}

// Widened reports whether JavaScript holds the values in a Float32Array
// although they are narrower (float16, bfloat16, the float8/6/4 formats):
// ToFloat32 widens them exactly, FromFloat32 rounds.
func (n *Numeric) Widened() bool {
	return (n.Kind == Float && n.Size < 4) || (n.Part != nil && n.Part.Widened())
}

// ToFloat32 writes, for each element of src (a Widened type, in-memory
// bytes), its value as little-endian float32 into dst (4 bytes each). Every
// value of these formats is a float32 value; NaN payloads are kept where
// the format has them (float16, bfloat16).
func (n *Numeric) ToFloat32(dst, src []byte) {
	if n.Part != nil {
		n.Part.ToFloat32(dst, src) // re, im, re, im, ...
		return
	}
	count := len(src) / n.Size
	switch {
	case n.Name == "float16":
		for i := 0; i < count; i++ {
			binary.LittleEndian.PutUint32(dst[4*i:], Float16ToFloat32Bits(binary.LittleEndian.Uint16(src[2*i:])))
		}
	case n.Name == "bfloat16":
		for i := 0; i < count; i++ {
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(binary.LittleEndian.Uint16(src[2*i:]))<<16)
		}
	default:
		table := n.float32Table()
		for i := 0; i < count; i++ {
			binary.LittleEndian.PutUint32(dst[4*i:], table[src[i]])
		}
	}
}

// float32Table is the float32 bits of each byte of a one-byte Float format
// (upper bits of narrower formats ignored, as ToFloat64 does).
func (n *Numeric) float32Table() []uint32 {
	n.f32Once.Do(func() {
		n.f32 = make([]uint32, 256)
		for c := range n.f32 {
			v := n.Float.ToFloat64(uint16(c))
			if math.IsNaN(v) {
				// made from bits: converting a NaN between float widths may
				// drop its sign in WebAssembly
				n.f32[c] = 0x7fc00000
				if math.Signbit(v) {
					n.f32[c] |= 1 << 31
				}
				continue
			}
			n.f32[c] = math.Float32bits(float32(v)) // exact
		}
	})
	return n.f32
}

// FromFloat32 rounds each little-endian float32 of src to an element of dst
// (a Widened type): to nearest, ties to even, overflow, Inf and NaN as
// LowPrec.FromFloat64 describes; float16 keeps the top bits of a NaN's
// payload, as NumPy's cast does.
func (n *Numeric) FromFloat32(dst, src []byte) {
	if n.Part != nil {
		n.Part.FromFloat32(dst, src)
		return
	}
	count := len(src) / 4
	switch {
	case n.Name == "float16":
		for i := 0; i < count; i++ {
			binary.LittleEndian.PutUint16(dst[2*i:], Float16FromFloat32Bits(binary.LittleEndian.Uint32(src[4*i:])))
		}
	case n.Name == "bfloat16":
		for i := 0; i < count; i++ {
			binary.LittleEndian.PutUint16(dst[2*i:], bfloat16FromFloat32Bits(binary.LittleEndian.Uint32(src[4*i:])))
		}
	default:
		for i := 0; i < count; i++ {
			dst[i] = byte(n.Float.FromFloat64(float64FromFloat32Bits(binary.LittleEndian.Uint32(src[4*i:]))))
		}
	}
}

// float64FromFloat32Bits widens float32 bits, NaN by its bits (converting a
// NaN between float widths may drop its sign in WebAssembly).
func float64FromFloat32Bits(b uint32) float64 {
	if b&0x7fffffff > 0x7f800000 {
		return signedNaN(b>>31 != 0)
	}
	return float64(math.Float32frombits(b))
}

// bfloat16FromFloat32Bits rounds float32 bits to bfloat16: nearest, ties to
// even, overflow to Inf; NaN is 0x7fc0 with the input's sign (Eigen's
// float_to_bfloat16_rtne, which ml_dtypes' bfloat16 is). Equal to
// LowPrecFloat("bfloat16").FromFloat64 of the float32 value.
func bfloat16FromFloat32Bits(b uint32) uint16 {
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16)&0x8000 | 0x7fc0
	}
	round := uint32(0x7fff) + (b>>16)&1
	return uint16((b + round) >> 16)
}
