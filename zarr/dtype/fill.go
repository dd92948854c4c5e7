package dtype

import (
	"encoding/base64"
	"encoding/binary"
	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Fill is an array's fill value in memory form.
type Fill struct {
	// Null records a v2 "fill_value": null (contents undefined; read as
	// zeros, "" or nil objects).
	Null bool
	// Bytes is one element in memory layout, for fixed-size types.
	Bytes []byte
	// Value is the fill of variable-size types: string, []byte, or a JSON value.
	Value any
}

// NaT is NumPy's "not a time" value for datetime64/timedelta64.
const NaT = math.MinInt64

// ZeroFill returns the fill for null: all zero bytes, or nil/"" values.
func (t *DataType) ZeroFill() Fill {
	f := Fill{Null: true, Bytes: make([]byte, t.Size)}
	switch t.Kind {
	case String:
		f.Value = ""
	case VarBytes:
		f.Value = []byte{}
	}
	return f
}

// ParseFillV2 converts a v1/v2 "fill_value" JSON value.
func (t *DataType) ParseFillV2(raw jsonx.RawMessage) (Fill, error) {
	v, err := fillJSON(raw)
	if err != nil {
		return Fill{}, err
	}
	if v == nil {
		return t.ZeroFill(), nil
	}
	switch t.Kind {
	case Bytes, Void, Struct:
		// v2 stores these as base64 of the stored bytes. Legacy writers used
		// 0 (and zarr-python passes undecodable strings through); both mean
		// zeros.
		s, ok := v.(string)
		if !ok {
			if n, isNum := v.(jsonx.Number); isNum && n.String() == "0" {
				return Fill{Bytes: make([]byte, t.Size)}, nil
			}
			return Fill{}, fmtx.Errorf("fill_value for %s must be a base64 string, got %s", t, abbreviate(raw))
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return Fill{}, fmtx.Errorf("fill_value %q for %s is not base64: %v", s, t, err)
		}
		if t.Kind != Bytes && len(b) != t.Size {
			return Fill{}, fmtx.Errorf("fill_value for %s decodes to %d bytes, want %d", t, len(b), t.Size)
		}
		out := make([]byte, t.Size)
		copy(out, b)
		ToLittle(t, out)
		return Fill{Bytes: out}, nil
	}
	return t.FillFromValue(v)
}

// FillFromValue converts a Go value (as decoded from JSON with UseNumber, or
// given by a caller: bool, numbers, jsonx.Number, string, []any for complex)
// to one element of t.
func (t *DataType) FillFromValue(v any) (Fill, error) {
	if t.Variable() {
		switch x := v.(type) {
		case jsonx.Number:
			if i, err := x.Int64(); err == nil {
				return Fill{Value: i}, nil
			}
			f, _ := x.Float64()
			return Fill{Value: f}, nil
		}
		if t.Kind == String {
			s, ok := v.(string)
			if !ok {
				return Fill{}, fmtx.Errorf("fill_value for string must be a string, got %v", v)
			}
			return Fill{Value: s}, nil
		}
		return Fill{Value: v}, nil
	}
	b := make([]byte, t.Size)
	if err := t.encodeScalar(b, v); err != nil {
		return Fill{}, err
	}
	return Fill{Bytes: b}, nil
}

// EncodeScalar writes the element form of v into b (len(b) == t.Size).
func (t *DataType) EncodeScalar(b []byte, v any) error { return t.encodeScalar(b, v) }

func (t *DataType) encodeScalar(b []byte, v any) error {
	switch t.Kind {
	case Bool:
		switch x := v.(type) {
		case bool:
			if x {
				b[0] = 1
			}
			return nil
		case jsonx.Number, float64, int, int64:
			f, err := toFloat(x)
			if err != nil {
				return err
			}
			if f != 0 {
				b[0] = 1
			}
			return nil
		}
	case Int, Uint, Datetime, Timedelta:
		if s, ok := v.(string); ok && s == "NaT" && (t.Kind == Datetime || t.Kind == Timedelta) {
			binary.LittleEndian.PutUint64(b, uint64(1)<<63)
			return nil
		}
		n, err := exactInt(v)
		if err != nil {
			return fmtx.Errorf("fill_value %v for %s: %v", v, t, err)
		}
		if signed, bits, ok := LowPrecInt(t.Format); ok {
			i, inInt64 := n.int64()
			v, fits := Int4Bits(i, signed, bits)
			if !inInt64 || !fits {
				return fmtx.Errorf("fill_value %s is out of range for %s", n, t)
			}
			b[0] = v
			return nil
		}
		u, fits := n.fits(t.Kind == Uint, 8*t.Size)
		if !fits {
			return fmtx.Errorf("fill_value %v is out of range for %s", v, t)
		}
		t.StoreUint64(b, u)
		return nil
	case Float:
		f, err := floatValue(v, t.Size)
		if err != nil {
			return fmtx.Errorf("fill_value for %s: %v", t, err)
		}
		if f.bits != nil {
			t.StoreUint64(b, *f.bits)
			return nil
		}
		if lp, ok := LowPrecFloat(t.Format); ok {
			if math.IsInf(f.f, 0) && !lp.HasInf() {
				return fmtx.Errorf("%s has no infinity", t)
			}
			if _, hasNaN := lp.NaNBits(); math.IsNaN(f.f) && !hasNaN {
				return fmtx.Errorf("%s has no NaN", t)
			}
		}
		t.StoreFloat64(b, f.f)
		return nil
	case Complex:
		parts, ok := v.([]any)
		if !ok {
			parts = []any{v, jsonx.Number("0")}
		}
		if len(parts) != 2 {
			return fmtx.Errorf("fill_value for %s must be [real, imag]", t)
		}
		half := t.ComplexPart()
		for i, p := range parts {
			if err := half.encodeScalar(b[i*half.Size:(i+1)*half.Size], p); err != nil {
				return err
			}
		}
		return nil
	case Unicode:
		s, ok := v.(string)
		if !ok {
			if n, isNum := v.(jsonx.Number); isNum && n.String() == "0" {
				return nil // legacy writers: 0 for an empty string
			}
			return fmtx.Errorf("fill_value for %s must be a string, got %v", t, v)
		}
		return PutUnicode(b, s)
	case Bytes:
		s, ok := v.(string)
		if !ok {
			return fmtx.Errorf("value for %s must be a string, got %v", t, v)
		}
		if len(s) > len(b) {
			return fmtx.Errorf("value %q is longer than %s", s, t)
		}
		copy(b, s)
		return nil
	}
	return fmtx.Errorf("cannot convert %v (%T) to %s", v, v, t)
}

// PutUnicode writes s as UCS4 little-endian code points, NUL padded.
func PutUnicode(b []byte, s string) error {
	i := 0
	for _, r := range s {
		if i+4 > len(b) {
			return fmtx.Errorf("string %q is longer than %d characters", s, len(b)/4)
		}
		binary.LittleEndian.PutUint32(b[i:], uint32(r))
		i += 4
	}
	for ; i < len(b); i++ {
		b[i] = 0
	}
	return nil
}

// Unicode decodes UCS4 little-endian code points, dropping trailing NULs.
func UnicodeString(b []byte) string {
	n := len(b) / 4
	for n > 0 && binary.LittleEndian.Uint32(b[(n-1)*4:]) == 0 {
		n--
	}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		r := rune(binary.LittleEndian.Uint32(b[i*4:]))
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// Latin1String decodes NumPy "S" bytes as Latin-1, dropping trailing NULs.
func Latin1String(b []byte) string {
	b = trimNUL(b)
	rs := make([]rune, len(b))
	for i, c := range b {
		rs[i] = rune(c)
	}
	return string(rs)
}

type floatVal struct {
	f    float64
	bits *uint64
}

func floatValue(v any, size int) (floatVal, error) {
	switch x := v.(type) {
	case string:
		switch x {
		case "NaN", "nan":
			return floatVal{f: canonicalNaN}, nil
		case "Infinity", "inf":
			return floatVal{f: math.Inf(1)}, nil
		case "-Infinity", "-inf":
			return floatVal{f: math.Inf(-1)}, nil
		}
		if strings.HasPrefix(x, "0x") || strings.HasPrefix(x, "0X") {
			if len(x)-2 != 2*size {
				return floatVal{}, fmtx.Errorf("hex fill %q must have %d hex digits", x, 2*size)
			}
			u, err := strconv.ParseUint(x[2:], 16, 64)
			if err != nil {
				return floatVal{}, fmtx.Errorf("bad hex fill %q", x)
			}
			return floatVal{bits: &u}, nil
		}
		return floatVal{}, fmtx.Errorf("%q is not a number, \"NaN\", \"Infinity\", \"-Infinity\" or hex bits", x)
	}
	f, err := toFloat(v)
	return floatVal{f: f}, err
}

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case jsonx.Number:
		return strconv.ParseFloat(string(x), 64)
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmtx.Errorf("%v (%T) is not a number", v, v)
}

// exactInteger is an integer fill value exactly (int64 and uint64 values
// above 2^53 do not pass through float64): its sign and magnitude, or, for a
// magnitude of 2^64 or more (out of range of every integer type), its
// decimal digits only.
type exactInteger struct {
	neg  bool
	mag  uint64
	huge string // the magnitude's decimal digits when it is 2^64 or more
}

func (n exactInteger) String() string {
	m := n.huge
	if m == "" {
		m = strconv.FormatUint(n.mag, 10)
	}
	if n.neg && m != "0" {
		return "-" + m
	}
	return m
}

// int64 is n as an int64, and whether it is in range.
func (n exactInteger) int64() (int64, bool) {
	switch {
	case n.huge != "":
		return 0, false
	case n.neg:
		return -int64(n.mag), n.mag <= 1<<63
	default:
		return int64(n.mag), n.mag < 1<<63
	}
}

// fits reports whether n is in range of an integer of the given width
// (unsigned or two's complement), and its bits as a uint64 then.
func (n exactInteger) fits(unsigned bool, bits int) (uint64, bool) {
	if n.huge != "" {
		return 0, false
	}
	if unsigned {
		return n.mag, !(n.neg && n.mag != 0) && (bits == 64 || n.mag < 1<<uint(bits))
	}
	limit := uint64(1) << uint(bits-1) // |min|; max is limit-1
	if n.neg {
		return -n.mag, n.mag <= limit
	}
	return n.mag, n.mag < limit
}

// exactFromFloat is an integral float's exact value.
func exactFromFloat(f float64) exactInteger {
	n := exactInteger{neg: f < 0}
	a := math.Abs(f)
	if a >= 1<<64 {
		n.huge = strings.TrimPrefix(strconv.FormatFloat(f, 'f', 0, 64), "-")
		return n
	}
	n.mag = uint64(a)
	return n
}

// exactInt converts a JSON number or Go integer to its exact integer value
// without passing through float64. Floats with an integral value (0.0) are
// accepted.
func exactInt(v any) (exactInteger, error) {
	switch x := v.(type) {
	case jsonx.Number:
		s := string(x)
		digits := strings.TrimLeft(s, "+-")
		if len(s)-len(digits) <= 1 && digits != "" && strings.Trim(digits, "0123456789") == "" {
			n := exactInteger{neg: s[0] == '-'}
			if m, err := strconv.ParseUint(digits, 10, 64); err == nil {
				n.mag = m
			} else if d := strings.TrimLeft(digits, "0"); d != "" {
				n.huge = d
			}
			return n, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
			return exactInteger{}, fmtx.Errorf("%s is not an integer", x)
		}
		return exactFromFloat(f), nil
	case int:
		return exactInt(int64(x))
	case int64:
		if x < 0 {
			return exactInteger{neg: true, mag: -uint64(x)}, nil
		}
		return exactInteger{mag: uint64(x)}, nil
	case uint64:
		return exactInteger{mag: x}, nil
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || math.IsNaN(x) {
			return exactInteger{}, fmtx.Errorf("%v is not an integer", x)
		}
		return exactFromFloat(x), nil
	case bool:
		if x {
			return exactInteger{mag: 1}, nil
		}
		return exactInteger{}, nil
	}
	return exactInteger{}, fmtx.Errorf("%v (%T) is not an integer", v, v)
}

// ToLittle converts elements in place from t's stored byte order to the
// in-memory little-endian layout; FromLittle is the same operation (a swap is
// its own inverse) for writing.
func ToLittle(t *DataType, data []byte) { SwapTo(t, data, Unset) }

// SwapTo swaps, in place, every leaf stored big-endian. A leaf whose Endian
// is Unset takes codecEndian. data holds whole elements of t.
func SwapTo(t *DataType, data []byte, codecEndian byte) {
	if t.Size == 0 {
		return
	}
	leaves := t.Leaves(0, nil)
	var swap []Leaf
	for _, l := range leaves {
		e := l.Endian
		if e == Unset {
			e = codecEndian
		}
		if e == Big {
			swap = append(swap, l)
		}
	}
	if len(swap) == 0 {
		return
	}
	if len(swap) == 1 && swap[0].Width == t.Size {
		swapUniform(data, t.Size)
		return
	}
	for off := 0; off+t.Size <= len(data); off += t.Size {
		for _, l := range swap {
			reverse(data[off+l.Offset : off+l.Offset+l.Width])
		}
	}
}

func swapUniform(data []byte, width int) {
	n := len(data) / width * width
	switch width {
	case 2:
		for i := 0; i+1 < n; i += 2 {
			data[i], data[i+1] = data[i+1], data[i]
		}
	case 4:
		for i := 0; i+3 < n; i += 4 {
			v := binary.BigEndian.Uint32(data[i:])
			binary.LittleEndian.PutUint32(data[i:], v)
		}
	case 8:
		for i := 0; i+7 < n; i += 8 {
			v := binary.BigEndian.Uint64(data[i:])
			binary.LittleEndian.PutUint64(data[i:], v)
		}
	default:
		for i := 0; i+width <= n; i += width {
			reverse(data[i : i+width])
		}
	}
}

func reverse(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}

// FillV2JSON returns the v2 JSON form of a fill value.
func (t *DataType) FillV2JSON(f Fill) (any, error) {
	if f.Null {
		return nil, nil
	}
	if t.Variable() {
		return f.Value, nil
	}
	b := f.Bytes
	switch t.Kind {
	case Bool:
		return b[0] != 0, nil
	case Int, Datetime, Timedelta:
		return jsonx.Number(strconv.FormatInt(t.LoadInt64(b), 10)), nil
	case Uint:
		return jsonx.Number(strconv.FormatUint(t.LoadUint64(b), 10)), nil
	case Float:
		return floatJSON(t.LoadFloat64(b)), nil
	case Complex:
		h := t.ComplexPart()
		return []any{floatJSON(h.LoadFloat64(b)), floatJSON(h.LoadFloat64(b[h.Size:]))}, nil
	case Unicode:
		return UnicodeString(b), nil
	case Bytes, Void, Struct:
		stored := append([]byte(nil), b...)
		SwapTo(t, stored, Unset)
		return base64.StdEncoding.EncodeToString(stored), nil
	}
	return nil, fmtx.Errorf("no fill_value form for %s", t)
}

func floatJSON(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

// canonicalNaN is the quiet NaN NumPy and the v3 spec mean by "NaN"
// (math.NaN has a payload bit set).
var canonicalNaN = math.Float64frombits(0x7ff8000000000000)

// fillJSON decodes a fill_value, accepting the bare NaN / Infinity tokens
// zarr-python writes, with exact integers.
func fillJSON(raw jsonx.RawMessage) (any, error) {
	var v any
	if err := jsonx.Unmarshal(raw, &v); err != nil {
		return nil, fmtx.Errorf("fill_value is not valid JSON: %v", err)
	}
	return v, nil
}

// JSONValue gives a decoded JSON value (jsonx.Unmarshal's: jsonx.Number for
// numbers) the types a "json" element has (see IsJSON): integers as int64
// (uint64 above, float64 beyond), other numbers as float64.
func JSONValue(v any) any {
	switch x := v.(type) {
	case jsonx.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i
			}
			if u, err := strconv.ParseUint(s, 10, 64); err == nil {
				return u
			}
		}
		f, _ := strconv.ParseFloat(s, 64)
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = JSONValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = JSONValue(e)
		}
		return out
	}
	return v
}
