package codec

// NumPy semantics the numcodecs filters depend on: type promotion (NumPy
// 1.x rules, with Python scalars typed by value), casts between numeric
// types (as NumPy on x86-64 does them, including out-of-range float to
// integer casts), element-wise arithmetic in a given type, and the byte
// reinterpretation of ndarray.view.

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// ntype is a NumPy numeric type: kind 'b' (bool), 'i', 'u', 'f', 'c' and
// size in bytes.
type ntype struct {
	kind byte
	size int
}

func (t ntype) String() string {
	if t.kind == 'b' {
		return "bool"
	}
	return string(t.kind) + strconv.Itoa(t.size)
}

// ntypeOf maps a data type to its NumPy numeric type. Datetimes and
// timedeltas count as int64 (their ticks).
func ntypeOf(t *dtype.DataType) (ntype, bool) {
	switch t.Kind {
	case dtype.Bool:
		return ntype{'b', 1}, true
	case dtype.Int:
		return ntype{'i', t.Size}, true
	case dtype.Uint:
		return ntype{'u', t.Size}, true
	case dtype.Float:
		if t.Format != "" {
			return ntype{}, false
		}
		return ntype{'f', t.Size}, true
	case dtype.Complex:
		return ntype{'c', t.Size}, true
	case dtype.Datetime, dtype.Timedelta:
		return ntype{'i', 8}, true
	}
	return ntype{}, false
}

func category(k byte) int {
	switch k {
	case 'b':
		return 0
	case 'i', 'u':
		return 1
	case 'f':
		return 2
	}
	return 3
}

// floatFor is the smallest float size that holds every integer of size n
// (NumPy's rule: 1 → float16, 2 → float32, larger → float64).
func floatFor(n int) int {
	switch n {
	case 1:
		return 2
	case 2:
		return 4
	}
	return 8
}

// promote is np.promote_types for numeric types.
func promote(a, b ntype) ntype {
	if a.kind == 'b' {
		return b
	}
	if b.kind == 'b' {
		return a
	}
	if a.kind == b.kind {
		return ntype{a.kind, max(a.size, b.size)}
	}
	if category(a.kind) < category(b.kind) {
		a, b = b, a
	}
	// now category(a) >= category(b)
	switch {
	case a.kind == 'i' && b.kind == 'u', a.kind == 'u' && b.kind == 'i':
		s, u := a, b
		if a.kind == 'u' {
			s, u = b, a
		}
		if s.size > u.size {
			return s
		}
		if u.size < 8 {
			return ntype{'i', 2 * u.size}
		}
		return ntype{'f', 8}
	case a.kind == 'f' && (b.kind == 'i' || b.kind == 'u'):
		return ntype{'f', max(a.size, floatFor(b.size))}
	case a.kind == 'c' && (b.kind == 'i' || b.kind == 'u'):
		return ntype{'c', max(a.size, 2*max(4, floatFor(b.size)))}
	case a.kind == 'c' && b.kind == 'f':
		return ntype{'c', max(a.size, 2*max(4, b.size))}
	}
	return a
}

// pyScalar is a Python int or float from a codec configuration.
type pyScalar struct {
	isFloat bool
	i       int64
	f       float64
}

func (s pyScalar) float() float64 {
	if s.isFloat {
		return s.f
	}
	return float64(s.i)
}

// parsePyScalar reads a JSON number as Python's json module would: an
// integer if it has no fraction or exponent, else a float.
func parsePyScalar(raw []byte, name string) (pyScalar, error) {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "", "null":
		return pyScalar{}, fmtx.Errorf("%s is required", name)
	case "NaN":
		return pyScalar{isFloat: true, f: math.NaN()}, nil
	case "Infinity":
		return pyScalar{isFloat: true, f: math.Inf(1)}, nil
	case "-Infinity":
		return pyScalar{isFloat: true, f: math.Inf(-1)}, nil
	}
	if !strings.ContainsAny(s, ".eE") {
		i, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			return pyScalar{i: i}, nil
		}
		if _, ferr := strconv.ParseFloat(s, 64); ferr == nil {
			return pyScalar{}, fmtx.Errorf("%s %s is out of the int64 range", name, s)
		}
		return pyScalar{}, fmtx.Errorf("%s must be a number, got %s", name, s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return pyScalar{}, fmtx.Errorf("%s must be a number, got %s", name, s)
	}
	return pyScalar{isFloat: true, f: f}, nil
}

