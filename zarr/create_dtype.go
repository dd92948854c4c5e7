// The data type and fill value of a new array: ArrayOptions.DType and
// FillValue in the forms they accept, as a dtype.DataType and dtype.Fill.

package zarr

import (
	"math"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// parseDTypeOption accepts the forms ArrayOptions.DType documents and
// returns the v2 JSON form.
func parseDTypeOption(v any) (*dtype.DataType, error) {
	bad := func(err error) error { return errs.Wrap(errs.InvalidMetadata, "dtype", err, "bad data type") }
	switch x := v.(type) {
	case nil:
		return nil, errs.New(errs.InvalidMetadata, "dtype", "a data type is required")
	case *dtype.DataType:
		return x, nil
	case string:
		if t := coreName(x); t != "" {
			x = t
		}
		raw, _ := jsonx.MarshalStrict(x)
		t, err := dtype.ParseV2(raw)
		if err == nil {
			return t, nil
		}
		if t3, err3 := dtype.ParseV3(raw); err3 == nil {
			return t3, nil
		}
		return nil, bad(err)
	case map[string]any:
		if descr, ok, err := structDescr(x); ok {
			if err != nil {
				return nil, bad(err)
			}
			return parseDTypeOption(descr)
		}
		raw, err := jsonx.MarshalStrict(x)
		if err != nil {
			return nil, bad(err)
		}
		t, err := dtype.ParseV3(raw)
		if err != nil {
			return nil, bad(err)
		}
		return t, nil
	default:
		raw, err := jsonx.MarshalStrict(x)
		if err != nil {
			return nil, bad(err)
		}
		t, err := dtype.ParseV2(raw)
		if err != nil {
			return nil, bad(err)
		}
		return t, nil
	}
}

// coreName maps v3 core data type names to NumPy typestrs.
func coreName(s string) string {
	switch s {
	case "bool":
		return "|b1"
	case "int8":
		return "|i1"
	case "uint8":
		return "|u1"
	case "int16", "int32", "int64":
		return "<i" + byteWidth(s[3:])
	case "uint16", "uint32", "uint64":
		return "<u" + byteWidth(s[4:])
	case "float16", "float32", "float64":
		return "<f" + byteWidth(s[5:])
	case "complex64":
		return "<c8"
	case "complex128":
		return "<c16"
	case "v2:object":
		return "|O"
	}
	// The rest of dtype.DataType.CommonName's vocabulary.
	switch {
	case strings.HasPrefix(s, "v2:U"):
		return "<U" + s[4:]
	case strings.HasPrefix(s, "v2:S"):
		return "|S" + s[4:]
	case strings.HasPrefix(s, "datetime64["):
		return "<M8" + s[len("datetime64"):]
	case strings.HasPrefix(s, "timedelta64["):
		return "<m8" + s[len("timedelta64"):]
	}
	return ""
}

// structDescr turns a struct as dtype.DataType.Describe gives it
// ({"name": "struct", "fields": [{"name", "dtype", "shape"?}]}) into a
// NumPy descr list; ok is false for other maps.
func structDescr(m map[string]any) ([]any, bool, error) {
	fields, ok := m["fields"].([]any)
	if m["name"] != "struct" || !ok {
		return nil, false, nil
	}
	descr := make([]any, len(fields))
	for i, f := range fields {
		fm, ok := f.(map[string]any)
		name, ok2 := fm["name"].(string)
		if !ok || !ok2 {
			return nil, true, fmtx.Errorf("struct field %d must be {name, dtype, shape?}", i)
		}
		var ft any
		switch x := fm["dtype"].(type) {
		case string:
			ft = x
			if t := coreName(x); t != "" {
				ft = t
			}
		case map[string]any:
			sub, ok, err := structDescr(x)
			if err != nil {
				return nil, true, err
			}
			if !ok {
				return nil, true, fmtx.Errorf("struct field %q: bad dtype", name)
			}
			ft = sub
		default:
			return nil, true, fmtx.Errorf("struct field %q: bad dtype", name)
		}
		entry := []any{name, ft}
		if shape, ok := fm["shape"].([]any); ok && len(shape) > 0 {
			entry = append(entry, shape)
		}
		descr[i] = entry
	}
	return descr, true, nil
}

func byteWidth(bits string) string {
	switch bits {
	case "16":
		return "2"
	case "32":
		return "4"
	case "64":
		return "8"
	}
	return "1"
}

// fillOption converts ArrayOptions.FillValue (nil: the type's zero).
func fillOption(p string, dt *dtype.DataType, opt ArrayOptions) (dtype.Fill, error) {
	if opt.NoFill {
		return dt.ZeroFill(), nil
	}
	if opt.FillValue == nil {
		f := dt.ZeroFill()
		f.Null = false
		return f, nil
	}
	f, err := dt.FillFromValue(normalizeFillOption(opt.FillValue))
	if err != nil && (dt.Kind == dtype.Bytes || dt.Kind == dtype.Void || dt.Kind == dtype.Struct) {
		// Already in the v2 base64 form.
		raw, _ := jsonx.MarshalStrict(opt.FillValue)
		f, err = dt.ParseFillV2(raw)
	}
	if err != nil {
		return dtype.Fill{}, errs.Wrap(errs.InvalidMetadata, p+": fill_value", err, "bad fill value")
	}
	return f, nil
}

// normalizeFillOption turns Go numbers into jsonx.Number so integer fills
// stay exact.
func normalizeFillOption(v any) any {
	switch x := v.(type) {
	case int:
		return jsonx.Number(jsonInt(int64(x)))
	case int64:
		return jsonx.Number(jsonInt(x))
	case uint64:
		return x
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		if math.IsInf(x, 1) {
			return "Infinity"
		}
		if math.IsInf(x, -1) {
			return "-Infinity"
		}
	}
	return v
}

func jsonInt(n int64) string { return string(appendInt(nil, int(n))) }
