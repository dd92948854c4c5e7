package dtype

import (
	"encoding/base64"
	"sort"
	"strconv"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// v3Core maps the names of registry types (see Numeric) to types, without
// the stored byte order (the bytes codec gives it).
func v3Core(name string) *DataType {
	if n := LookupNumeric(name); n != nil {
		return n.newDataType(name)
	}
	return nil
}

// V3Names lists the data type names ParseV3 accepts, for suggestions: the
// registry's (Numeric), their aliases, then the configured and variable types.
var V3Names = v3Names()

func v3Names() []string {
	var names []string
	for _, n := range numerics {
		names = append(names, n.Name)
	}
	for alias := range numericAliases {
		names = append(names, alias)
	}
	sort.Strings(names[len(numerics):])
	return append(names, "string", "json", "bytes", "variable_length_bytes", "fixed_length_utf32", "null_terminated_bytes", "raw_bytes",
		"numpy.datetime64", "numpy.timedelta64", "struct", "structured", "r8", "r16")
}

// ParseV3 parses a v3 "data_type": a name or {"name", "configuration"}.
func ParseV3(raw jsonx.RawMessage) (*DataType, error) {
	var name string
	var cfg map[string]jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(raw, &name); err != nil {
		var obj v3Object
		if err := jsonx.UnmarshalStrict(raw, &obj); err != nil || obj.Name == "" {
			return nil, fmtx.Errorf("data_type must be a name or {\"name\", \"configuration\"}, got %s", abbreviate(raw))
		}
		name, cfg = obj.Name, obj.Configuration
	}
	if t := v3Core(name); t != nil {
		return t, nil
	}
	intCfg := func(key string) (int, error) {
		raw, ok := cfg[key]
		if !ok {
			return 0, fmtx.Errorf("data type %q needs configuration %q", name, key)
		}
		var n int
		if err := jsonx.UnmarshalStrict(raw, &n); err != nil || n < 0 || n > 1<<30 {
			return 0, fmtx.Errorf("data type %q: %q must be a non-negative integer", name, key)
		}
		return n, nil
	}
	switch name {
	case "string":
		return &DataType{Kind: String, Endian: NoOrder, Name: name}, nil
	case "json":
		if len(cfg) != 0 {
			return nil, fmtx.Errorf("data type \"json\" takes no configuration")
		}
		return &DataType{Kind: Object, Endian: NoOrder, Name: name}, nil
	case "bytes", "variable_length_bytes":
		return &DataType{Kind: VarBytes, Endian: NoOrder, Name: name}, nil
	case "fixed_length_utf32":
		n, err := intCfg("length_bytes")
		if err != nil {
			return nil, err
		}
		if n%4 != 0 {
			return nil, fmtx.Errorf("fixed_length_utf32: length_bytes %d is not a multiple of 4", n)
		}
		return &DataType{Kind: Unicode, Size: n, Endian: Unset, Name: name}, nil
	case "fixed-length-ascii", "fixed-length-bytes", "fixed-length-utf32":
		// The registry's pull request 5 (zarr-python 3's early names):
		// NumPy's S, V and U types, sized in bits.
		n, err := intCfg("length_bits")
		if err != nil {
			return nil, err
		}
		unit := 8
		if name == "fixed-length-utf32" {
			unit = 32
		}
		if n%unit != 0 {
			return nil, fmtx.Errorf("%s: length_bits %d is not a multiple of %d", name, n, unit)
		}
		k := map[string]Kind{"fixed-length-ascii": Bytes, "fixed-length-bytes": Void, "fixed-length-utf32": Unicode}[name]
		t := &DataType{Kind: k, Size: n / 8, Endian: NoOrder, Name: name}
		if k == Unicode {
			t.Endian = Unset
		}
		return t, nil
	case "null_terminated_bytes", "raw_bytes":
		n, err := intCfg("length_bytes")
		if err != nil {
			return nil, err
		}
		k := Bytes
		if name == "raw_bytes" {
			k = Void
		}
		return &DataType{Kind: k, Size: n, Endian: NoOrder, Name: name}, nil
	case "numpy.datetime64", "numpy.timedelta64":
		var unit string
		if err := jsonx.UnmarshalStrict(cfg["unit"], &unit); err != nil || !validUnit(unit) || unit == "generic" {
			return nil, fmtx.Errorf("%s: bad or missing unit %s", name, abbreviate(cfg["unit"]))
		}
		scale := 1
		if _, ok := cfg["scale_factor"]; ok {
			var err error
			if scale, err = intCfg("scale_factor"); err != nil || scale < 1 {
				return nil, fmtx.Errorf("%s: scale_factor must be a positive integer", name)
			}
		}
		k := Datetime
		if name == "numpy.timedelta64" {
			k = Timedelta
		}
		return &DataType{Kind: k, Size: 8, Endian: Unset, Unit: unit, Scale: scale, Name: name}, nil
	case "struct", "structured":
		return parseV3Struct(name, cfg["fields"])
	case "optional", "zarrs.optional":
		return parseV3Optional(name, cfg)
	}
	if strings.HasPrefix(name, "r") {
		if bits, err := strconv.Atoi(name[1:]); err == nil && bits > 0 && bits%8 == 0 && bits <= 1<<24 {
			return &DataType{Kind: Void, Size: bits / 8, Endian: NoOrder, Name: name}, nil
		}
	}
	if why, ok := refusedV3Types[name]; ok {
		return nil, &UnsupportedError{fmtx.Sprintf("data type %q is not supported: %s", name, why)}
	}
	return nil, &UnsupportedError{fmtx.Sprintf("unknown data type %q", name)}
}

// refusedV3Types are data types the registry's pull requests propose that
// this engine does not read, with the reason.
var refusedV3Types = map[string]string{
	"binary_fixed_point": "refused (pull request 40, open): nothing here writes it to check against (not zarrs, zarr-python 2.13 or numcodecs)",
	"fixed_size_list":    "refused (pull request 62, open): nothing here writes it to check against (not zarrs, zarr-python 2.13 or numcodecs)",
	"label_multiset":     "refused (pull request 55, open): per-voxel (label, count) lists have no array form in this API; nothing here writes them (Paintera is Java)",
}

// parseV3Optional reads an optional type: its configuration names the inner
// type ({"name", "configuration"}). Values of a fixed-size inner type are
// held with a mask byte beside them (see DataType.Optional).
func parseV3Optional(name string, cfg map[string]jsonx.RawMessage) (*DataType, error) {
	raw, err := jsonx.MarshalStrict(cfg)
	if err != nil || cfg["name"] == nil {
		return nil, fmtx.Errorf("%s: configuration must name the inner data type", name)
	}
	inner, err := ParseV3(raw)
	if err != nil {
		return nil, err
	}
	if inner.Variable() {
		// values held as the inner type's, nil where missing
		if inner.Optional || inner.Kind == Object {
			return nil, &UnsupportedError{fmtx.Sprintf("%s of %s is not supported", name, inner)}
		}
		return &DataType{Kind: inner.Kind, Endian: NoOrder, Name: name, Optional: true,
			Fields: []Field{{Name: "data", Type: inner}}}, nil
	}
	mask := NewBool()
	return &DataType{Kind: Struct, Size: inner.Size + 1, Endian: NoOrder, Name: name, Optional: true,
		Fields: []Field{{Name: "data", Type: inner}, {Name: "mask", Type: mask, Offset: inner.Size}}}, nil
}

func parseV3Struct(name string, raw jsonx.RawMessage) (*DataType, error) {
	var fields []jsonx.RawMessage
	if err := jsonx.UnmarshalStrict(raw, &fields); err != nil || len(fields) == 0 {
		return nil, fmtx.Errorf("%s: configuration \"fields\" must be a non-empty list", name)
	}
	t := &DataType{Kind: Struct, Endian: NoOrder, Name: name}
	seen := map[string]bool{}
	for i, fr := range fields {
		var fname string
		var ftype jsonx.RawMessage
		var obj v3StructField
		var pair []jsonx.RawMessage
		switch {
		case jsonx.UnmarshalStrict(fr, &obj) == nil && obj.Name != "":
			fname, ftype = obj.Name, obj.DataType
		case jsonx.UnmarshalStrict(fr, &pair) == nil && len(pair) == 2 && jsonx.UnmarshalStrict(pair[0], &fname) == nil:
			ftype = pair[1]
		default:
			return nil, fmtx.Errorf("%s: field %d must be {\"name\", \"data_type\"} or [name, type]", name, i)
		}
		if seen[fname] {
			return nil, fmtx.Errorf("%s: field %q appears twice", name, fname)
		}
		seen[fname] = true
		ft, err := ParseV3(ftype)
		if err != nil {
			// Legacy "structured" may name fields with NumPy typestrs.
			if ft2, err2 := ParseV2(ftype); err2 == nil {
				ft, err = ft2, nil
			}
		}
		if err != nil {
			return nil, fmtx.Errorf("%s: field %q: %w", name, fname, err)
		}
		if ft.Variable() {
			return nil, fmtx.Errorf("%s: field %q has a variable-size type", name, fname)
		}
		if t.Size+ft.Size > 1<<30 {
			return nil, fmtx.Errorf("%s: too large", name)
		}
		t.Fields = append(t.Fields, Field{Name: fname, Type: ft, Offset: t.Size})
		t.Size += ft.Size
	}
	return t, nil
}

// V3JSON returns the v3 "data_type" value for t.
func (t *DataType) V3JSON() (any, error) {
	if t.Optional {
		inner, err := t.Fields[0].Type.V3JSON()
		if err != nil {
			return nil, err
		}
		if name, ok := inner.(string); ok {
			inner = map[string]any{"name": name, "configuration": map[string]any{}}
		}
		return map[string]any{"name": t.Name, "configuration": inner}, nil
	}
	if n := t.Numeric(); n != nil {
		return n.Name, nil
	}
	if strings.HasPrefix(t.Name, "fixed-length-") && t.Kind != Struct {
		return map[string]any{"name": t.Name, "configuration": map[string]any{"length_bits": t.Size * 8}}, nil
	}
	switch t.Kind {
	case String:
		return "string", nil
	case VarBytes, Object:
		if t.Name == "variable_length_bytes" {
			return t.Name, nil
		}
		if t.IsJSON() {
			return t.Name, nil
		}
		if t.Kind == Object {
			return nil, fmtx.Errorf("object arrays have no v3 data type; use string, bytes or json")
		}
		return "bytes", nil
	case Unicode:
		return map[string]any{"name": "fixed_length_utf32", "configuration": map[string]any{"length_bytes": t.Size}}, nil
	case Bytes:
		return map[string]any{"name": "null_terminated_bytes", "configuration": map[string]any{"length_bytes": t.Size}}, nil
	case Void:
		if strings.HasPrefix(t.Name, "raw_bytes") {
			return map[string]any{"name": "raw_bytes", "configuration": map[string]any{"length_bytes": t.Size}}, nil
		}
		return fmtx.Sprintf("r%d", t.Size*8), nil
	case Datetime, Timedelta:
		name := "numpy.datetime64"
		if t.Kind == Timedelta {
			name = "numpy.timedelta64"
		}
		return map[string]any{"name": name, "configuration": map[string]any{"unit": t.Unit, "scale_factor": max(t.Scale, 1)}}, nil
	case Struct:
		fields := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			if len(f.Shape) > 0 {
				return nil, fmtx.Errorf("field %q has a subarray shape, which v3 struct cannot express", f.Name)
			}
			ft, err := f.Type.V3JSON()
			if err != nil {
				return nil, err
			}
			fields[i] = map[string]any{"name": f.Name, "data_type": ft}
		}
		return map[string]any{"name": "struct", "configuration": map[string]any{"fields": fields}}, nil
	}
	return nil, fmtx.Errorf("%s has no v3 data type", t)
}

