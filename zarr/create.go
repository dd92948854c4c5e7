// Creating arrays and groups: the options and the entry points. The
// documents come from create_v2.go and create_v3.go (built by package
// meta), the place in the hierarchy from create_node.go.

package zarr

import (
	"context"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
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
	// Filters are, for v2, numcodecs filter configs (object arrays need an
	// object codec first, {"id": "vlen-utf8"}); for v3, as zarr-python 3's
	// create_array, the array→array codecs that start the chain.
	Filters []map[string]any
	// Compressors and Serializer are zarr-python 3's create_array options.
	// v3: the bytes→bytes codecs ending the chain (nil: zstd; empty: none)
	// and its array→bytes codec (nil: bytes, or vlen-utf8 / vlen-bytes);
	// with Filters they replace Codecs. v2: at most one compressor (the
	// same as Compressor; empty: none); no Serializer.
	Compressors []map[string]any
	Serializer  map[string]any
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
