package zarr

import (
	"context"
	"slices"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// chunkSource is the one place where the engine reads and decodes an
// array's chunks: plain reads, regions of shards (shards.go),
// Array.ReadChunk (the bridge's getChunk) and the read half of a write all
// come through it. It
//   - ties the reads that make one chunk to one generation: a shard's inner
//     chunks are read on condition that the shard is still the version
//     whose index was read; when it is not, the index is read again, up to
//     shardAttempts times, then the read fails with a CONFLICT error;
//   - answers from its cache pool when the recheck policy allows, and
//     confirms cached chunks with conditional reads otherwise;
//   - lets concurrent reads of one chunk (or inner chunk) share one fetch
//     and one decode.
type chunkSource struct {
	store   Store
	storeID any
	pool    *CachePool
	recheck Recheck
	opened  time.Time
}

func newChunkSource(s Store, cfg openConfig) chunkSource {
	pool := cfg.pool
	if !cfg.poolSet {
		pool = defaultPool
	}
	return chunkSource{store: s, storeID: storeIdentity(s), pool: pool, recheck: cfg.recheck, opened: time.Now()}
}

func (a *Array) chunkID(key string) chunkID { return chunkID{a.src.storeID, key} }

// readKey is one store read of the array's chunk data: aborts and untyped
// store errors become typed errors naming the key.
func (a *Array) readKey(ctx context.Context, key string, r store.ByteRange, c store.Conditions) (store.Versioned, error) {
	if err := ctx.Err(); err != nil {
		return store.Versioned{}, errs.Wrap(errs.Aborted, key, err, "aborted")
	}
	v, err := store.Read(ctx, a.src.store, key, r, c)
	if err != nil {
		if ctx.Err() != nil {
			return store.Versioned{}, errs.Wrap(errs.Aborted, key, err, "aborted")
		}
		return store.Versioned{}, errs.Wrap(errs.Store, key, err, "read of %s failed", r)
	}
	return v, nil
}

// fits reports whether a cached chunk has the data type and shape the
// array now expects (a hierarchy rewritten under RecheckNever may not).
func (a *Array) fits(c *nd.Array, shape []int) bool {
	return c != nil && c.DType().Equal(a.meta.DType) && (shape == nil || sameShape(c.Shape(), shape))
}

// How wholeChunk may answer.
type chunkRead uint8

const (
	// readShared: from the pool when the policy allows, else by a fetch
	// concurrent reads of the chunk share.
	readShared chunkRead = iota
	// readForWrite: the read half of a read-modify-write, holding the
	// chunk's lock: from the pool when the policy allows (the pool holds
	// this process's writes), else by a fetch of its own — never by
	// joining a fetch that started before the lock was taken, which could
	// return the chunk as it was before the last write.
	readForWrite
	// readAgain: as readForWrite, and always confirmed with the store (a
	// conditional write found the chunk changed).
	readAgain
)

// wholeChunk returns chunk idx decoded, and the generation it was read at;
// ok is false when the store has no value.
func (a *Array) wholeChunk(ctx context.Context, idx []int, how chunkRead) (chunk *nd.Array, gen store.Generation, ok bool, err error) {
	key := a.ChunkKey(idx)
	id := a.chunkID(key)
	shape := a.meta.Grid.ChunkShape(idx)
	p := a.src.pool
	if e, hit := p.get(id, wholePart); hit && how != readAgain && a.src.recheck.fresh(e.checked, a.src.opened, time.Now()) && (e.absent || a.fits(e.chunk, shape)) {
		p.count(true)
		return e.chunk, e.gen, !e.absent, nil
	}
	type result = wholeResult
	fetch := func() (any, error) {
		now := time.Now()
		e, cached := p.get(id, wholePart)
		var cond store.Conditions
		if cached && e.gen != "" && (e.absent || a.fits(e.chunk, shape)) {
			cond.IfNoneMatch = e.gen
		}
		v, err := a.readKey(ctx, key, store.WholeValue(), cond)
		if err != nil {
			return nil, err
		}
		if v.NotModified {
			p.touch(id, wholePart, e.gen, now)
			return result{e.chunk, e.gen, !e.absent}, nil
		}
		p.count(false)
		if !v.Found {
			p.put(cacheEntry{id: id, part: wholePart, gen: v.Generation, checked: now, absent: true})
			return result{nil, v.Generation, false}, nil
		}
		chunk, err := a.DecodeChunk(idx, v.Data)
		if err != nil {
			return nil, err
		}
		p.put(cacheEntry{id: id, part: wholePart, gen: v.Generation, checked: now, chunk: chunk})
		return result{chunk, v.Generation, true}, nil
	}
	var v any
	if how == readShared {
		v, err = flights.do(ctx, flightKey{id, wholePart, ""}, fetch)
	} else {
		v, err = fetch()
	}
	if err != nil {
		return nil, "", false, err
	}
	r := v.(result)
	return r.chunk, r.gen, r.ok, nil
}

// wholeResult is what a whole chunk's flight hands the reads that joined it.
type wholeResult struct {
	chunk *nd.Array
	gen   store.Generation
	ok    bool
}

// ReadChunk returns chunk idx of the chunks a read decodes (ReadChunks:
// the inner chunks of a sharded array, as zarrita.js and zarr-python 3
// number them), decoded, or the fill value where the store has none (the
// bridge's getChunk). The result is the caller's to modify.
func (a *Array) ReadChunk(ctx context.Context, idx []int) (*NDArray, error) {
	if len(idx) != len(a.meta.Shape) {
		return nil, errs.New(errs.Selection, a.path, "%d chunk coordinates for %d dimensions", len(idx), len(a.meta.Shape))
	}
	if inner := a.ReadChunks(); a.view() == nil && inner != nil && a.Shards() != nil && !slices.Equal(inner, a.Shards()) {
		return a.readInnerChunk(ctx, idx, inner)
	}
	grid := a.meta.Grid.Shape(a.meta.Shape)
	for d, i := range idx {
		if i < 0 || i >= max(grid[d], 1) {
			return nil, errs.New(errs.Selection, a.path, "chunk coordinate %d is out of range for dimension %d (%d chunks)", i, d, grid[d])
		}
	}
	chunk, _, ok, err := a.wholeChunk(ctx, idx, readShared)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nd.Filled(a.meta.DType, a.meta.Grid.ChunkShape(idx), a.meta.Fill), nil
	}
	return chunk.Clone(), nil
}

// readInnerChunk reads inner chunk idx of a sharded array through the read
// path (the shard index, then that inner chunk), at the inner chunk's full
// shape: the part past the array's end is the fill value.
func (a *Array) readInnerChunk(ctx context.Context, idx, inner []int) (*NDArray, error) {
	sel := make(Selection, len(idx))
	counts := make([]int, len(idx))
	for d, i := range idx {
		n := (a.meta.Shape[d] + inner[d] - 1) / inner[d]
		if i < 0 || i >= max(n, 1) {
			return nil, errs.New(errs.Selection, a.path, "chunk coordinate %d is out of range for dimension %d (%d chunks of %d)", i, d, n, inner[d])
		}
		start := i * inner[d]
		stop := min(start+inner[d], a.meta.Shape[d])
		sel[d] = Slice(&start, &stop, 1)
		counts[d] = stop - start
	}
	part, err := a.Read(ctx, sel)
	if err != nil {
		return nil, err
	}
	out := nd.Filled(a.meta.DType, inner, a.meta.Fill)
	nd.Copy(out, nd.Whole(counts), part, nd.Whole(counts))
	return out, nil
}