// ParseFillV3 converts a v3 "fill_value" for t.
func (t *DataType) ParseFillV3(raw jsonx.RawMessage) (Fill, error) {
	v, err := fillJSON(raw)
	if err != nil {
		return Fill{}, err
	}
	return t.fillV3(v)
}

func (t *DataType) fillV3(v any) (Fill, error) {
	if t.Optional && t.Variable() {
		if v == nil {
			return Fill{Null: true}, nil // missing
		}
		l, ok := v.([]any)
		if !ok || len(l) != 1 {
			return Fill{}, fmtx.Errorf("an optional fill_value is null or a one-element list, got %v", v)
		}
		return t.Fields[0].Type.fillV3(l[0])
	}
	if t.Optional {
		// null: missing (mask 0); [x]: the inner fill x, present.
		out := make([]byte, t.Size)
		if v == nil {
			return Fill{Bytes: out}, nil
		}
		l, ok := v.([]any)
		if !ok || len(l) != 1 {
			return Fill{}, fmtx.Errorf("an optional fill_value is null or a one-element list, got %v", v)
		}
		inner, err := t.Fields[0].Type.fillV3(l[0])
		if err != nil {
			return Fill{}, err
		}
		copy(out, inner.Bytes)
		out[t.Size-1] = 1
		return Fill{Bytes: out}, nil
	}
	if t.IsJSON() {
		return Fill{Value: JSONValue(v)}, nil // any JSON value, null too
	}
	if v == nil {
		// Not allowed by the core spec, but written for extension types
		// (and by older writers); read as the zero value.
		return t.ZeroFill(), nil
	}
	switch t.Kind {
	case String:
		s, ok := v.(string)
		if !ok {
			return Fill{}, fmtx.Errorf("fill_value for string must be a string, got %v", v)
		}
		return Fill{Value: s}, nil
	case VarBytes:
		b, err := bytesFill(v, -1)
		if err != nil {
			return Fill{}, err
		}
		return Fill{Value: b}, nil
	case Void, Bytes:
		b, err := bytesFill(v, t.Size)
		if err != nil {
			return Fill{}, err
		}
		out := make([]byte, t.Size)
		copy(out, b)
		return Fill{Bytes: out}, nil
	case Struct:
		if s, ok := v.(string); ok {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil || len(b) != t.Size {
				return Fill{}, fmtx.Errorf("struct fill_value must be an object by field or base64 of %d bytes", t.Size)
			}
			return Fill{Bytes: b}, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return Fill{}, fmtx.Errorf("struct fill_value must be an object keyed by field name")
		}
		out := make([]byte, t.Size)
		for _, f := range t.Fields {
			fv, ok := m[f.Name]
			if !ok {
				return Fill{}, fmtx.Errorf("struct fill_value lacks field %q", f.Name)
			}
			ff, err := f.Type.fillV3(fv)
			if err != nil {
				return Fill{}, fmtx.Errorf("field %q: %w", f.Name, err)
			}
			copy(out[f.Offset:], ff.Bytes)
		}
		return Fill{Bytes: out}, nil
	}
	if s, ok := v.(string); ok && t.Format != "" && strings.HasPrefix(s, "0x") {
		u, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil || len(s)-2 != 2*t.Size {
			return Fill{}, fmtx.Errorf("hex fill %q must have %d hex digits", s, 2*t.Size)
		}
		b := make([]byte, t.Size)
		t.StoreUint64(b, u)
		return Fill{Bytes: b}, nil
	}
	return t.FillFromValue(v)
}

