package zarr

import (
	"context"
	"math"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// ArrayOptions configures CreateArray.
type ArrayOptions struct {
	Shape []int
	// Chunks is the chunk shape; nil picks one as zarr-python does.
	Chunks []int
	// DType is a NumPy typestr ("<i4", "|S5", "<M8[ns]"), a v3 core name
	// ("int32", "float64", "bool", "complex64"), or a structured descr list
	// ([]any{[]any{"x", "<f4"}, ...}).
	DType any
	// FillValue is the fill value as JSON would give it (number, "NaN",
	// string, base64 for S/V/structured); nil means the type's zero value.
	FillValue any
	// NoFill writes "fill_value": null (contents of missing chunks undefined).
	NoFill bool
	// Order is "C" (default) or "F".
	Order string
	// Compressor is a numcodecs config ({"id": "zlib", "level": 1}); nil
	// means zstd (level 0), as zarr-python 3 writes v2. NoCompressor
	// stores chunks uncompressed.
	Compressor   map[string]any
	NoCompressor bool
	// Filters are numcodecs filter configs; object arrays need an object
	// codec first ({"id": "vlen-utf8"}).
	Filters []map[string]any
	// DimensionSeparator is the chunk key separator: v2 "." (default) or
	// "/"; v3 "/" (default) or ".".
	DimensionSeparator string
	// ChunkKeyEncoding, for v3, is the "chunk_key_encoding" to write (a
	// name or {"name", "configuration"}: "default", "v2", "fanout",
	// "prefix", "suffix", "template"); nil means default with
	// DimensionSeparator.
	ChunkKeyEncoding any
	Attributes       map[string]any
	// ZarrFormat is 3 (the default) or 2.
	ZarrFormat int
	// Codecs is the v3 codec list ([{"name": "bytes", ...}, ...]); nil
	// means bytes (or vlen-utf8/vlen-bytes) then zstd, with a transpose
	// first for Order "F". v3 only; v2 uses Compressor and Filters.
	Codecs []map[string]any
	// ShardShape, for v3, stores chunks of shape Chunks inside shards of
	// this shape (sharding_indexed, index at the end with crc32c).
	ShardShape []int
	// ChunkSizes, for v3, gives every dimension's chunk sizes (a rectilinear
	// grid); a nil entry keeps that dimension regular with Chunks[d].
	ChunkSizes [][]int
	// DimensionNames names the dimensions: v3 "dimension_names"; for v2
	// xarray's "_ARRAY_DIMENSIONS" attribute ("" stands for an unnamed v3
	// dimension; v2 names must all be given).
	DimensionNames []string
	// Overwrite replaces an existing node at the path (deleting what is
	// below it when the store can list).
	Overwrite bool
	// WriteEmptyChunks: see Array.WriteEmptyChunks.
	WriteEmptyChunks bool
}

// GroupOptions configures CreateGroup.
type GroupOptions struct {
	Attributes map[string]any
	ZarrFormat int
	Overwrite  bool
}

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

// GuessChunks picks a chunk shape the way zarr-python does: halve
// dimensions in turn until a chunk is near a size target that grows with
// the array (128 KiB to 64 MiB).
func GuessChunks(shape []int, itemsize int) []int {
	const base, minSize, maxSize = 256 * 1024, 128 * 1024, 64 * 1024 * 1024
	n := len(shape)
	if n == 0 {
		return []int{}
	}
	chunks := make([]float64, n)
	for i, s := range shape {
		chunks[i] = math.Max(float64(s), 1)
	}
	prod := func() float64 {
		p := 1.0
		for _, c := range chunks {
			p *= c
		}
		return p
	}
	dsetSize := prod() * float64(itemsize)
	target := base * math.Pow(2, math.Log10(dsetSize/(1024*1024)))
	target = math.Min(math.Max(target, minSize), maxSize)
	for idx := 0; ; idx++ {
		size := prod() * float64(itemsize)
		if (size < target || math.Abs(size-target)/target < 0.5) && size < maxSize {
			break
		}
		if prod() == 1 {
			break
		}
		chunks[idx%n] = math.Ceil(chunks[idx%n] / 2)
	}
	out := make([]int, n)
	for i, c := range chunks {
		out[i] = int(c)
	}
	return out
}

// CreateArray creates an array at path (and any missing ancestor groups)
// and returns it opened.
func CreateArray(ctx context.Context, s Store, path string, opt ArrayOptions, opts ...OpenOption) (*Array, error) {
	p, w, format, err := newNodeTarget(s, path, opt.ZarrFormat)
	if err != nil {
		return nil, err
	}
	dt, err := parseDTypeOption(opt.DType)
	if err != nil {
		return nil, err
	}
	for _, n := range opt.Shape {
		if n < 0 {
			return nil, errs.New(errs.InvalidMetadata, p+": shape", "negative dimension in %v", opt.Shape)
		}
	}
	chunks := opt.Chunks
	if chunks == nil {
		size := dt.Size
		if dt.Variable() {
			size = 8
		}
		chunks = GuessChunks(opt.Shape, size)
	}
	if len(chunks) != len(opt.Shape) {
		return nil, errs.New(errs.InvalidMetadata, p+": chunks", "%d chunk sizes for %d dimensions", len(chunks), len(opt.Shape))
	}
	prefix := meta.Prefix(p)
	var key string
	var data []byte
	if format == 3 {
		key = prefix + keyZarrJSON
		data, err = v3ArrayDocument(p, dt, chunks, opt)
	} else {
		key = prefix + keyZarray
		data, err = v2ArrayDocument(p, dt, chunks, opt)
	}
	if err != nil {
		return nil, err
	}
	if err := prepareNode(ctx, s, w, p, opt.Overwrite, format); err != nil {
		return nil, err
	}
	var arr *Array
	if format == 3 {
		n, err := meta.ParseV3(key, data) // validates every field and codec
		if err != nil {
			return nil, err
		}
		if err := setKey(ctx, w, key, data); err != nil {
			return nil, err
		}
		arr = newArrayV3(s, p, n.Array, configure(opts))
	} else {
		m, err := meta.ParseV2(key, data) // validates every field and codec
		if err != nil {
			return nil, err
		}
		if err := setKey(ctx, w, key, data); err != nil {
			return nil, err
		}
		attrs, err := v2Attributes(p, opt)
		if err != nil {
			return nil, err
		}
		if attrs != nil {
			if err := writeAttrs(ctx, s, prefix+keyZattrs, attrs); err != nil {
				return nil, err
			}
		}
		if arr, err = newArray(ctx, s, p, m, prefix+keyZattrs, configure(opts)); err != nil {
			return nil, err
		}
	}
	arr.WriteEmptyChunks = opt.WriteEmptyChunks
	return arr, nil
}

// v2Attributes are the attributes a new v2 array stores: the given ones,
// with DimensionNames as xarray's "_ARRAY_DIMENSIONS".
func v2Attributes(p string, opt ArrayOptions) (map[string]any, error) {
	if opt.DimensionNames == nil {
		return opt.Attributes, nil
	}
	if len(opt.DimensionNames) != len(opt.Shape) {
		return nil, errs.New(errs.InvalidMetadata, p+": dimension_names", "%d names for %d dimensions", len(opt.DimensionNames), len(opt.Shape))
	}
	attrs := make(map[string]any, len(opt.Attributes)+1)
	for k, v := range opt.Attributes {
		attrs[k] = v
	}
	names := make([]any, len(opt.DimensionNames))
	for i, n := range opt.DimensionNames {
		if n == "" {
			return nil, errs.New(errs.InvalidMetadata, p+": dimension_names", "v2 (xarray's %s) names every dimension; name %d is empty", xarrayDims, i)
		}
		names[i] = n
	}
	attrs[xarrayDims] = names
	return attrs, nil
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

func v2ArrayDocument(p string, dt *dtype.DataType, chunks []int, opt ArrayOptions) ([]byte, error) {
	dtJSON, err := dt.V2JSON()
	if err != nil {
		return nil, errs.Wrap(errs.Unsupported, p+": dtype", err, "no v2 form")
	}
	var fill any
	switch {
	case opt.NoFill:
		fill = nil
	case opt.FillValue == nil && dt.Variable():
		fill = 0 // zarr-python's default for object arrays
	default:
		f, err := fillOption(p, dt, opt)
		if err != nil {
			return nil, err
		}
		if fill, err = dt.FillV2JSON(f); err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, p+": fill_value", err, "bad fill value")
		}
	}
	order := opt.Order
	if order == "" {
		order = "C"
	}
	var compressor any
	switch {
	case opt.NoCompressor || len(opt.Shape) == 0:
		compressor = nil // zarr-python never compresses 0-d arrays
	case opt.Compressor != nil:
		compressor = opt.Compressor
	default:
		compressor = map[string]any{"id": "zstd", "level": 0}
	}
	var filters any
	if len(opt.Filters) > 0 {
		fl := make([]any, len(opt.Filters))
		for i, f := range opt.Filters {
			fl[i] = f
		}
		filters = fl
	}
	doc := map[string]any{
		"zarr_format": 2, "shape": intsJSON(opt.Shape), "chunks": intsJSON(chunks), "dtype": dtJSON,
		"fill_value": fill, "order": order, "compressor": compressor, "filters": filters,
	}
	if opt.DimensionSeparator != "" && opt.DimensionSeparator != "." {
		doc["dimension_separator"] = opt.DimensionSeparator
	}
	data, err := jsonx.Marshal(doc, "    ")
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, p, err, "cannot write metadata")
	}
	return data, nil
}

