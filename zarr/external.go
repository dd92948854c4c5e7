package zarr

import (
	"slices"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
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
	// Direct says whether each chunk's stored value, decoded by at most one
	// host decoder, is its elements as Read returns them, as the chunk
	// source decides for reads into a StoredDest (placeStored): "raw" (the
	// stored bytes are the elements), "zstd", "zlib" or "gzip"; or "blosc"
	// (codec.DirectDecodable: the host's Blosc walker, which only direct
	// reads use); "" when the
	// engine must decode (a sharded or filtered chain, a byte swap, no host
	// decoder) or a chunk would not fit the memory budget. Then the calling
	// thread may read the plan itself, chunk by chunk, with no call into the
	// engine (npm/lib/direct.js).
	Direct string
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
	// Shard is set when the chunks are shards the calling thread reads
	// itself (a direct plan): Direct then decodes their inner chunks, and
	// a chunk whose region is not the whole shard is read by its index
	// (PlanShardParts), then its inner chunks' byte ranges.
	Shard *ShardRead
}

// ShardRead is how the calling thread reads the shards of a direct plan.
type ShardRead struct {
	// Index is where each shard's index lies: its last IndexSize bytes
	// when AtEnd, else its first.
	IndexSize int64
	AtEnd     bool
	// Inner is the shape of an inner chunk (each decodes to that many
	// elements).
	Inner []int
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
	p, why, _, err := a.planExternal(sel, false)
	return p, why, err
}

// PlanDirectRead plans sel as PlanExternalRead does, for a read the
// calling thread runs itself chunk by chunk (npm/lib/direct.js): only when
// every chunk is placed straight from its stored value (Direct is not
// ""), and without what only the decode workers need (Metadata,
// Compressors, Decoder). When it declines, fixed says the reason is the
// array's (its format, data type, spec, chain), so every read of it would
// be declined; not so for a chunk cache, which can be switched on and off,
// or for the memory budget.
func (a *Array) PlanDirectRead(sel Selection) (p *ExternalRead, why string, fixed bool, err error) {
	return a.planExternal(sel, true)
}

func (a *Array) planExternal(sel Selection, direct bool) (*ExternalRead, string, bool, error) {
	switch {
	case a.spec != nil:
		return nil, "opened from a spec", true, nil
	case a.MissingChunksAreErrors:
		return nil, "missing chunks are errors", true, nil
	case a.meta.ZarrFormat < 2:
		return nil, "Zarr v1", true, nil
	case a.meta.DType.Variable():
		return nil, "variable-length data type", true, nil
	case a.src.pool.Stats().Limit > 0:
		return nil, "chunk cache", false, nil
	}
	var layout codec.ShardLayout
	if direct {
		// Decided before the selection is resolved: a read the engine must
		// decode costs no plan.
		chain, err := a.meta.Chain(a.meta.Grid.ChunkShape(make([]int, len(a.meta.Shape))))
		if err != nil {
			return nil, "the engine decodes these chunks", true, nil
		}
		if _, ok := a.directStored(chain); !ok {
			if layout = a.directShards(chain); layout == nil {
				return nil, "the engine decodes these chunks", true, nil
			}
		}
	}
	r, err := sel.resolve(a.meta.Shape)
	if err != nil {
		return nil, "", false, err
	}
	full := r.fullShape()
	if err := checkResultSize(a.meta.DType, full); err != nil {
		return nil, "", false, err
	}
	p := &ExternalRead{FullShape: full, Shape: r.outShape()}
	if !direct {
		doc, err := a.meta.Document()
		if err != nil {
			return nil, "metadata cannot be written again", true, nil
		}
		p.MetadataKey, p.Metadata = a.meta.Key, doc
	}
	tasks := plan(a.meta.Grid, r)
	_, _, sharded := shardingOf(a.meta.Codecs)
	p.Chunks = make([]ExternalChunk, len(tasks))
	for i, t := range tasks {
		shape := a.meta.Grid.ChunkShape(t.idx)
		if sharded && layout == nil && !wholeChunk(t.in, shape) {
			return nil, "part of a shard", false, nil
		}
		p.Chunks[i] = ExternalChunk{Index: t.idx, Key: a.ChunkKey(t.idx), Shape: shape, In: t.in, Out: t.out}
	}
	if layout != nil {
		p.Direct, p.Shard = a.directShardDecoder(layout, p.Chunks)
	} else {
		p.Direct = a.directDecoder(p.Chunks)
	}
	if direct && p.Direct == "" {
		return nil, "the engine decodes these chunks", false, nil
	}
	if !direct {
		p.Compressors = compressorNames(a.meta.Codecs)
		p.Decoder = hostDecodable(a.meta.Codecs, a.meta.DType.Size, a.LayoutOrder())
	}
	if needsFill(a.meta.DType, a.meta.Fill) {
		p.Fill = append([]byte(nil), a.meta.Fill.Bytes...)
	}
	return p, "", false, nil
}

