package codec

import (
	"encoding/binary"
	"math"
	"unicode/utf8"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// vlenCodec is numcodecs "vlen-utf8", "vlen-bytes" and "vlen-array" (and
// the v3 "vlen-utf8" and "vlen-bytes" codecs): a little-endian u32 item
// count, then for each item (C order) a u32 byte length and the bytes.
// vlen-utf8 items are UTF-8 text (decoded to string), vlen-bytes items raw
// bytes ([]byte), vlen-array items the elements of a 1-d array of a numeric
// dtype ([]any of int64, uint64 for uint64, float64 or bool). For the
// registry's "json" data type, vlen-utf8 items are JSON texts (pull request
// 9), decoded as json2 decodes values and written compactly, keys sorted,
// without escaping non-ASCII (as TensorStore's nlohmann::json dumps them).
type vlenCodec struct {
	kind byte // 's' utf8, 'b' bytes, 'a' array
	name string
	elem *dtype.DataType // vlen-array element type
	en   ntype
}

func init() {
	Register(func(jsonx.RawMessage, Spec) (any, error) { return &vlenCodec{kind: 's', name: "vlen-utf8"}, nil },
		"vlen-utf8")
	Register(func(jsonx.RawMessage, Spec) (any, error) { return &vlenCodec{kind: 'b', name: "vlen-bytes"}, nil },
		"vlen-bytes")
	Register(newVlenArray, "numcodecs.vlen-array")
}

func newVlenArray(cfg jsonx.RawMessage, _ Spec) (any, error) {
	m, err := configMembers(cfg)
	if err != nil {
		return nil, err
	}
	t, err := parseFilterDType(m["dtype"], "dtype")
	if err != nil {
		return nil, err
	}
	n, ok := ntypeOf(t)
	if !ok || n.kind == 'c' || t.Kind == dtype.Datetime || t.Kind == dtype.Timedelta {
		return nil, errs.New(errs.Unsupported, "vlen-array", "vlen-array items of %s are not supported (bool, integer and float items are)", t)
	}
	return &vlenCodec{kind: 'a', name: "vlen-array", elem: t, en: n}, nil
}

// isZeroItem reports the values numcodecs writes as an empty item: None
// and anything equal to 0 in Python (0, 0.0, False).
func isZeroItem(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case int:
		return x == 0
	case int64:
		return x == 0
	case uint64:
		return x == 0
	case float64:
		return x == 0
	case jsonx.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	}
	return false
}

// jsonItemStyle writes "json" elements.
var jsonItemStyle = &json2Codec{sortKeys: true, itemSep: ",", keySep: ":"}