// minScalarType is np.min_scalar_type of a Python scalar, and whether a
// non-negative integer would also fit the signed type of that size.
func minScalarType(s pyScalar) (ntype, bool) {
	if s.isFloat {
		f := s.f
		switch {
		case (f > -65000 && f < 65000) || math.IsInf(f, 0) || math.IsNaN(f):
			return ntype{'f', 2}, false
		case f > -3.4e38 && f < 3.4e38:
			return ntype{'f', 4}, false
		}
		return ntype{'f', 8}, false
	}
	v := s.i
	if v >= 0 {
		switch {
		case v < 1<<8:
			return ntype{'u', 1}, v < 1<<7
		case v < 1<<16:
			return ntype{'u', 2}, v < 1<<15
		case v < 1<<32:
			return ntype{'u', 4}, v < 1<<31
		}
		return ntype{'u', 8}, true
	}
	switch {
	case v >= math.MinInt8:
		return ntype{'i', 1}, false
	case v >= math.MinInt16:
		return ntype{'i', 2}, false
	case v >= math.MinInt32:
		return ntype{'i', 4}, false
	}
	return ntype{'i', 8}, false
}

// resultWithScalar is the type of `array op scalar` under NumPy 1.x's
// value-based casting.
func resultWithScalar(a ntype, s pyScalar) ntype {
	skind := byte('i')
	if s.isFloat {
		skind = 'f'
	}
	if category(skind) > category(a.kind) {
		return promote(a, ntype{skind, 8})
	}
	m, smallUnsigned := minScalarType(s)
	if smallUnsigned && m.kind == 'u' && a.kind == 'i' {
		m.kind = 'i'
	}
	return promote(a, m)
}

// num is one value of an ntype: bool and unsigned in u, signed in i, float
// in f, complex in f (real) and im.
type num struct {
	u     uint64
	i     int64
	f, im float64
}

func load(t ntype, b []byte) num {
	switch t.kind {
	case 'b':
		if b[0] != 0 {
			return num{u: 1}
		}
		return num{}
	case 'u':
		switch t.size {
		case 1:
			return num{u: uint64(b[0])}
		case 2:
			return num{u: uint64(binary.LittleEndian.Uint16(b))}
		case 4:
			return num{u: uint64(binary.LittleEndian.Uint32(b))}
		}
		return num{u: binary.LittleEndian.Uint64(b)}
	case 'i':
		switch t.size {
		case 1:
			return num{i: int64(int8(b[0]))}
		case 2:
			return num{i: int64(int16(binary.LittleEndian.Uint16(b)))}
		case 4:
			return num{i: int64(int32(binary.LittleEndian.Uint32(b)))}
		}
		return num{i: int64(binary.LittleEndian.Uint64(b))}
	case 'f':
		return num{f: loadFloat(t.size, b)}
	case 'c':
		h := t.size / 2
		return num{f: loadFloat(h, b), im: loadFloat(h, b[h:])}
	}
	return num{}
}

