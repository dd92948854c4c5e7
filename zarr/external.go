package zarr

import (
	"encoding/json"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// A read decoded outside the engine: the npm package's decode workers
// (npm/lib/pooled.js) fetch each chunk's stored value, decode it (with the
// package's libzstd or zlib, or with their own copy of this engine) and
// write it straight into the result, while the thread that asked only hands
// out stored bytes. The engine plans such a read (which chunks, their keys,
// where each region lands), and plans it only where decoding elsewhere
// returns what Read would: one stored value per chunk (so one version of
// it, as Read's whole-chunk reads), no chunk cache to fill or answer from,
// no spec (its view, recheck or missing-chunk policy), and for a sharded
// array only whole shards. Anything else is read by Read.

// ExternalRead is the plan of a read decoded outside the engine.
type ExternalRead struct {
	// FullShape is the result with every dimension (an integer index is a
	// dimension of 1); Shape is the result's shape.
	FullShape, Shape []int
	// Chunks lists the chunks to read, in the order Read reads them.
	Chunks []ExternalChunk
	// Decoder names the one decoder the stored bytes need when the chain is
	// just that compressor over little-endian (or one-byte) elements in C
	// order: "zstd", "zlib" or "gzip"; "" when the whole chain must run
	// (the engine, in the worker).
	Decoder string
	// Compressors names the chain's compressors (inside shards too), a
	// Blosc one with its inner codec ("blosc:lz4"): what decides whether a
	// pool is worth it.
	Compressors []string
	// Fill is one element of the fill value when it is not all zero bytes
	// (a fresh result is zero), else nil.
	Fill []byte
	// MetadataKey and Metadata are the array's metadata document and its
	// store key, to open the array again elsewhere.
	MetadataKey string
	Metadata    []byte
}

// ExternalChunk is one chunk of an ExternalRead: its store key, decoded
// shape, the region read from it and where that lands in the result.
type ExternalChunk struct {
	Index   []int
	Key     string
	Shape   []int
	In, Out []nd.Range
}

// PlanExternalRead plans reading sel outside the engine. It returns the
// plan, or nil and why the read must go through Read; errors are those Read
// would return for sel (a bad selection, a result over the memory budget).
func (a *Array) PlanExternalRead(sel Selection) (*ExternalRead, string, error) {
	switch {
	case a.spec != nil:
		return nil, "opened from a spec", nil
	case a.MissingChunksAreErrors:
		return nil, "missing chunks are errors", nil
	case a.meta.ZarrFormat < 2:
		return nil, "Zarr v1", nil
	case a.meta.DType.Variable():
		return nil, "variable-length data type", nil
	case a.src.pool.Stats().Limit > 0:
		return nil, "chunk cache", nil
	}
	r, err := sel.resolve(a.meta.Shape)
	if err != nil {
		return nil, "", err
	}
	full := r.fullShape()
	if err := checkResultSize(a.meta.DType, full); err != nil {
		return nil, "", err
	}
	doc, err := a.meta.Document()
	if err != nil {
		return nil, "metadata cannot be written again", nil
	}
	tasks := plan(a.meta.Grid, r)
	p := &ExternalRead{FullShape: full, Shape: r.outShape(), MetadataKey: a.meta.Key, Metadata: doc}
	_, _, sharded := shardingOf(a.meta.Codecs)
	p.Chunks = make([]ExternalChunk, len(tasks))
	for i, t := range tasks {
		shape := a.meta.Grid.ChunkShape(t.idx)
		if sharded && !wholeChunk(t.in, shape) {
			return nil, "part of a shard", nil
		}
		p.Chunks[i] = ExternalChunk{Index: t.idx, Key: a.ChunkKey(t.idx), Shape: shape, In: t.in, Out: t.out}
	}
	p.Compressors = compressorNames(a.meta.Codecs)
	p.Decoder = hostDecodable(a.meta.Codecs, a.meta.DType.Size, a.LayoutOrder())
	if needsFill(a.meta.DType, a.meta.Fill) {
		p.Fill = append([]byte(nil), a.meta.Fill.Bytes...)
	}
	return p, "", nil
}

// compressorNames lists the bytes→bytes codecs of a chain and of the
// chains inside its shards (Blosc with its inner codec).
func compressorNames(cs []codec.Config) []string {
	var out []string
	for _, c := range cs {
		switch c.Name {
		case "bytes", "transpose", "crc32c":
			continue
		case "sharding_indexed":
			if _, inner, ok := shardingOf([]codec.Config{c}); ok {
				out = append(out, compressorNames(inner)...)
			}
			continue
		case "blosc":
			var cfg struct {
				Cname string `json:"cname"`
			}
			_ = json.Unmarshal(c.Configuration, &cfg)
			out = append(out, "blosc:"+cfg.Cname)
			continue
		}
		out = append(out, strings.TrimPrefix(c.Name, "numcodecs."))
	}
	return out
}

// hostDecodable names the decoder ("zstd", "zlib", "gzip") that alone turns
// a stored chunk into its elements as Read returns them (little-endian, C
// order), or "".
func hostDecodable(cs []codec.Config, size int, order string) string {
	if len(cs) != 2 || cs[0].Name != "bytes" || order != "C" {
		return ""
	}
	var cfg struct {
		Endian string `json:"endian"`
	}
	if len(cs[0].Configuration) > 0 && json.Unmarshal(cs[0].Configuration, &cfg) != nil {
		return ""
	}
	if !(cfg.Endian == "little" || (cfg.Endian == "" && size <= 1)) {
		return ""
	}
	switch cs[1].Name {
	case "zstd":
		return "zstd"
	case "numcodecs.zlib", "zlib":
		return "zlib"
	case "gzip":
		return "gzip"
	}
	return ""
}

// ChunkStore is the store the array's chunks are read from (beneath a
// group's consolidated metadata, which serves only metadata documents).
func (a *Array) ChunkStore() Store {
	if cs, ok := a.src.store.(*consolidatedStore); ok {
		return cs.base
	}
	return a.src.store
}

// Compressors names the chain's compressors as ExternalRead.Compressors
// does (none for raw chunks), from the metadata alone.
func (a *Array) Compressors() []string { return compressorNames(a.meta.Codecs) }
