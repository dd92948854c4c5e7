// Package dtype describes Zarr data types in one model for every format: the
// in-memory layout of an element (always little-endian, C order, packed) and,
// for v1/v2 documents, the byte order the element is stored in. The bytes
// codec uses Leaves to swap bytes; fill values and scalars are converted to
// element bytes here. The fixed-size numeric types are one registry
// (Numeric: names in each format, JavaScript array, float conversions).
package dtype

import (
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
)

// Kind is the family of a data type.
type Kind int

const (
	Bool Kind = iota
	Int
	Uint
	Float // IEEE float16/32/64; DataType.Format names the others (bfloat16, float8_*, ...)
	Complex
	Datetime  // int64 ticks of Unit
	Timedelta // int64 ticks of Unit
	Bytes     // numpy "S": fixed length, NUL padded
	Unicode   // numpy "U": fixed number of UCS4 code points
	Void      // numpy "V" and v3 "r*": opaque fixed-size bytes
	Struct    // packed fields
	Object    // variable-size values (numpy "O"): string, []byte or JSON values
	String    // v3 variable-length UTF-8 string
	VarBytes  // v3 variable-length bytes
)

var kindNames = [...]string{"bool", "int", "uint", "float", "complex", "datetime64", "timedelta64",
	"bytes", "unicode", "void", "struct", "object", "string", "varbytes"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmtx.Sprintf("Kind(%d)", int(k))
}

// Byte orders a stored element can have.
const (
	Little  byte = '<'
	Big     byte = '>'
	NoOrder byte = '|' // single bytes, strings of bytes
	Unset   byte = 0   // decided by the bytes codec (v3)
)

// DataType is one data type.
type DataType struct {
	Kind Kind
	// Size is the size of one element in bytes; 0 for variable-size kinds.
	Size int
	// Endian is the stored byte order of scalar leaves for v1/v2 types
	// ('<', '>', '|'), or Unset for v3 where the bytes codec decides.
	Endian byte
	// Unit and Scale describe datetime/timedelta ticks ("ns", 1; "s", 10).
	Unit  string
	Scale int
	// Fields of a Struct, in order, packed.
	Fields []Field
	// Format is the registry name (see Numeric) of a numeric type that Kind
	// and Size do not identify: bfloat16, the float8/6/4 formats, int2,
	// int4, uint2, uint4; empty otherwise.
	Format string
	// Name is the v3 name (or v2 typestr) this type was parsed from, for
	// messages.
	Name string
	// Optional marks zarr-extensions' "optional" type (zarrs): a Struct of
	// the inner type's "data" and a bool "mask" (1 where a value is present),
	// so every layer that handles structs carries the mask beside the values.
	Optional bool
}

// Field is a member of a struct type.
type Field struct {
	Name   string
	Type   *DataType
	Shape  []int // subarray shape, nil for scalars
	Offset int
}

// Count returns the number of scalar elements of the field (product of Shape).
func (f Field) Count() int {
	n := 1
	for _, s := range f.Shape {
		n *= s
	}
	return n
}

// Variable reports whether elements have no fixed size (values live in Go
// values, not element bytes).
func (t *DataType) Variable() bool {
	return t.Kind == Object || t.Kind == String || t.Kind == VarBytes
}

// IsJSON reports whether t is the registry's "json" type (pull request 9):
// an Object whose elements are JSON values (nil, bool, int64, uint64 or
// float64 beyond the int64 range, float64, string, []any, map[string]any),
// stored by vlen-utf8 as JSON text.
func (t *DataType) IsJSON() bool { return t.Kind == Object && t.Name == "json" }

// Leaf is one multi-byte scalar inside an element, for byte swapping.
type Leaf struct {
	Offset, Width int
	Endian        byte
}

