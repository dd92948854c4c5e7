// Package nd holds n-dimensional arrays in memory: shape, data type and the
// elements, either as packed little-endian C-order bytes (fixed-size types)
// or as Go values (variable-size types). Chunks, selections and results all
// use it, and it does the strided copies between them.
package nd

import (
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// Array is an n-dimensional array in C order.
type Array struct {
	shape []int
	dt    *dtype.DataType
	data  []byte // fixed-size types: len == Len()*dt.Size
	objs  []any  // variable-size types: len == Len()
}

// Size returns the number of elements of shape (1 for a 0-d shape).
func Size(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// CheckedSize returns the product of shape and itemsize, and false if it
// overflows (so callers can refuse instead of panicking in make).
func CheckedSize(shape []int, itemsize int) (int, bool) {
	const limit = 1 << 52
	n := itemsize
	for _, s := range shape {
		if s < 0 {
			return 0, false
		}
		if s != 0 && n > limit/s {
			return 0, false
		}
		n *= s
	}
	return n, true
}

// New returns a zeroed array (nil objects for variable-size types).
func New(dt *dtype.DataType, shape []int) *Array {
	a := &Array{shape: append([]int(nil), shape...), dt: dt}
	if dt.Variable() {
		a.objs = make([]any, Size(shape))
	} else {
		a.data = make([]byte, Size(shape)*dt.Size)
	}
	return a
}

// Filled returns an array with every element set to fill.
func Filled(dt *dtype.DataType, shape []int, fill dtype.Fill) *Array {
	a := New(dt, shape)
	a.Fill(fill)
	return a
}

// Fill sets every element to fill.
func (a *Array) Fill(fill dtype.Fill) {
	if a.dt.Variable() {
		for i := range a.objs {
			a.objs[i] = fill.Value
		}
		return
	}
	FillBytes(a.data, fill.Bytes)
}

// FillBytes repeats elem over dst.
func FillBytes(dst, elem []byte) {
	if len(elem) == 0 || len(dst) == 0 {
		return
	}
	allZero := true
	for _, c := range elem {
		if c != 0 {
			allZero = false
			break
		}
	}
	if allZero {
		clear(dst)
		return
	}
	n := copy(dst, elem)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
}

// FromBytes wraps element bytes (not copied).
func FromBytes(dt *dtype.DataType, shape []int, data []byte) (*Array, error) {
	if dt.Variable() {
		return nil, fmtx.Errorf("%s elements are values, not bytes", dt)
	}
	if want := Size(shape) * dt.Size; len(data) != want {
		return nil, fmtx.Errorf("%d bytes for shape %v of %s, want %d", len(data), shape, dt, want)
	}
	return &Array{shape: append([]int(nil), shape...), dt: dt, data: data}, nil
}

// FromObjects wraps values of a variable-size type (not copied).
func FromObjects(dt *dtype.DataType, shape []int, objs []any) (*Array, error) {
	if !dt.Variable() {
		return nil, fmtx.Errorf("%s elements are bytes, not values", dt)
	}
	if len(objs) != Size(shape) {
		return nil, fmtx.Errorf("%d values for shape %v, want %d", len(objs), shape, Size(shape))
	}
	return &Array{shape: append([]int(nil), shape...), dt: dt, objs: objs}, nil
}

func (a *Array) Shape() []int                { return a.shape }
func (a *Array) DType() *dtype.DataType      { return a.dt }
func (a *Array) Len() int                    { return Size(a.shape) }
func (a *Array) Raw() []byte                 { return a.data }
func (a *Array) RawObjects() []any           { return a.objs }
func (a *Array) SetDType(dt *dtype.DataType) { a.dt = dt }

// Bytes returns the element bytes: little-endian, C order; nil for
// variable-size types.
func (a *Array) Bytes() []byte { return a.data }

// Clone returns a copy that shares no memory with a.
func (a *Array) Clone() *Array {
	return &Array{shape: append([]int(nil), a.shape...), dt: a.dt,
		data: append([]byte(nil), a.data...), objs: append([]any(nil), a.objs...)}
}

// Reshape returns an array sharing a's elements with another shape of the
// same size.
func (a *Array) Reshape(shape []int) (*Array, error) {
	if Size(shape) != a.Len() {
		return nil, fmtx.Errorf("cannot reshape %v to %v", a.shape, shape)
	}
	return &Array{shape: append([]int(nil), shape...), dt: a.dt, data: a.data, objs: a.objs}, nil
}

// Strings returns the elements as strings: S as Latin-1 with trailing NULs
// dropped, U as text, string and object arrays holding strings.
func (a *Array) Strings() ([]string, error) {
	n := a.Len()
	out := make([]string, n)
	switch a.dt.Kind {
	case dtype.Bytes:
		for i := 0; i < n; i++ {
			out[i] = dtype.Latin1String(a.data[i*a.dt.Size : (i+1)*a.dt.Size])
		}
	case dtype.Unicode:
		for i := 0; i < n; i++ {
			out[i] = dtype.UnicodeString(a.data[i*a.dt.Size : (i+1)*a.dt.Size])
		}
	case dtype.Object, dtype.String:
		for i, o := range a.objs {
			switch v := o.(type) {
			case string:
				out[i] = v
			case nil:
				out[i] = ""
			default:
				return nil, fmtx.Errorf("element %d is %T, not a string", i, o)
			}
		}
	default:
		return nil, fmtx.Errorf("%s elements are not strings", a.dt)
	}
	return out, nil
}

// Objects returns the elements of a variable-size array: string, []byte or
// decoded JSON values.
func (a *Array) Objects() ([]any, error) {
	if !a.dt.Variable() {
		return nil, fmtx.Errorf("%s elements are fixed-size; use Bytes", a.dt)
	}
	return a.objs, nil
}

// Field returns one field of a struct array as its own array (copied).
// Nested fields are named "outer.inner". A subarray field adds its shape to
// the array's shape.
func (a *Array) Field(name string) (*Array, error) {
	t, offset, sub, err := a.fieldLayout(name)
	if err != nil {
		return nil, err
	}
	width := t.Size * Size(sub)
	n := a.Len()
	out := make([]byte, n*width)
	for i := 0; i < n; i++ {
		src := i*a.dt.Size + offset
		copy(out[i*width:(i+1)*width], a.data[src:src+width])
	}
	shape := append(append([]int(nil), a.shape...), sub...)
	return FromBytes(t, shape, out)
}

// PutField writes v, shaped as Field(name) returns it, into that field of
// every element, leaving the other fields' bytes as they are.
func (a *Array) PutField(name string, v *Array) error {
	t, offset, sub, err := a.fieldLayout(name)
	if err != nil {
		return err
	}
	want := append(append([]int(nil), a.shape...), sub...)
	if !v.dt.Equal(t) || Size(v.shape) != Size(want) || len(v.shape) != len(want) {
		return fmtx.Errorf("field %q takes %s values of shape %v, got %s %v", name, t, want, v.dt, v.shape)
	}
	width := t.Size * Size(sub)
	for i := 0; i < a.Len(); i++ {
		dst := i*a.dt.Size + offset
		copy(a.data[dst:dst+width], v.data[i*width:(i+1)*width])
	}
	return nil
}

// fieldLayout finds a (possibly nested) field: its element type, byte
// offset in the struct element and subarray shape.
func (a *Array) fieldLayout(name string) (*dtype.DataType, int, []int, error) {
	t := a.dt
	offset := 0
	rest := name
	for {
		if t.Kind != dtype.Struct {
			return nil, 0, nil, fmtx.Errorf("%s has no fields", t)
		}
		head, tail, nested := cut(rest)
		f, ok := t.Field(head)
		if !ok {
			if !nested {
				// A field name may itself contain a dot.
				if g, ok2 := t.Field(rest); ok2 {
					f, ok, nested = g, true, false
				}
			}
			if !ok {
				return nil, 0, nil, &FieldError{Name: name, Known: t.FieldNames()}
			}
		}
		offset += f.Offset
		if nested {
			if len(f.Shape) > 0 {
				return nil, 0, nil, fmtx.Errorf("field %q is a subarray; select it whole", head)
			}
			t = f.Type
			rest = tail
			continue
		}
		return f.Type, offset, f.Shape, nil
	}
}

// FieldError reports an unknown struct field.
type FieldError struct {
	Name  string
	Known []string
}

func (e *FieldError) Error() string { return fmtx.Sprintf("no field %q (fields: %v)", e.Name, e.Known) }

func cut(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// Equal reports whether two arrays hold the same shape and elements (bytes
// compared exactly, so NaN payloads count).
func (a *Array) Equal(b *Array) bool {
	if len(a.shape) != len(b.shape) {
		return false
	}
	for i := range a.shape {
		if a.shape[i] != b.shape[i] {
			return false
		}
	}
	if a.dt.Variable() != b.dt.Variable() {
		return false
	}
	if !a.dt.Variable() {
		return string(a.data) == string(b.data)
	}
	for i := range a.objs {
		if !equalObject(a.objs[i], b.objs[i]) {
			return false
		}
	}
	return true
}

func equalObject(x, y any) bool {
	switch xv := x.(type) {
	case []byte:
		yv, ok := y.([]byte)
		return ok && string(xv) == string(yv)
	case string, nil, bool, int64, float64:
		return x == y
	}
	xj, err1 := jsonx.MarshalStrict(x)
	yj, err2 := jsonx.MarshalStrict(y)
	return err1 == nil && err2 == nil && string(xj) == string(yj)
}

// AllEqual reports whether every element equals fill (bytes or value).
func (a *Array) AllEqual(fill dtype.Fill) bool {
	if a.dt.Variable() {
		for _, o := range a.objs {
			if !equalObject(o, fill.Value) {
				return false
			}
		}
		return true
	}
	es := len(fill.Bytes)
	if es == 0 {
		return len(a.data) == 0
	}
	for i := 0; i+es <= len(a.data); i += es {
		if string(a.data[i:i+es]) != string(fill.Bytes) {
			return false
		}
	}
	return true
}
