package dtype

import "github.com/zarr-wasm/zarr-wasm/internal/fmtx"

// CommonName is the data type's name in one vocabulary for every format:
// the v3 name where v3 has a plain one ("float32", "int64", "bool",
// "string", "bytes", "bfloat16"), NumPy's for datetimes ("datetime64[ns]",
// "timedelta64[10s]"), zarrita.js's for fixed-size strings ("v2:U13",
// "v2:S7") and objects ("v2:object"), "r<bits>" for raw bytes and "struct"
// for structured types (Describe gives their fields). The stored byte order
// is not part of the name.
func (t *DataType) CommonName() string {
	if t.Optional {
		return "optional(" + t.Fields[0].Type.CommonName() + ")"
	}
	if n := t.Numeric(); n != nil {
		return n.Name
	}
	switch t.Kind {
	case Datetime, Timedelta:
		return t.Kind.String() + unitSuffix(t)
	case Bytes:
		return fmtx.Sprintf("v2:S%d", t.Size)
	case Unicode:
		return fmtx.Sprintf("v2:U%d", t.Size/4)
	case Void:
		return fmtx.Sprintf("r%d", t.Size*8)
	case String:
		return "string"
	case VarBytes:
		return "bytes"
	case Object:
		if t.IsJSON() {
			return "json"
		}
		return "v2:object"
	case Struct:
		return "struct"
	}
	return t.Kind.String()
}

// Describe is CommonName for every type but a struct, which is described
// as {"name": "struct", "fields": [{"name", "dtype", "shape"?}]} with each
// field's type described the same way.
func (t *DataType) Describe() any {
	if t.Kind != Struct || t.Optional {
		return t.CommonName()
	}
	fields := make([]any, len(t.Fields))
	for i, f := range t.Fields {
		d := map[string]any{"name": f.Name, "dtype": f.Type.Describe()}
		if len(f.Shape) > 0 {
			shape := make([]any, len(f.Shape))
			for k, n := range f.Shape {
				shape[k] = n
			}
			d["shape"] = shape
		}
		fields[i] = d
	}
	return map[string]any{"name": "struct", "fields": fields}
}