func intsJSON(v []int) []any {
	out := make([]any, len(v))
	for i, n := range v {
		out[i] = n
	}
	return out
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

// CreateGroup creates a group at path (and any missing ancestors).
func CreateGroup(ctx context.Context, s Store, path string, opt GroupOptions, opts ...OpenOption) (*Group, error) {
	p, w, format, err := newNodeTarget(s, path, opt.ZarrFormat)
	if err != nil {
		return nil, err
	}
	if err := prepareNode(ctx, s, w, p, opt.Overwrite, format); err != nil {
		return nil, err
	}
	if err := writeGroupDoc(ctx, w, meta.Prefix(p), format, opt.Attributes); err != nil {
		return nil, err
	}
	return OpenGroup(ctx, s, p, opts...)
}

// newNodeTarget checks what creating a node needs: a valid path, a
// writable store and a format it can write (0 means v3).
func newNodeTarget(s Store, path string, format int) (string, store.Writer, int, error) {
	p, err := meta.NormalizePath(path)
	if err != nil {
		return "", nil, 0, err
	}
	w, ok := store.AsWriter(s)
	if !ok {
		return "", nil, 0, errs.New(errs.ReadOnly, p, "the store cannot be written")
	}
	if format == 0 {
		format = 3
	}
	if format != 2 && format != 3 {
		return "", nil, 0, errs.New(errs.Unsupported, p, "writing zarr_format %d is not supported", format)
	}
	return p, w, format, nil
}

// writeGroupDoc writes a group's metadata (and v2 attributes).
func writeGroupDoc(ctx context.Context, w store.Writer, prefix string, format int, attrs map[string]any) error {
	if format == 3 {
		doc, err := meta.GroupDocV3(attrs)
		if err != nil {
			return errs.Wrap(errs.InvalidMetadata, prefix+keyZarrJSON, err, "attributes cannot be written as JSON")
		}
		return setKey(ctx, w, prefix+keyZarrJSON, doc)
	}
	if err := setKey(ctx, w, prefix+keyZgroup, []byte("{\n    \"zarr_format\": 2\n}")); err != nil {
		return err
	}
	if attrs != nil {
		data, err := meta.MarshalAttrs(attrs)
		if err != nil {
			return errs.Wrap(errs.InvalidMetadata, prefix+keyZattrs, err, "attributes cannot be written as JSON")
		}
		return setKey(ctx, w, prefix+keyZattrs, data)
	}
	return nil
}

// prepareNode checks that path is free (or clears it when overwriting) and
// creates missing ancestor groups; an ancestor that is an array is an error.
func prepareNode(ctx context.Context, s Store, w store.Writer, p string, overwrite bool, format int) error {
	prefix := meta.Prefix(p)
	for _, k := range []string{keyZarray, keyZgroup, keyZarrJSON} {
		_, ok, err := get(ctx, s, prefix+k)
		if err != nil {
			return err
		}
		if ok {
			if !overwrite {
				return errs.New(errs.Exists, p, "a node already exists here (pass Overwrite to replace it)")
			}
			if err := deleteTree(ctx, s, w, prefix); err != nil {
				return err
			}
			break
		}
	}
	if p == "" {
		return nil
	}
	segs := strings.Split(p, "/")
	for i := 0; i < len(segs); i++ {
		anc := strings.Join(segs[:i], "/")
		ap := meta.Prefix(anc)
		node, err := open(ctx, s, anc, "", openConfig{})
		if err == nil {
			if _, isArray := node.(*Array); isArray {
				return errs.New(errs.Exists, anc, "an ancestor of %q is an array", p)
			}
			continue
		}
		if errs.CodeOf(err) != errs.NotFound {
			return err
		}
		if err := writeGroupDoc(ctx, w, ap, format, nil); err != nil {
			return err
		}
	}
	return nil
}

// deleteTree deletes every key below prefix (when the store can list) and
// the node's metadata keys.
func deleteTree(ctx context.Context, s Store, w store.Writer, prefix string) error {
	if l, ok := store.AsLister(s); ok {
		names, err := l.List(ctx, prefix)
		if err != nil {
			return err
		}
		for _, n := range names {
			if strings.HasSuffix(n, "/") {
				if err := deleteTree(ctx, s, w, prefix+n); err != nil {
					return err
				}
				continue
			}
			if err := deleteKey(ctx, w, prefix+n); err != nil {
				return err
			}
		}
		return nil
	}
	for _, k := range []string{keyZarray, keyZgroup, keyZattrs, keyZarrJSON} {
		if err := deleteKey(ctx, w, prefix+k); err != nil {
			return err
		}
	}
	return nil
}