// directDecoder is ExternalRead.Direct for chunks.
func (a *Array) directDecoder(chunks []ExternalChunk) string {
	if len(chunks) == 0 {
		return "raw" // nothing to decode
	}
	chain, err := a.meta.Chain(chunks[0].Shape)
	if err != nil {
		return ""
	}
	decoder, ok := a.directStored(chain)
	if !ok {
		return ""
	}
	// What placeStored checks for each chunk before reading it.
	var last []int
	for _, c := range chunks {
		if last != nil && slices.Equal(last, c.Shape) {
			continue
		}
		if a.checkChunkWork(c.Key, c.Shape, decodeCopies) != nil {
			return ""
		}
		last = c.Shape
	}
	if decoder == "" {
		return "raw"
	}
	return decoder
}

// directStored is storedDecoder for reads the host runs itself: also a
// compressor only the host's direct reads decode whole
// (codec.DirectDecodable: Blosc through the npm package's Blosc walker,
// which declines what it does not cover, chunk by chunk).
func (a *Array) directStored(chain *codec.Chain) (decoder string, ok bool) {
	if decoder, ok := a.storedDecoder(chain); ok {
		return decoder, true
	}
	if a.src.pool.on() {
		return "", false
	}
	bb, ok := chain.Plain()
	if !ok || bb == nil {
		return "", false
	}
	h, ok := bb.(codec.DirectDecodable)
	if !ok {
		return "", false
	}
	decoder = h.DirectDecoder()
	return decoder, decoder != ""
}

// directShards is the layout of chain's shards when the calling thread can
// read them itself: a sharding codec alone (no codec around it) whose inner
// chunks are placed straight from their stored bytes (directStored, as for
// an unsharded array's chunks); else nil.
func (a *Array) directShards(chain *codec.Chain) codec.ShardLayout {
	l, ok := chain.Partial().(codec.ShardLayout)
	if !ok {
		return nil
	}
	_, inner := l.InnerChunks()
	if _, ok := a.directStored(inner); !ok {
		return nil
	}
	return l
}

// directShardDecoder is ExternalRead.Direct and Shard for the shards of a
// direct plan, checked as the engine's reads check them before reading:
// the index fits the memory budget (IndexRange), and a shard read whole
// (decoded whole by DecodeChunk) too.
func (a *Array) directShardDecoder(l codec.ShardLayout, chunks []ExternalChunk) (string, *ShardRead) {
	shape, inner := l.InnerChunks()
	decoder, ok := a.directStored(inner)
	if !ok {
		return "", nil
	}
	r, err := l.IndexRange()
	if err != nil {
		return "", nil
	}
	sr := &ShardRead{Inner: shape}
	if n, ok := r.Suffix(); ok {
		sr.IndexSize, sr.AtEnd = n, true
	} else {
		_, sr.IndexSize = r.Bounds()
	}
	var last []int
	for _, c := range chunks {
		if !wholeChunk(c.In, c.Shape) || (last != nil && slices.Equal(last, c.Shape)) {
			continue
		}
		if a.checkChunkWork(c.Key, c.Shape, decodeCopies) != nil {
			return "", nil
		}
		last = c.Shape
	}
	if decoder == "" {
		decoder = "raw"
	}
	return decoder, sr
}

// PlanShardParts lists the inner chunks of shard idx (a chunk of a direct
// plan with Shard set) that region in of it needs, from the shard's index
// bytes, as the engine's read of that region would (codec.Part: the byte
// range in the shard, the region of the inner chunk, where it lands in
// the region); inner chunks the shard does not hold are left out (the
// fill value). Errors are those the engine's read would report for that
// index (a CODEC error naming the shard).
// inner is the inner chunks' shape.
func (a *Array) PlanShardParts(idx []int, index []byte, in []nd.Range) (parts []codec.Part, inner []int, err error) {
	key := a.ChunkKey(idx)
	chain, err := a.meta.Chain(a.meta.Grid.ChunkShape(idx))
	if err != nil {
		return nil, nil, err
	}
	l, ok := chain.Partial().(codec.ShardLayout)
	if !ok {
		return nil, nil, errs.New(errs.Unsupported, key, "not a shard")
	}
	inner, _ = l.InnerChunks()
	parts, err = l.Plan(index, in)
	if err != nil {
		return nil, nil, decodeError(key, err)
	}
	return parts, inner, nil
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
			var cfg bloscName
			_ = jsonx.UnmarshalStrict(c.Configuration, &cfg)
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
	var cfg BytesEndian
	if len(cs[0].Configuration) > 0 && jsonx.UnmarshalStrict(cs[0].Configuration, &cfg) != nil {
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

type bloscName struct {
	Cname string `json:"cname"`
}

func (c *bloscName) JSONFields() []jsonx.Field { return []jsonx.Field{jsonx.F("cname", &c.Cname)} }

// BytesEndian is the bytes codec's configuration as the read paths decode
// it (described to jsonx: no reflect in the core build).
type BytesEndian struct {
	Endian string `json:"endian"`
}

func (c *BytesEndian) JSONFields() []jsonx.Field { return []jsonx.Field{jsonx.F("endian", &c.Endian)} }
