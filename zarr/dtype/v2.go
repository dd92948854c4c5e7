package dtype

import (
	"sort"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// ParseV2 parses a v1/v2 "dtype": a NumPy typestr ("<i4", "|S5", "<M8[ns]")
// or a structured descr list ([["x", "<f4"], ["y", "<i2", [2, 2]]]).
func ParseV2(raw jsonx.RawMessage) (*DataType, error) {
	var s string
	if err := jsonx.UnmarshalStrict(raw, &s); err == nil {
		return ParseTypestr(s)
	}
	var descr []jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(raw, &descr); err != nil {
		return nil, fmtx.Errorf("dtype must be a typestr or a list of fields, got %s", abbreviate(raw))
	}
	return parseDescr(descr)
}

func abbreviate(raw []byte) string {
	s := string(raw)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func parseDescr(descr []jsonx.RawMessage) (*DataType, error) {
	t := &DataType{Kind: Struct, Endian: NoOrder}
	seen := map[string]bool{}
	for i, fr := range descr {
		var parts []jsonx.RawMessage
		if err := jsonx.UnmarshalStrict(fr, &parts); err != nil || len(parts) < 2 || len(parts) > 3 {
			return nil, fmtx.Errorf("field %d: expected [name, dtype] or [name, dtype, shape], got %s", i, abbreviate(fr))
		}
		var name string
		if err := jsonx.UnmarshalStrict(parts[0], &name); err != nil {
			return nil, fmtx.Errorf("field %d: name must be a string", i)
		}
		if name != "" && seen[name] {
			return nil, fmtx.Errorf("field %q appears twice", name)
		}
		seen[name] = true
		ft, err := ParseV2(parts[1])
		if err != nil {
			return nil, fmtx.Errorf("field %q: %w", name, err)
		}
		if ft.Variable() {
			return nil, fmtx.Errorf("field %q: object fields are not supported in structured types", name)
		}
		f := Field{Name: name, Type: ft, Offset: t.Size}
		if len(parts) == 3 {
			var shape []int
			if err := jsonx.UnmarshalStrict(parts[2], &shape); err != nil {
				return nil, fmtx.Errorf("field %q: shape must be a list of integers", name)
			}
			for _, n := range shape {
				if n < 0 || n > 1<<20 {
					return nil, fmtx.Errorf("field %q: bad subarray dimension %d", name, n)
				}
			}
			f.Shape = shape
		}
		size := ft.Size
		for _, n := range f.Shape {
			if n != 0 && size > (1<<30)/n {
				return nil, fmtx.Errorf("field %q: structured type too large", name)
			}
			size *= n
		}
		if t.Size+size > 1<<30 {
			return nil, fmtx.Errorf("field %q: structured type too large", name)
		}
		t.Size += size
		t.Fields = append(t.Fields, f)
	}
	if len(t.Fields) == 0 {
		return nil, fmtx.Errorf("structured dtype has no fields")
	}
	return t, nil
}

// V2ExtensionNames are the TensorStore extension data types a v2 "dtype"
// may name instead of a NumPy typestr (TensorStore's zarr2 driver
// documentation): little-endian, sub-byte integers padded to a byte. They
// are the registry entries marked V2Ext, sorted.
var V2ExtensionNames = v2ExtensionNames()

func v2ExtensionNames() []string {
	var names []string
	for _, n := range numerics {
		if n.V2Ext {
			names = append(names, n.Name)
		}
	}
	sort.Strings(names)
	return names
}

// v2Extension returns the type of a TensorStore extension name, or nil.
func v2Extension(s string) *DataType {
	n := LookupNumeric(s)
	if n == nil || !n.V2Ext {
		return nil
	}
	t := n.newDataType(s)
	if t.Endian == Unset {
		t.Endian = Little
	}
	return t
}

// ParseTypestr parses a NumPy array-protocol typestr, or one of
// V2ExtensionNames.
func ParseTypestr(s string) (*DataType, error) {
	if t := v2Extension(s); t != nil {
		return t, nil
	}
	if len(s) < 2 {
		return nil, fmtx.Errorf("invalid dtype %q", s)
	}
	order := s[0]
	rest := s[1:]
	if order != '<' && order != '>' && order != '|' && order != '=' {
		// NumPy also accepts typestrs without an order character ("i4").
		order = '|'
		rest = s
	}
	if order == '=' {
		order = Little
	}
	if rest == "O" {
		return &DataType{Kind: Object, Endian: NoOrder, Name: s}, nil
	}
	code := rest[0]
	numStr := rest[1:]
	unit := ""
	if code == 'M' || code == 'm' {
		i := strings.IndexByte(numStr, '[')
		if i < 0 || !strings.HasSuffix(numStr, "]") {
			return nil, fmtx.Errorf("invalid dtype %q: datetime types need a unit, e.g. \"<M8[ns]\"", s)
		}
		unit = numStr[i+1 : len(numStr)-1]
		numStr = numStr[:i]
	}
	n, err := strconv.Atoi(numStr)
	if err != nil || n < 0 || n > 1<<30 {
		return nil, fmtx.Errorf("invalid dtype %q", s)
	}
	t := &DataType{Size: n, Endian: order, Name: s}
	switch code {
	case 'b':
		t.Kind = Bool
		if n != 1 {
			return nil, fmtx.Errorf("invalid dtype %q: bool is 1 byte", s)
		}
	case 'i', 'u':
		t.Kind = Int
		if code == 'u' {
			t.Kind = Uint
		}
		if n != 1 && n != 2 && n != 4 && n != 8 {
			return nil, fmtx.Errorf("invalid dtype %q: integers are 1, 2, 4 or 8 bytes", s)
		}
	case 'f':
		t.Kind = Float
		if n != 2 && n != 4 && n != 8 {
			return nil, unsupportedf("dtype %q: floats of %d bytes are not supported (2, 4 or 8)", s, n)
		}
	case 'c':
		t.Kind = Complex
		if n != 8 && n != 16 {
			return nil, unsupportedf("dtype %q: complex numbers of %d bytes are not supported (8 or 16)", s, n)
		}
	case 'M', 'm':
		t.Kind = Datetime
		if code == 'm' {
			t.Kind = Timedelta
		}
		if n != 8 {
			return nil, fmtx.Errorf("invalid dtype %q: datetime types are 8 bytes", s)
		}
		scale := 1
		j := 0
		for j < len(unit) && unit[j] >= '0' && unit[j] <= '9' {
			j++
		}
		if j > 0 {
			scale, err = strconv.Atoi(unit[:j])
			if err != nil || scale < 1 {
				return nil, fmtx.Errorf("invalid dtype %q: bad unit scale", s)
			}
		}
		t.Unit, t.Scale = unit[j:], scale
		if !validUnit(t.Unit) || t.Unit == "generic" {
			return nil, fmtx.Errorf("invalid dtype %q: unknown datetime unit %q", s, t.Unit)
		}
	case 'S', 'a':
		t.Kind = Bytes
	case 'U':
		t.Kind = Unicode
		if n > 1<<28 {
			return nil, fmtx.Errorf("invalid dtype %q: too long", s)
		}
		t.Size = 4 * n
	case 'V':
		t.Kind = Void
	default:
		return nil, fmtx.Errorf("invalid dtype %q: unknown type code %q", s, string(code))
	}
	if t.Size <= 1 && t.Kind != Unicode {
		t.Endian = NoOrder
	}
	if t.Kind == Bytes || t.Kind == Void {
		t.Endian = NoOrder
	}
	if t.Kind == Unicode && t.Endian == NoOrder {
		t.Endian = Little
	}
	return t, nil
}

// UnsupportedError marks a valid but unsupported type (as opposed to an
// invalid one), so callers can report UNSUPPORTED rather than INVALID_METADATA.
type UnsupportedError struct{ Msg string }

func (e *UnsupportedError) Error() string { return e.Msg }

func unsupportedf(format string, args ...any) error {
	return &UnsupportedError{fmtx.Sprintf(format, args...)}
}

// V2String returns the NumPy typestr of a non-struct type (for
// TensorStore's extension types, their name).
func (t *DataType) V2String() (string, error) {
	o := string(t.Endian)
	if t.Endian == Unset {
		o = "<"
	}
	if n := t.Numeric(); n != nil {
		switch {
		case n.V2Ext && t.Endian != Big:
			return n.Name, nil
		case n.Typestr == "":
			return "", fmtx.Errorf("%s has no v2 dtype", t)
		case n.Size == 1:
			return "|" + n.Typestr, nil
		}
		return o + n.Typestr, nil
	}
	switch t.Kind {
	case Datetime:
		return o + "M8" + unitSuffix(t), nil
	case Timedelta:
		return o + "m8" + unitSuffix(t), nil
	case Bytes:
		return "|S" + strconv.Itoa(t.Size), nil
	case Unicode:
		return o + "U" + strconv.Itoa(t.Size/4), nil
	case Void:
		return "|V" + strconv.Itoa(t.Size), nil
	case Object, String, VarBytes:
		return "|O", nil
	}
	return "", fmtx.Errorf("%s has no NumPy typestr", t.Kind)
}

// V2JSON returns the v2 "dtype" JSON value: a typestr or a descr list.
func (t *DataType) V2JSON() (any, error) {
	if t.Kind != Struct {
		return t.V2String()
	}
	descr := make([]any, len(t.Fields))
	for i, f := range t.Fields {
		ft, err := f.Type.V2JSON()
		if err != nil {
			return nil, err
		}
		entry := []any{f.Name, ft}
		if f.Shape != nil {
			shape := make([]any, len(f.Shape))
			for j, n := range f.Shape {
				shape[j] = n
			}
			entry = append(entry, shape)
		}
		descr[i] = entry
	}
	return descr, nil
}

// MustParseV2 parses a typestr JSON text and panics on error; for tests and
// tables of known types.
func MustParseV2(s string) *DataType {
	raw, _ := jsonx.Marshal(s, "")
	t, err := ParseV2(raw)
	if err != nil {
		panic(err)
	}
	return t
}