func loadFloat(size int, b []byte) float64 {
	switch size {
	case 2:
		return dtype.Float16Value(binary.LittleEndian.Uint16(b))
	case 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// store writes v, already a value of t, into b.
func store(t ntype, b []byte, v num) {
	switch t.kind {
	case 'b':
		b[0] = byte(v.u & 1)
	case 'u':
		putUint(b[:t.size], v.u)
	case 'i':
		putUint(b[:t.size], uint64(v.i))
	case 'f':
		storeFloat(t.size, b, v.f)
	case 'c':
		h := t.size / 2
		storeFloat(h, b, v.f)
		storeFloat(h, b[h:], v.im)
	}
}

func putUint(b []byte, v uint64) {
	switch len(b) {
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

func storeFloat(size int, b []byte, f float64) {
	switch size {
	case 2:
		binary.LittleEndian.PutUint16(b, dtype.Float16Bits(f))
	case 4:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(f)))
	default:
		binary.LittleEndian.PutUint64(b, math.Float64bits(f))
	}
}

// roundFloat rounds f to a float of size bytes (nearest, ties to even).
func roundFloat(size int, f float64) float64 {
	switch size {
	case 2:
		return dtype.Float16Value(dtype.Float16Bits(f))
	case 4:
		return float64(float32(f))
	}
	return f
}

// wrapInt reduces an integer to t's width (two's complement).
func wrapInt(t ntype, v uint64) num {
	if t.size < 8 {
		bits := uint(8 * t.size)
		v &= 1<<bits - 1
		if t.kind == 'i' && v&(1<<(bits-1)) != 0 {
			v |= ^uint64(0) << bits
		}
	}
	if t.kind == 'i' {
		return num{i: int64(v)}
	}
	if t.kind == 'b' {
		if v != 0 {
			return num{u: 1}
		}
		return num{}
	}
	return num{u: v}
}

// bits returns an integer value as its two's complement bits.
func (v num) bits(t ntype) uint64 {
	if t.kind == 'i' {
		return uint64(v.i)
	}
	return v.u
}

// asFloat returns the value of v (of type t) as a float64 (the real part
// for complex).
func asFloat(t ntype, v num) float64 {
	switch t.kind {
	case 'i':
		return float64(v.i)
	case 'u', 'b':
		return float64(v.u)
	}
	return v.f
}

// cvt32 and cvt64 are x86 truncating conversions (CVTTSD2SI): NaN and
// out-of-range values give the "integer indefinite" value.
func cvt32(f float64) int32 {
	if !(f > -2147483649 && f < 2147483648) {
		return math.MinInt32
	}
	return int32(f)
}

func cvt64(f float64) int64 {
	if !(f >= -9223372036854775808 && f < 9223372036854775808) {
		return math.MinInt64
	}
	return int64(f)
}

// floatToInt casts a float to an integer type as NumPy does on x86-64.
func floatToInt(f float64, to ntype) num {
	var bits uint64
	switch to.size {
	case 1, 2:
		bits = uint64(int64(cvt32(f)))
	case 4:
		// uint32 goes through int64 as in NumPy's scalar loop (its SIMD loop
		// differs for out-of-range values, which NumPy leaves undefined).
		if to.kind == 'u' {
			bits = uint64(cvt64(f))
		} else {
			bits = uint64(int64(cvt32(f)))
		}
	default:
		if to.kind == 'u' && f >= 9223372036854775808 {
			bits = uint64(cvt64(f-9223372036854775808)) ^ 1<<63
		} else {
			bits = uint64(cvt64(f))
		}
	}
	return wrapInt(to, bits)
}

// cast converts v from type `from` to type `to` with NumPy's unsafe casting.
func cast(v num, from, to ntype) num {
	if from == to {
		return v
	}
	switch to.kind {
	case 'b':
		switch from.kind {
		case 'f':
			return boolNum(v.f != 0)
		case 'c':
			return boolNum(v.f != 0 || v.im != 0)
		}
		return boolNum(v.bits(from) != 0)
	case 'i', 'u':
		switch from.kind {
		case 'f', 'c':
			return floatToInt(v.f, to)
		}
		return wrapInt(to, v.bits(from))
	case 'f', 'c':
		size := to.size
		if to.kind == 'c' {
			size /= 2
		}
		var re, im float64
		switch from.kind {
		case 'i':
			re = intToFloat(size, v.i)
		case 'u', 'b':
			re = uintToFloat(size, v.u)
		case 'f':
			re = roundFloat(size, v.f)
		case 'c':
			re, im = roundFloat(size, v.f), roundFloat(size, v.im)
		}
		if to.kind == 'c' {
			return num{f: re, im: im}
		}
		return num{f: re}
	}
	return v
}

func boolNum(b bool) num {
	if b {
		return num{u: 1}
	}
	return num{}
}

// intToFloat rounds an integer once to the target precision (a conversion
// through float64 would round twice for float32).
func intToFloat(size int, i int64) float64 {
	if size == 4 {
		return float64(float32(i))
	}
	return roundFloat(size, float64(i))
}

func uintToFloat(size int, u uint64) float64 {
	if size == 4 {
		return float64(float32(u))
	}
	return roundFloat(size, float64(u))
}

// arith applies a binary operation in type t (both operands already of
// type t): integers wrap, floats round to t's precision.
func arith(t ntype, op byte, a, b num) num {
	switch t.kind {
	case 'i', 'u':
		x, y := a.bits(t), b.bits(t)
		var r uint64
		switch op {
		case '+':
			r = x + y
		case '-':
			r = x - y
		case '*':
			r = x * y
		}
		return wrapInt(t, r)
	case 'b':
		// NumPy's bool add and multiply are logical or / and.
		switch op {
		case '+':
			return boolNum(a.u|b.u != 0)
		case '*':
			return boolNum(a.u&b.u != 0)
		}
		return boolNum(a.u != b.u)
	case 'f':
		var r float64
		switch op {
		case '+':
			r = a.f + b.f
		case '-':
			r = a.f - b.f
		case '*':
			r = a.f * b.f
		case '/':
			r = a.f / b.f
		}
		return num{f: roundFloat(t.size, r)}
	case 'c':
		h := t.size / 2
		switch op {
		case '+':
			return num{f: roundFloat(h, a.f+b.f), im: roundFloat(h, a.im+b.im)}
		case '-':
			return num{f: roundFloat(h, a.f-b.f), im: roundFloat(h, a.im-b.im)}
		}
	}
	return num{}
}

// scalarIn converts a Python scalar to type t (as NumPy does before running
// a loop of type t).
func scalarIn(s pyScalar, t ntype) num {
	if s.isFloat {
		return cast(num{f: s.f}, ntype{'f', 8}, t)
	}
	return cast(num{i: s.i}, ntype{'i', 8}, t)
}

// rint rounds a float value to an integer, ties to even (np.around with 0
// decimals); integers are unchanged.
func rint(t ntype, v num) num {
	switch t.kind {
	case 'f':
		return num{f: math.RoundToEven(v.f)}
	case 'c':
		return num{f: math.RoundToEven(v.f), im: math.RoundToEven(v.im)}
	}
	return v
}

// parseFilterDType parses a dtype member of a filter configuration (a
// NumPy typestr).
func parseFilterDType(raw []byte, name string) (*dtype.DataType, error) {
	s, err := stringOption(raw, name, "")
	if err != nil {
		return nil, err
	}
	if s == "" {
		return nil, fmtx.Errorf("%s is required", name)
	}
	t, err := dtype.ParseTypestr(s)
	if err != nil {
		// zarr-python 3 writes numcodecs.* configurations with v3 names
		// ("int32"); they mean little-endian in memory, order from bytes.
		raw, _ := jsonx.MarshalStrict(s)
		if t3, err3 := dtype.ParseV3(raw); err3 == nil && !t3.Variable() {
			return t3, nil
		}
		return nil, fmtx.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// memType is t as the chain holds it: in memory, little-endian, with no
// stored byte order (the bytes codec, or meta's v2 pipeline, has the order),
// named as a v3 type. Filters compute and view in these types.
func memType(t *dtype.DataType) *dtype.DataType {
	out := t
	if t.HasMultiByte() {
		out = t.WithEndian(dtype.Unset)
	} else {
		c := *t
		out = &c
	}
	if n := out.Numeric(); n != nil {
		out.Name = n.Name
	}
	return out
}

// viewShape is the shape of a view of shape/from as to: the same shape for
// equal sizes, else the flattened length (numcodecs filters flatten).
func viewShape(shape []int, from, to *dtype.DataType) ([]int, error) {
	if from.Size == to.Size {
		return append([]int(nil), shape...), nil
	}
	nbytes := nd.Size(shape) * from.Size
	if to.Size == 0 || nbytes%to.Size != 0 {
		return nil, fmtx.Errorf("%d bytes of %s cannot be viewed as %s", nbytes, from, to)
	}
	return []int{nbytes / to.Size}, nil
}

// viewArray reinterprets an array's in-memory elements as elements of to,
// as NumPy's ndarray.view does (both little-endian in memory).
func viewArray(a *nd.Array, to *dtype.DataType) (*nd.Array, error) {
	if a.DType().Variable() || to.Variable() {
		return nil, fmtx.Errorf("cannot view %s as %s", a.DType(), to)
	}
	shape, err := viewShape(a.Shape(), a.DType(), to)
	if err != nil {
		return nil, err
	}
	return nd.FromBytes(to, shape, a.Bytes())
}

// encodeFill computes the fill of a filter's output by encoding a
// one-element array of the input's fill; a filter that is not element-wise
// (or fails) gets zeros.
func encodeFill(in Spec, out *dtype.DataType, enc func(*nd.Array) (*nd.Array, error)) dtype.Fill {
	zero := out.ZeroFill()
	zero.Null = false
	if in.DType == nil {
		return zero
	}
	var a *nd.Array
	var err error
	if in.DType.Variable() {
		a, err = nd.FromObjects(in.DType, []int{1}, []any{in.Fill.Value})
	} else {
		if len(in.Fill.Bytes) != in.DType.Size {
			return zero
		}
		a, err = nd.FromBytes(in.DType, []int{1}, append([]byte(nil), in.Fill.Bytes...))
	}
	if err != nil {
		return zero
	}
	e, err := enc(a)
	if err != nil || e.DType().Variable() || len(e.Bytes()) != out.Size {
		return zero
	}
	return dtype.Fill{Bytes: e.Bytes()}
}

// byteOrderOf is the stored order of t's first multi-byte part, or NoOrder.
func byteOrderOf(t *dtype.DataType) byte {
	for _, l := range t.Leaves(0, nil) {
		return l.Endian
	}
	return dtype.NoOrder
}