// bytesFill reads a fill given as a list of byte values or a base64 string.
func bytesFill(v any, size int) ([]byte, error) {
	switch x := v.(type) {
	case string:
		b, err := base64.StdEncoding.DecodeString(x)
		if err != nil {
			return nil, fmtx.Errorf("bytes fill_value %q is not base64", x)
		}
		return b, nil
	case []any:
		b := make([]byte, len(x))
		for i, e := range x {
			n, ok := e.(jsonx.Number)
			k, err := n.Int64()
			if !ok || err != nil || k < 0 || k > 255 {
				return nil, fmtx.Errorf("bytes fill_value entry %d must be 0..255", i)
			}
			b[i] = byte(k)
		}
		if size >= 0 && len(b) != size {
			return nil, fmtx.Errorf("fill_value has %d bytes, the type has %d", len(b), size)
		}
		return b, nil
	}
	return nil, fmtx.Errorf("bytes fill_value must be a list of byte values or base64")
}

// FillV3JSON returns the v3 JSON form of a fill value.
func (t *DataType) FillV3JSON(f Fill) (any, error) {
	if t.Optional {
		inner := t.Fields[0].Type
		if f.Null || (!t.Variable() && (f.Bytes == nil || f.Bytes[t.Size-1] == 0)) {
			return nil, nil // missing
		}
		if !t.Variable() {
			f = Fill{Bytes: f.Bytes[:inner.Size]}
		}
		v, err := inner.FillV3JSON(f)
		return []any{v}, err
	}
	switch t.Kind {
	case String:
		if f.Value == nil {
			return "", nil
		}
		return f.Value, nil
	case Object:
		if t.IsJSON() {
			return f.Value, nil
		}
	case VarBytes:
		b, _ := f.Value.([]byte)
		out := make([]any, len(b))
		for i, c := range b {
			out[i] = int(c)
		}
		return out, nil
	case Void, Bytes:
		out := make([]any, len(f.Bytes))
		for i, c := range f.Bytes {
			out[i] = int(c)
		}
		if t.Kind == Bytes {
			return base64.StdEncoding.EncodeToString(f.Bytes), nil
		}
		return out, nil
	case Struct:
		m := map[string]any{}
		for _, fl := range t.Fields {
			fv, err := fl.Type.FillV3JSON(Fill{Bytes: f.Bytes[fl.Offset : fl.Offset+fl.Type.Size]})
			if err != nil {
				return nil, err
			}
			m[fl.Name] = fv
		}
		return m, nil
	case Datetime, Timedelta:
		if f.Bytes != nil && t.LoadInt64(f.Bytes) == NaT {
			return "NaT", nil
		}
	}
	if t.Format != "" && t.Kind == Float {
		return fmtx.Sprintf("0x%0*x", 2*t.Size, t.LoadUint64(f.Bytes)), nil
	}
	if f.Bytes == nil {
		f = t.ZeroFill()
	}
	return t.FillV2JSON(Fill{Bytes: f.Bytes})
}

// The JSON objects v3 data types decode, described to jsonx (no reflect in
// the core build).

type v3Object struct {
	Name          string                      `json:"name"`
	Configuration map[string]jsonx.RawMessage `json:"configuration"`
}

func (o *v3Object) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("name", &o.Name), jsonx.F("configuration", &o.Configuration)}
}

type v3StructField struct {
	Name     string           `json:"name"`
	DataType jsonx.RawMessage `json:"data_type"`
}

func (f *v3StructField) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("name", &f.Name), jsonx.F("data_type", &f.DataType)}
}