func (c *vlenCodec) Encode(a *nd.Array) ([]byte, error) {
	var items []any
	if a.DType().IsJSON() && c.kind != 's' {
		return nil, errs.New(errs.Unsupported, c.name, "the json data type is written with vlen-utf8, not %s", c.name)
	}
	switch a.DType().Kind {
	case dtype.Object, dtype.String, dtype.VarBytes:
		items, _ = a.Objects()
	case dtype.Unicode, dtype.Bytes:
		if c.kind == 'a' {
			return nil, fmtx.Errorf("vlen-array cannot encode %s", a.DType())
		}
		strs, err := a.Strings()
		if err != nil {
			return nil, err
		}
		items = make([]any, len(strs))
		for i, s := range strs {
			if c.kind == 'b' && a.DType().Kind == dtype.Bytes {
				items[i] = []byte(s)
			} else {
				items[i] = s
			}
		}
	default:
		return nil, fmtx.Errorf("%s encodes object, string or bytes arrays, not %s", c.name, a.DType())
	}
	if len(items) > math.MaxUint32 {
		return nil, fmtx.Errorf("%s: too many items", c.name)
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(items)))
	for i, v := range items {
		b, err := c.item(v, a.DType().IsJSON())
		if err != nil {
			return nil, fmtx.Errorf("%s: item %d: %v", c.name, i, err)
		}
		if len(b) > math.MaxUint32 {
			return nil, fmtx.Errorf("%s: item %d is too large", c.name, i)
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

func (c *vlenCodec) item(v any, json bool) ([]byte, error) {
	if c.kind == 'a' {
		return c.arrayItem(v)
	}
	if json {
		w := &pyJSONWriter{c: jsonItemStyle}
		if err := w.value(v, 0); err != nil {
			return nil, err
		}
		if !utf8.ValidString(w.sb.String()) {
			return nil, fmtx.Errorf("a string is not valid UTF-8")
		}
		return []byte(w.sb.String()), nil
	}
	switch x := v.(type) {
	case string:
		if c.kind == 's' && !utf8.ValidString(x) {
			return nil, fmtx.Errorf("string is not valid UTF-8")
		}
		return []byte(x), nil
	case []byte:
		if c.kind == 's' && !utf8.Valid(x) {
			return nil, fmtx.Errorf("bytes are not valid UTF-8")
		}
		return x, nil
	}
	if isZeroItem(v) {
		return nil, nil
	}
	if c.kind == 's' {
		return nil, fmtx.Errorf("expected a string, found %T", v)
	}
	return nil, fmtx.Errorf("expected bytes, found %T", v)
}

// arrayItem packs a 1-d sequence of numbers as elements of c.elem (NumPy
// casts: floats truncate to integers, integers wrap).
func (c *vlenCodec) arrayItem(v any) ([]byte, error) {
	var vals []any
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		vals = x
	case []int64:
		for _, e := range x {
			vals = append(vals, e)
		}
	case []float64:
		for _, e := range x {
			vals = append(vals, e)
		}
	case []int:
		for _, e := range x {
			vals = append(vals, int64(e))
		}
	default:
		return nil, fmtx.Errorf("expected a list of numbers, found %T", v)
	}
	w := c.elem.Size
	out := make([]byte, len(vals)*w)
	for i, e := range vals {
		n, t, err := scalarNum(e)
		if err != nil {
			return nil, fmtx.Errorf("element %d: %v", i, err)
		}
		store(c.en, out[i*w:], cast(n, t, c.en))
	}
	dtype.ToLittle(c.elem, out) // to the stored byte order (the same swap)
	return out, nil
}

// scalarNum converts a Go number to a num and its NumPy type.
func scalarNum(e any) (num, ntype, error) {
	switch x := e.(type) {
	case bool:
		return boolNum(x), ntype{'b', 1}, nil
	case int:
		return num{i: int64(x)}, ntype{'i', 8}, nil
	case int64:
		return num{i: x}, ntype{'i', 8}, nil
	case int32:
		return num{i: int64(x)}, ntype{'i', 8}, nil
	case uint64:
		return num{u: x}, ntype{'u', 8}, nil
	case float64:
		return num{f: x}, ntype{'f', 8}, nil
	case float32:
		return num{f: float64(x)}, ntype{'f', 8}, nil
	case jsonx.Number:
		if i, err := x.Int64(); err == nil {
			return num{i: i}, ntype{'i', 8}, nil
		}
		f, err := x.Float64()
		return num{f: f}, ntype{'f', 8}, err
	}
	return num{}, ntype{}, fmtx.Errorf("%T is not a number", e)
}

func (c *vlenCodec) Decode(b []byte, out Spec) (*nd.Array, error) {
	if out.DType == nil || !out.DType.Variable() {
		return nil, Corrupt(c.name, "cannot decode into %v: %s produces variable-length values", out.DType, c.name)
	}
	if len(b) < 4 {
		return nil, Corrupt(c.name, "%d bytes are too short for the item count", len(b))
	}
	n := int(binary.LittleEndian.Uint32(b))
	want := nd.Size(out.Shape)
	if n != want {
		return nil, Corrupt(c.name, "%d items, expected %d for shape %v", n, want, out.Shape)
	}
	// Every item needs at least its 4-byte length.
	if n > (len(b)-4)/4 {
		return nil, Corrupt(c.name, "%d items cannot fit in %d bytes", n, len(b))
	}
	if out.DType.IsJSON() && c.kind != 's' {
		return nil, errs.New(errs.Unsupported, c.name, "the json data type is read with vlen-utf8, not %s", c.name)
	}
	vals := make([]any, n)
	p := 4
	for i := 0; i < n; i++ {
		if len(b)-p < 4 {
			return nil, Corrupt(c.name, "data truncated at item %d", i)
		}
		size := int(binary.LittleEndian.Uint32(b[p:]))
		p += 4
		if size < 0 || size > len(b)-p {
			return nil, Corrupt(c.name, "item %d of %d bytes runs past the end of the data", i, size)
		}
		data := b[p : p+size]
		p += size
		// vlen-utf8 and vlen-bytes share a layout: a v3 string or bytes
		// type decides the values (zarrs writes either codec for either
		// type); an object array takes the codec's.
		kind := c.kind
		if kind != 'a' && out.DType.Kind == dtype.String {
			kind = 's'
		} else if kind != 'a' && out.DType.Kind == dtype.VarBytes {
			kind = 'b'
		}
		switch {
		case out.DType.IsJSON():
			if !utf8.Valid(data) {
				return nil, Corrupt(c.name, "item %d is not valid UTF-8", i)
			}
			v, err := (&jsonParser{s: string(data)}).parse()
			if err != nil {
				return nil, Corrupt(c.name, "item %d is not JSON: %v", i, err)
			}
			vals[i] = v
			continue
		}
		switch kind {
		case 's':
			if !utf8.Valid(data) {
				return nil, Corrupt(c.name, "item %d is not valid UTF-8", i)
			}
			vals[i] = string(data)
		case 'b':
			vals[i] = append([]byte{}, data...)
		case 'a':
			w := c.elem.Size
			if size%w != 0 {
				return nil, Corrupt(c.name, "item %d has %d bytes, not a whole number of %s elements", i, size, c.elem)
			}
			item := make([]any, size/w)
			elem := append([]byte(nil), data...)
			dtype.ToLittle(c.elem, elem)
			for j := range item {
				item[j] = numValue(c.en, load(c.en, elem[j*w:]))
			}
			vals[i] = item
		}
	}
	if out.DType.Kind == dtype.String && c.kind == 'a' {
		return nil, Corrupt(c.name, "cannot decode %s into a string array", c.name)
	}
	// Trailing bytes after the last item are ignored, as numcodecs does.
	return nd.FromObjects(out.DType, out.Shape, vals)
}

// numValue converts a num to the Go value used for decoded numbers.
func numValue(t ntype, v num) any {
	switch t.kind {
	case 'b':
		return v.u != 0
	case 'i':
		return v.i
	case 'u':
		if t.size == 8 {
			return v.u
		}
		return int64(v.u)
	}
	return v.f
}