// Leaves appends the swappable scalar parts of one element: each multi-byte
// number (complex as two), each UCS4 code point. 1-byte parts are omitted.
func (t *DataType) Leaves(base int, out []Leaf) []Leaf {
	switch t.Kind {
	case Int, Uint, Float, Datetime, Timedelta:
		if t.Size > 1 {
			out = append(out, Leaf{base, t.Size, t.Endian})
		}
	case Complex:
		p := t.ComplexPart()
		out = p.Leaves(base+p.Size, p.Leaves(base, out))
	case Unicode:
		for i := 0; i < t.Size; i += 4 {
			out = append(out, Leaf{base + i, 4, t.Endian})
		}
	case Struct:
		for _, f := range t.Fields {
			for k := 0; k < f.Count(); k++ {
				out = f.Type.Leaves(base+f.Offset+k*f.Type.Size, out)
			}
		}
	}
	return out
}

// ComplexPart is the type of a complex number's real and imaginary parts,
// stored in t's byte order (float32 for complex64, bfloat16 for
// complex_bfloat16, ...).
func (t *DataType) ComplexPart() *DataType {
	if n := t.Numeric(); n != nil && n.Part != nil {
		p := n.Part.newDataType(n.Part.Name)
		if p.Endian != NoOrder {
			p.Endian = t.Endian
		}
		return p
	}
	return &DataType{Kind: Float, Size: t.Size / 2, Endian: t.Endian}
}

// HasMultiByte reports whether any part of the element needs a byte order.
func (t *DataType) HasMultiByte() bool { return len(t.Leaves(0, nil)) > 0 }

// Field returns the struct field with the given name.
func (t *DataType) Field(name string) (Field, bool) {
	for _, f := range t.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// FieldNames lists the names of a struct's fields.
func (t *DataType) FieldNames() []string {
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	return names
}

// WithEndian returns a copy of t whose leaves are all stored in byte order e.
func (t *DataType) WithEndian(e byte) *DataType {
	c := *t
	if c.Endian != NoOrder || c.Kind == Struct {
		c.Endian = e
	}
	if len(t.Fields) > 0 {
		c.Fields = make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = f.Type.WithEndian(e)
			c.Fields[i] = f
		}
	}
	return &c
}

// Equal reports whether two types describe the same in-memory elements
// (stored byte order ignored).
func (t *DataType) Equal(u *DataType) bool {
	if t.Kind != u.Kind || t.Size != u.Size || t.Unit != u.Unit || t.Scale != u.Scale ||
		t.Format != u.Format || len(t.Fields) != len(u.Fields) {
		return false
	}
	for i, f := range t.Fields {
		g := u.Fields[i]
		if f.Name != g.Name || f.Offset != g.Offset || !f.Type.Equal(g.Type) || !equalInts(f.Shape, g.Shape) {
			return false
		}
	}
	return true
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (t *DataType) String() string {
	if t.Name != "" {
		return t.Name
	}
	if s, err := t.V2String(); err == nil {
		return s
	}
	return t.Kind.String()
}

// NewBool and NewUint build those types (little-endian) without parsing.
func NewBool() *DataType { return &DataType{Kind: Bool, Size: 1, Endian: NoOrder, Name: "bool"} }
func NewUint(size int) *DataType {
	return &DataType{Kind: Uint, Size: size, Endian: endianFor(size), Name: fmtx.Sprintf("uint%d", size*8)}
}

func endianFor(size int) byte {
	if size == 1 {
		return NoOrder
	}
	return Little
}

// numpyUnits are the datetime64/timedelta64 units numpy accepts.
var numpyUnits = []string{"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "μs", "ns", "ps", "fs", "as", "generic"}

func validUnit(u string) bool {
	for _, v := range numpyUnits {
		if v == u {
			return true
		}
	}
	return false
}

func unitSuffix(t *DataType) string {
	if t.Scale > 1 {
		return fmtx.Sprintf("[%d%s]", t.Scale, t.Unit)
	}
	return "[" + t.Unit + "]"
}

// trimNUL drops trailing NUL bytes.
func trimNUL(b []byte) []byte {
	return []byte(strings.TrimRight(string(b), "\x00"))
}
