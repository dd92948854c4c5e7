// Package hostread plans the reads a host runs outside the engine. The npm
// package reads arrays of JS stores itself: its executor (npm/lib/read.js)
// fetches each chunk's stored bytes, decodes them with its own decoders
// (libzstd, libdeflate, a Blosc walker; on the calling thread or in decode
// workers) or has the engine decode them, and copies each region into the
// result. The engine only plans, here: a Plan carries every decision —
// which values and byte ranges to fetch (coalesced by the engine's one
// policy, store.DefaultCoalescing), which decoder each chunk needs, where
// each region lands, how many fetches run at once and whether decode
// workers are worth it — so the executor runs any plan without knowing
// Zarr. A sharded read is planned in two steps: the shards' indexes (or
// whole shards) first, then Expand turns each index into the inner chunks
// the read needs.
//
// The Plan crosses to JS as JSON (AppendJSON), schema version 1,
// described in docs/read-plan.md. Package zarr does not import this
// package: the engine's own reads (Array.Read) run zarr.ReadPlan, from
// which Plan is built.
package hostread

import (
	"context"
	"slices"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/blosc"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Version is the plan schema's version (docs/read-plan.md).
const Version = 1

// Host is what the executor can do.
type Host struct {
	// Decoders are the formats the host decodes itself: "zstd", "zlib",
	// "gzip", "blosc" (its Blosc walker: lz4, lz4hc, zstd and zlib
	// streams, no shuffle or byte shuffle).
	Decoders []string
	// Workers is how many decode workers the host can use besides the
	// calling thread (0: none). Workers decode only what Decoders name.
	Workers int
	// MinWorkerRead, when not negative, replaces the least a read must
	// decode with Decoders to be worth the workers (0: every read of two
	// chunks or more; tests use it). Negative: the measured default.
	MinWorkerRead int
	// Concurrency is how many fetches the caller asked to run at once
	// (0: the default).
	Concurrency int
	// Transfer says the workers' results would be copied back to the
	// calling thread (no memory shared with them: a page that is not
	// cross-origin isolated) and the pool is the default one, which then
	// takes no read under the measured threshold: on 2 cores, one worker
	// whose results are copied back made Chromium's whole and strided
	// reads of Blosc and of a well-compressed uint16 image 1.1-1.6x slower
	// than the calling thread alone (zstd and zlib floats 1.2-1.3x faster).
	// A pool the caller sized (useWorkers(n)) sends false.
	Transfer bool
	// NoRanges says the store reads whole values only: shards are then
	// fetched whole, whatever part of them a read needs.
	NoRanges bool
}

func (h Host) decodes(format string) bool { return slices.Contains(h.Decoders, format) }

// Decode sites of a chunk: its stored bytes are its elements ("raw"), or
// one stream of a format the host decodes ("zstd", "zlib", "gzip",
// "blosc"), or the engine decodes them ("engine").
const (
	Raw    = "raw"
	Engine = "engine"
)

// A Plan is a read for a host to run. When Engine is set the host does
// not run it: the engine reads the selection itself (Engine says why;
// Fixed, when every read of the array would be the engine's).
type Plan struct {
	Engine string
	Fixed  bool

	// ItemSize is the bytes of one element of the result.
	ItemSize int
	// FullShape is the result with every dimension (an integer index is a
	// dimension of 1); Shape is the result's shape.
	FullShape, Shape []int
	// Fill is one element of the fill value where a fresh (zeroed) result
	// does not already hold it, else nil.
	Fill []byte
	// Concurrency is how many fetches run at once.
	Concurrency int
	// Workers is how many decode workers the read is worth (0: the calling
	// thread alone).
	Workers int
	// Fetches are the requests to make, in order.
	Fetches []Fetch
}

// Fetch is one request to the store and what its answer holds.
type Fetch struct {
	// Key is the store key (relative, as the engine names keys).
	Key string
	// Range is the bytes asked for: the whole value when Range.Whole().
	Range Range
	// IfMatch: only the version of the value with this generation will do
	// (the inner chunks of a shard, after its index). Versioned: the
	// answer's generation is needed (a shard's index, for IfMatch after).
	IfMatch   string
	Versioned bool
	// Shard is set when the answer is a shard's index (or the whole
	// shard): Expand lists what to do next.
	Shard *Shard
	// Chunks are the chunks the answer holds.
	Chunks []Chunk

	// A located chunk's fetch (Located): URL, when set, is a file the host
	// fetches by URL instead of Key of its store, and whose answer must be
	// of the version ETag or LastModified says (seconds since 1970, the
	// answer's Last-Modified no later), else the engine reads; Data, when
	// not nil, is the answer itself (an inline chunk: nothing to fetch).
	URL          string
	ETag         string
	LastModified int64
	Data         []byte
}

// Range is a byte range of a value: Length bytes from Offset, or the last
// Suffix bytes; all zero is the whole value.
type Range struct {
	Offset, Length, Suffix int64
}

// Whole reports whether r is the whole value.
func (r Range) Whole() bool { return r == Range{} }

// Shard is a shard a fetch asks for: its grid coordinates and shape, the
// region the read needs of it and where that lands, where its index lies,
// and whether the fetch is of the whole shard (or of its index alone).
type Shard struct {
	Coords      []int
	Shape       []int
	In, Out     []nd.Range
	IndexLength int64
	AtEnd       bool
	Whole       bool
}

// Chunk is one chunk (or inner chunk of a shard) in a fetch's answer.
type Chunk struct {
	// Coords are the chunk's grid coordinates; for an inner chunk (Inner),
	// its shard's, whose chain the engine decodes it with.
	Coords []int
	Inner  bool
	// Offset and Length are its bytes in the answer (Length < 0: all of
	// it).
	Offset, Length int64
	// Decode is where it is decoded: Raw, a format of Host.Decoders, or
	// Engine; the host hands the engine whatever its decoder declines.
	Decode string
	// Shape is its decoded shape; In is the region the read needs of it,
	// Out where that lands in the result (FullShape).
	Shape   []int
	In, Out []nd.Range
}

// DefaultConcurrency is how many fetches a plan runs at once when the
// caller does not say.
const DefaultConcurrency = zarr.DefaultConcurrency

// Decode workers pay only for reads that decode enough (measured in
// tests/bench: handing a chunk over and back, waking a worker and sharing
// the result cost more than a 1000×1000 window of 256×256 float32 chunks,
// 6.5 MB, gains).
const (
	// minWorkerRead is the least a read decodes to be worth workers.
	minWorkerRead = 16 << 20
	// minWorkerChunk is the least a chunk decodes, on average.
	minWorkerChunk = 64 << 10
)

// New plans sel of arr for host h. The caller (the bridge) has checked
// that arr's chunks come from a store the host reads and that the result
// crosses to the host as the elements' own bytes. Errors are those Read
// would return for sel.
func New(arr *zarr.Array, sel zarr.Selection, h Host) (*Plan, error) {
	if why, fixed := engineOnly(arr); why != "" {
		return &Plan{Engine: why, Fixed: fixed}, nil
	}
	rp, err := arr.PlanRead(sel)
	if err != nil {
		return nil, err
	}
	dt := arr.DType()
	p := &Plan{
		ItemSize:    max(dt.Size, 1),
		FullShape:   rp.FullShape,
		Shape:       rp.Shape,
		Fill:        rp.Fill,
		Concurrency: h.Concurrency,
		Fetches:     make([]Fetch, 0, len(rp.Chunks)),
	}
	if p.Concurrency <= 0 {
		p.Concurrency = DefaultConcurrency
	}
	var shape []int
	var layout chunkLayout
	hostDecoded := 0
	for _, c := range rp.Chunks {
		if shape == nil || !slices.Equal(shape, c.Shape) {
			shape = c.Shape
			if layout, err = layoutOf(arr, c, h); err != nil {
				return &Plan{Engine: "the engine decodes these chunks"}, nil
			}
		}
		f := Fetch{Key: c.Key}
		var n int
		if l := layout.shard; l != nil {
			f.Shard = &Shard{Coords: c.Index, Shape: c.Shape, In: c.In, Out: c.Out, IndexLength: l.indexLength, AtEnd: l.atEnd, Whole: h.NoRanges || wholeShard(c.In, c.Shape, l.inner)}
			if !f.Shard.Whole {
				f.Range, f.Versioned = l.indexRange, true
			}
			n = touched(c.In, l.inner) * l.innerBytes
			if l.decode != Engine && l.decode != Raw {
				hostDecoded += n
			}
		} else {
			f.Chunks = []Chunk{{Coords: c.Index, Length: -1, Decode: layout.decode, Shape: c.Shape, In: c.In, Out: c.Out}}
			n = nd.Size(c.Shape) * p.ItemSize
			if layout.decode != Engine && layout.decode != Raw {
				hostDecoded += n
			}
		}
		p.Fetches = append(p.Fetches, f)
	}
	if h.Workers > 0 && len(p.Fetches) >= 2 && hostDecoded > 0 {
		if h.MinWorkerRead >= 0 {
			if hostDecoded >= h.MinWorkerRead {
				p.Workers = h.Workers
			}
		} else if !h.Transfer && hostDecoded >= minWorkerRead && hostDecoded >= minWorkerChunk*len(p.Fetches) {
			p.Workers = h.Workers
		}
	}
	return p, nil
}

// engineOnly says why the engine must read arr itself (and whether every
// read of it would be the engine's): a view a spec gives it (its
// transforms, recheck and missing-chunk policies), Zarr v1, a data type of
// variable size, a chunk cache to fill and answer from.
func engineOnly(arr *zarr.Array) (string, bool) {
	switch {
	case arr.IsView():
		return "opened from a spec", true
	case arr.MissingChunksAreErrors:
		return "missing chunks are errors", true
	case arr.ZarrFormat() < 2:
		return "Zarr v1", true
	case arr.DType().Variable():
		return "variable-length data type", true
	case arr.CachePool().Stats().Limit > 0:
		return "chunk cache", false
	}
	return "", false
}

// chunkLayout is how the chunks of one shape are read: decoded whole by
// decode, or (shard set) as shards.
type chunkLayout struct {
	decode string
	shard  *shardLayout
}

type shardLayout struct {
	indexRange  Range
	indexLength int64
	atEnd       bool
	inner       []int
	innerBytes  int
	decode      string // the inner chunks' decode site
}

// layoutOf decides how chunks of c's shape are read, and checks that
// decoding one fits the memory budget (as the engine checks before it
// reads one: its error otherwise).
func layoutOf(arr *zarr.Array, c zarr.PlannedChunk, h Host) (chunkLayout, error) {
	chain, err := arr.Metadata().Chain(c.Shape)
	if err != nil {
		return chunkLayout{}, err
	}
	if l, ok := chain.Partial().(codec.ShardLayout); ok {
		inner, innerChain := l.InnerChunks()
		r, err := l.IndexRange()
		if err != nil {
			return chunkLayout{}, err
		}
		sl := &shardLayout{inner: inner, innerBytes: nd.Size(inner) * max(arr.DType().Size, 1), decode: decodeSite(innerChain, h)}
		if n, ok := r.Suffix(); ok {
			sl.indexRange, sl.indexLength, sl.atEnd = Range{Suffix: n}, n, true
		} else {
			off, n := r.Bounds()
			sl.indexRange, sl.indexLength = Range{Offset: off, Length: n}, n
		}
		if err := arr.ChunkFits(c.Key, inner); err != nil {
			return chunkLayout{}, err
		}
		return chunkLayout{shard: sl}, nil
	}
	if err := arr.ChunkFits(c.Key, c.Shape); err != nil {
		return chunkLayout{}, err
	}
	return chunkLayout{decode: decodeSite(chain, h)}, nil
}

// decodeSite is where a chunk of chain is decoded: its stored bytes are
// its elements as a read returns them (the bytes codec without a swap,
// nothing else: Raw), or that under one compressor whose stream format
// the host decodes, or the engine decodes it.
func decodeSite(chain *codec.Chain, h Host) string {
	bb, plain := chain.Plain()
	switch {
	case !plain:
		return Engine
	case bb == nil:
		return Raw
	}
	s, ok := bb.(codec.Streamed)
	if !ok || !h.decodes(s.StreamFormat()) {
		return Engine
	}
	f := s.StreamFormat()
	if o, ok := bb.(interface{ Options() blosc.Options }); ok && !bloscWalked(o.Options()) {
		return Engine
	}
	return f
}

// bloscWalked: chunks Blosc writes with o are ones the host's Blosc walker
// decodes (lz4, lz4hc, zstd or zlib streams; no shuffle or byte shuffle).
// For others (blosclz, snappy, bitshuffle) it would decline every chunk.
// A chunk whose header says otherwise than its array's settings is
// declined alone, and the engine decodes it.
func bloscWalked(o blosc.Options) bool {
	switch o.Cname {
	case "lz4", "lz4hc", "zstd", "zlib":
		return o.Shuffle == 0 || o.Shuffle == 1 || (o.Shuffle == -1 && o.Typesize > 1)
	}
	return false
}

// whole reports whether a region covers every element of a chunk.
func whole(in []nd.Range, shape []int) bool {
	for d, r := range in {
		if r.Start != 0 || r.Count != shape[d] || (r.Step != 1 && r.Count > 1) {
			return false
		}
	}
	return true
}

// wholeShard reports whether a shard is fetched whole for region in: the
// region covers every element, or it touches every inner chunk — they
// would all be fetched anyway, and one request for the whole shard saves
// the round trip for its index. (The host decodes a whole shard's inner
// chunks one at a time, so this costs no memory; the engine's own read
// decodes a whole shard at once and reads it whole only when every
// element is needed.)
func wholeShard(in []nd.Range, shape, inner []int) bool {
	if whole(in, shape) {
		return true
	}
	n := 1
	for d := range shape {
		n *= (shape[d] + inner[d] - 1) / inner[d]
	}
	return touched(in, inner) == n
}

// touched is how many chunks of shape inner region in touches (at most).
func touched(in []nd.Range, inner []int) int {
	n := 1
	for d, r := range in {
		if r.Count == 0 {
			return 0
		}
		first := r.Start / inner[d]
		last := (r.Start + (r.Count-1)*r.Step) / inner[d]
		k := last - first + 1
		if r.Step > inner[d] {
			k = min(k, r.Count)
		}
		n *= k
	}
	return n
}

// ShardRequest is a shard whose index the host has (from a fetch with
// Shard set): the Shard, the answer's generation (for the inner chunks'
// IfMatch) and, for a whole shard, the length of its bytes.
type ShardRequest struct {
	Shard
	Generation string
	Size       int64
	Index      []byte
}

// Expansion is what to do with one shard: inner chunks found in the bytes
// already fetched (a whole shard: Chunks, offsets into those bytes), or
// requests to make for them (Fetches, coalesced).
type Expansion struct {
	Chunks  []Chunk
	Fetches []Fetch
}

// Expand turns shards' indexes into the inner chunks the read needs, as
// the engine's own read of each region would (zarr.Array.ShardParts);
// errors are those the engine's read would report (a CODEC error naming
// the shard).
func Expand(arr *zarr.Array, reqs []ShardRequest, h Host) ([]Expansion, error) {
	out := make([]Expansion, len(reqs))
	m := arr.Metadata()
	grid := m.Grid.Shape(m.Shape)
	for i, r := range reqs {
		for d, c := range r.Coords {
			if c < 0 || c >= max(grid[d], 1) {
				return nil, errs.New(errs.InvalidArgument, "shard requests", "malformed: shard coordinates %v outside the grid", r.Coords)
			}
		}
		if !slices.Equal(r.Shape, m.Grid.ChunkShape(r.Coords)) {
			return nil, errs.New(errs.InvalidArgument, "shard requests", "malformed: shard %v has another shape", r.Coords)
		}
		parts, l, err := arr.ShardParts(r.Coords, r.Index, r.In)
		if err != nil {
			return nil, err
		}
		inner, innerChain := l.InnerChunks()
		site := decodeSite(innerChain, h)
		key := arr.ChunkKey(r.Coords)
		chunks := make([]Chunk, len(parts))
		extents := make([]store.Extent, len(parts))
		for j, pt := range parts {
			outR := make([]nd.Range, len(pt.Out))
			for d, o := range pt.Out {
				so := r.Out[d]
				outR[d] = nd.Range{Start: so.Start + o.Start*so.Step, Step: o.Step * so.Step, Count: o.Count}
			}
			chunks[j] = Chunk{Coords: r.Coords, Inner: true, Offset: pt.Offset, Length: pt.Length, Decode: site, Shape: inner, In: pt.In, Out: outR}
			extents[j] = store.Extent{Offset: pt.Offset, Length: pt.Length}
		}
		if r.Whole {
			for _, c := range chunks {
				if c.Offset < 0 || c.Offset+c.Length > r.Size {
					return nil, errs.New(errs.Codec, key, "cannot decode chunk: inner chunk at bytes %d-%d lies outside the shard's %d bytes", c.Offset, c.Offset+c.Length-1, r.Size)
				}
			}
			out[i].Chunks = chunks
			continue
		}
		for _, m := range store.DefaultCoalescing.Coalesce(extents) {
			f := Fetch{Key: key, Range: Range{Offset: m.Offset, Length: m.Length}, IfMatch: r.Generation}
			for _, j := range m.Members {
				c := chunks[j]
				c.Offset -= m.Offset
				f.Chunks = append(f.Chunks, c)
			}
			out[i].Fetches = append(out[i].Fetches, f)
		}
	}
	return out, nil
}

// Located plans sel of arr, whose chunks come from a store.Locator l (an
// Icechunk snapshot): New's plan, with each chunk's fetch replaced by
// where l locates its bytes — inline bytes (Data), a range of a value of
// l.Source() (Key) or of a file (URL) — and the ranges of one value or
// file merged by the one policy (store.DefaultCoalescing). Chunks l does
// not have are left out (the fill value stands). Sharded chunks are the
// engine's to read. Errors are those reading the chunks would give: a
// virtual chunk outside the allowed prefixes, a corrupt manifest.
func Located(ctx context.Context, arr *zarr.Array, sel zarr.Selection, h Host, l store.Locator) (*Plan, error) {
	p, err := New(arr, sel, h)
	if err != nil || p.Engine != "" {
		return p, err
	}
	type target struct {
		key, url, etag string
		lastModified   int64
	}
	var order []target
	byTarget := map[target][]int{} // (indexes into chunks)
	var chunks []Chunk
	var extents []store.Extent
	fetches := make([]Fetch, 0, len(p.Fetches))
	for _, f := range p.Fetches {
		if f.Shard != nil || len(f.Chunks) != 1 || !f.Range.Whole() {
			return &Plan{Engine: "sharded chunks of a located store", Fixed: true}, nil
		}
		loc, found, err := l.Locate(ctx, f.Key)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		c := f.Chunks[0]
		if loc.Inline {
			c.Offset, c.Length = 0, int64(len(loc.Data))
			fetches = append(fetches, Fetch{Key: f.Key, Data: loc.Data, Chunks: []Chunk{c}})
			continue
		}
		if loc.Offset < 0 || loc.Length < 0 {
			return nil, errs.New(errs.InvalidMetadata, f.Key, "located at %d bytes from offset %d", loc.Length, loc.Offset)
		}
		t := target{loc.Key, loc.URL, loc.ETag, loc.LastModified}
		if _, seen := byTarget[t]; !seen {
			order = append(order, t)
		}
		byTarget[t] = append(byTarget[t], len(chunks))
		c.Offset, c.Length = loc.Offset, loc.Length
		chunks = append(chunks, c)
		extents = append(extents, store.Extent{Offset: loc.Offset, Length: loc.Length})
	}
	for _, t := range order {
		idx := byTarget[t]
		ext := make([]store.Extent, len(idx))
		for i, j := range idx {
			ext[i] = extents[j]
		}
		for _, m := range store.DefaultCoalescing.Coalesce(ext) {
			f := Fetch{Key: t.key, URL: t.url, ETag: t.etag, LastModified: t.lastModified, Range: Range{Offset: m.Offset, Length: m.Length}}
			if m.Length == 0 {
				// (an empty range is no request: an empty answer)
				f.Range, f.Data = Range{}, []byte{}
			}
			for _, i := range m.Members {
				c := chunks[idx[i]]
				c.Offset -= m.Offset
				f.Chunks = append(f.Chunks, c)
			}
			fetches = append(fetches, f)
		}
	}
	p.Fetches = fetches
	return p, nil
}
