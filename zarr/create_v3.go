// The zarr.json of a new v3 array, from ArrayOptions: the codec chain
// (zarr-python's defaults, sharding), the chunk grid, the byte order (the
// document itself is package meta's).

package zarr

import (
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
)

// v3ArrayDocument writes the zarr.json of a new v3 array.
func v3ArrayDocument(p string, dt *dtype.DataType, chunks []int, opt ArrayOptions) ([]byte, error) {
	if dt.Kind == dtype.Object && !dt.IsJSON() {
		return nil, errs.New(errs.Unsupported, p+": dtype", "v3 has no object type; use \"string\", \"bytes\" or \"json\"")
	}
	if opt.Compressor != nil {
		return nil, errs.New(errs.InvalidArgument, p, "Compressor is a v2 option; v3 arrays take Codecs or Compressors")
	}
	// zarr-python 3's three parts of the chain, in place of Codecs.
	parts := opt.Filters != nil || opt.Serializer != nil || opt.Compressors != nil
	if parts && opt.Codecs != nil {
		return nil, errs.New(errs.InvalidArgument, p, "Codecs is the whole chain; Filters, Serializer and Compressors are its parts: give one or the other")
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
		for _, f := range opt.Filters {
			codecs = append(codecs, f)
		}
		if opt.Serializer != nil {
			codecs = append(codecs, opt.Serializer)
		} else {
			codecs = append(codecs, defaultSerializer(dt, endian))
		}
		switch {
		case opt.Compressors != nil:
			for _, c := range opt.Compressors {
				codecs = append(codecs, c)
			}
		case !opt.NoCompressor:
			codecs = append(codecs, map[string]any{"name": "zstd", "configuration": map[string]any{"level": 0, "checksum": false}})
		}
		if parts {
			maps := make([]map[string]any, len(codecs))
			for i, c := range codecs {
				maps[i] = c.(map[string]any)
			}
			codecs = codecs[:0]
			for _, c := range withBytesEndian(maps, dt, endian) {
				codecs = append(codecs, c)
			}
			var err error
			if codecs, err = meta.V3CodecsForWriting(p+": codecs", codecs); err != nil {
				return nil, err
			}
		}
	}
	gridChunks := chunks
	if opt.ShardShape != nil {
		if len(opt.ShardShape) != ndim {
			return nil, errs.New(errs.InvalidMetadata, p+": shards", "%d shard sizes for %d dimensions", len(opt.ShardShape), ndim)
		}
		codecs = []any{meta.ShardingCodec(chunks, codecs)}
		gridChunks = opt.ShardShape
	}
	chunkGrid := meta.RegularGrid(gridChunks)
	if opt.ChunkSizes != nil {
		if len(opt.ChunkSizes) != ndim {
			return nil, errs.New(errs.InvalidMetadata, p+": chunk sizes", "%d entries for %d dimensions", len(opt.ChunkSizes), ndim)
		}
		chunkGrid = meta.RectilinearGrid(opt.ChunkSizes, gridChunks)
	}
	sep := opt.DimensionSeparator
	if sep == "" {
		sep = "/"
	}
	doc, err := meta.NewV3ArrayDocument(opt.Shape, dt, chunkGrid, sep, fill, codecs, opt.Attributes, opt.DimensionNames)
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
		doc.ChunkKeyEncoding = opt.ChunkKeyEncoding
	}
	data, err := doc.Marshal()
	if err != nil {
		return nil, errs.Wrap(errs.InvalidMetadata, p, err, "cannot write metadata")
	}
	return data, nil
}

// defaultSerializer is the array→bytes codec a new array of dt gets: bytes,
// vlen-utf8 or vlen-bytes, and for an optional type zarrs' layout (the
// mask bit-packed, the values by the inner type's own serializer).
func defaultSerializer(dt *dtype.DataType, endian string) map[string]any {
	switch {
	case dt.Optional:
		return map[string]any{"name": "optional", "configuration": map[string]any{
			"mask_codecs": []any{map[string]any{"name": "packbits"}},
			"data_codecs": []any{defaultSerializer(dt.Fields[0].Type, endian)},
		}}
	case dt.Kind == dtype.String, dt.IsJSON():
		return map[string]any{"name": "vlen-utf8", "configuration": map[string]any{}}
	case dt.Kind == dtype.VarBytes:
		return map[string]any{"name": "vlen-bytes", "configuration": map[string]any{}}
	case dt.HasMultiByte():
		return map[string]any{"name": "bytes", "configuration": map[string]any{"endian": endian}}
	}
	return map[string]any{"name": "bytes"}
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
