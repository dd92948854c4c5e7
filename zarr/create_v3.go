package zarr

import (
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
)

// v3ArrayDocument builds the zarr.json of a new v3 array.
func v3ArrayDocument(p string, dt *dtype.DataType, chunks []int, opt ArrayOptions) ([]byte, error) {
	if dt.Kind == dtype.Object {
		return nil, errs.New(errs.Unsupported, p+": dtype", "v3 has no object type; use \"string\" or \"bytes\"")
	}
	if opt.Compressor != nil || opt.Filters != nil {
		return nil, errs.New(errs.InvalidMetadata, p, "Compressor and Filters are v2 options; v3 arrays take Codecs")
	}
	// A typestr with a byte order ("<i4", ">f8") sets the bytes codec's
	// endian; the v3 data type itself has none.
	endian := "little"
	if dt.Endian == dtype.Big {
		endian = "big"
	}
	if dt.Endian != dtype.NoOrder {
		dt = dt.WithEndian(dtype.Unset)
	}
	fill, err := fillOption(p, dt, opt)
	if err != nil {
		return nil, err
	}
	fill.Null = false
	ndim := len(opt.Shape)
	codecs := make([]any, 0, 4)
	if opt.Codecs != nil {
		for _, c := range withBytesEndian(opt.Codecs, dt, endian) {
			codecs = append(codecs, c)
		}
		var err error
		if codecs, err = meta.V3CodecsForWriting(p+": codecs", codecs); err != nil {
			return nil, err
		}
	} else {
		if opt.Order == "F" && ndim > 1 {
			perm := make([]any, ndim)
			for i := range perm {
				perm[i] = ndim - 1 - i
			}
			codecs = append(codecs, map[string]any{"name": "transpose", "configuration": map[string]any{"order": perm}})
		}
		switch dt.Kind {
		case dtype.String:
			codecs = append(codecs, map[string]any{"name": "vlen-utf8", "configuration": map[string]any{}})
		case dtype.VarBytes:
			codecs = append(codecs, map[string]any{"name": "vlen-bytes", "configuration": map[string]any{}})
		default:
			if dt.HasMultiByte() {
				codecs = append(codecs, map[string]any{"name": "bytes", "configuration": map[string]any{"endian": endian}})
			} else {
				codecs = append(codecs, map[string]any{"name": "bytes"})
			}
		}
		if !opt.NoCompressor {
			codecs = append(codecs, map[string]any{"name": "zstd", "configuration": map[string]any{"level": 0, "checksum": false}})
		}
	}
	gridChunks := chunks
	if opt.ShardShape != nil {
		if len(opt.ShardShape) != ndim {
			return nil, errs.New(errs.InvalidMetadata, p+": shards", "%d shard sizes for %d dimensions", len(opt.ShardShape), ndim)
		}
		indexEndian := map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}
		codecs = []any{map[string]any{"name": "sharding_indexed", "configuration": map[string]any{
			"chunk_shape":    intsJSON(chunks),
			"codecs":         codecs,
			"index_codecs":   []any{indexEndian, map[string]any{"name": "crc32c"}},
			"index_location": "end",
		}}}
		gridChunks = opt.ShardShape
	}
	var chunkGrid any = map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": intsJSON(gridChunks)}}
	if opt.ChunkSizes != nil {
		if len(opt.ChunkSizes) != ndim {
			return nil, errs.New(errs.InvalidMetadata, p+": chunk sizes", "%d entries for %d dimensions", len(opt.ChunkSizes), ndim)
		}
		shapes := make([]any, ndim)
		for d, sizes := range opt.ChunkSizes {
			if sizes == nil {
				shapes[d] = gridChunks[d]
				continue
			}
			shapes[d] = runLengths(sizes)
		}
		chunkGrid = map[string]any{"name": "rectilinear", "configuration": map[string]any{"kind": "inline", "chunk_shapes": shapes}}
	}
	sep := opt.DimensionSeparator
	if sep == "" {
		sep = "/"
	}
	doc, err := meta.V3ArrayDoc(opt.Shape, dt, chunkGrid, sep, fill, codecs, opt.Attributes, opt.DimensionNames)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, p, err, "cannot write metadata")
	}
	if opt.ChunkKeyEncoding != nil {
		raw, err := jsonx.MarshalStrict(opt.ChunkKeyEncoding)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidMetadata, p+": ChunkKeyEncoding", err, "")
		}
		if _, err := meta.ParseKeyEncoding(p+": ChunkKeyEncoding", raw, len(opt.Shape)); err != nil {
			return nil, err
		}
		doc["chunk_key_encoding"] = opt.ChunkKeyEncoding
	}
	data, err := jsonx.Marshal(doc, "  ")
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, p, err, "cannot write metadata")
	}
	return data, nil
}

// runLengths writes edge lengths with [value, count] pairs where a value
// repeats, when that is shorter (as zarr-python does).
func runLengths(sizes []int) []any {
	var out []any
	for i := 0; i < len(sizes); {
		j := i
		for j < len(sizes) && sizes[j] == sizes[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, []any{sizes[i], j - i})
		} else {
			out = append(out, sizes[i])
		}
		i = j
	}
	if len(out) >= len(sizes) {
		return intsJSON(sizes)
	}
	return out
}

// withBytesEndian gives a "bytes" codec that names no endian the default
// one when the data type needs a byte order (as zarr-python's BytesCodec()
// does), here and in sharding's inner codecs; the document written always
// names it, as the spec requires.
func withBytesEndian(cs []map[string]any, dt *dtype.DataType, endian string) []map[string]any {
	if !dt.HasMultiByte() {
		return cs
	}
	out := make([]map[string]any, len(cs))
	for i, c := range cs {
		cfg, _ := c["configuration"].(map[string]any)
		switch c["name"] {
		case "bytes":
			if cfg["endian"] == nil {
				c = copyMap(c)
				cfg = copyMap(cfg)
				cfg["endian"] = endian
				c["configuration"] = cfg
			}
		case "sharding_indexed":
			if inner, ok := cfg["codecs"].([]any); ok {
				maps := make([]map[string]any, 0, len(inner))
				for _, x := range inner {
					if m, ok := x.(map[string]any); ok {
						maps = append(maps, m)
					}
				}
				if len(maps) == len(inner) {
					fixed := withBytesEndian(maps, dt, endian)
					list := make([]any, len(fixed))
					for k, m := range fixed {
						list[k] = m
					}
					c = copyMap(c)
					cfg = copyMap(cfg)
					cfg["codecs"] = list
					c["configuration"] = cfg
				}
			}
		}
		out[i] = c
	}
	return out
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}
