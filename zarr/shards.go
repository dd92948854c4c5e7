package zarr

import (
	"context"
	"sync"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// shardAttempts bounds how often a sharded read starts over when the shard
// changes while it is read.
const shardAttempts = 4

// partialRegion reads region in of chunk idx through a partial decoder (a
// shard): the index, then only the inner chunks the region needs, all of
// one version of the shard.
func (a *Array) partialRegion(ctx context.Context, idx []int, in []nd.Range, p codec.PartialDecoder) (*nd.Array, bool, error) {
	key := a.ChunkKey(idx)
	id := a.chunkID(key)
	counts := make([]int, len(in))
	for d, r := range in {
		counts[d] = r.Count
	}
	// A whole chunk the pool holds (just written, or read whole) serves
	// any region without a request.
	if e, hit := a.src.pool.get(id, wholePart); hit && a.src.recheck.fresh(e.checked, a.src.opened, time.Now()) && (e.absent || a.fits(e.chunk, a.meta.Grid.ChunkShape(idx))) {
		a.src.pool.count(true)
		if e.absent {
			return nil, false, nil
		}
		out := nd.New(a.meta.DType, counts)
		nd.Copy(out, nd.Whole(counts), e.chunk, in)
		return out, true, nil
	}
	for attempt := 0; attempt < shardAttempts; attempt++ {
		index, gen, ok, err := a.shardIndex(ctx, key, id, p, attempt > 0)
		if err != nil || !ok {
			return nil, false, err
		}
		out, err := a.readParts(ctx, key, id, p, gen, index, in, counts)
		if errs.CodeOf(err) == errs.Conflict {
			a.src.pool.forget(id)
			continue
		}
		if err != nil {
			return nil, false, err
		}
		return out, true, nil
	}
	return nil, false, store.Conflict(key, "the shard changed while it was read, on each of %d attempts", shardAttempts)
}

// shardIndex returns the index bytes of a shard and the shard's
// generation, from the pool when the policy allows; without a pool, from
// the indexes kept between reads (shardIndexes: the inner chunks are then
// fetched on condition that the shard has not changed; a pool may answer
// them from what it holds, so with one the pool's policy alone decides).
func (a *Array) shardIndex(ctx context.Context, key string, id chunkID, p codec.PartialDecoder, reload bool) ([]byte, store.Generation, bool, error) {
	pool := a.src.pool
	if e, hit := pool.get(id, indexPart); hit && !reload && a.src.recheck.fresh(e.checked, a.src.opened, time.Now()) {
		pool.count(true)
		return e.raw, e.gen, !e.absent, nil
	}
	if reload {
		shardIndexes.forget(id)
	} else if !pool.on() {
		if raw, gen, ok := shardIndexes.get(id); ok {
			return raw, gen, true, nil
		}
	}
	type result struct {
		raw []byte
		gen store.Generation
		ok  bool
	}
	v, err := flights.do(ctx, flightKey{id, indexPart, ""}, func() (any, error) {
		now := time.Now()
		e, cached := pool.get(id, indexPart)
		var cond store.Conditions
		if cached && e.gen != "" && !reload {
			cond.IfNoneMatch = e.gen
		}
		r, err := p.IndexRange()
		if err != nil {
			return nil, err
		}
		v, err := a.readKey(ctx, key, r, cond)
		if err != nil {
			return nil, err
		}
		if v.NotModified {
			pool.touch(id, indexPart, e.gen, now)
			return result{e.raw, e.gen, !e.absent}, nil
		}
		pool.count(false)
		pool.put(cacheEntry{id: id, part: indexPart, gen: v.Generation, checked: now, absent: !v.Found, raw: v.Data})
		if v.Found {
			shardIndexes.put(id, v.Generation, v.Data)
		}
		return result{v.Data, v.Generation, v.Found}, nil
	})
	if err != nil {
		return nil, "", false, err
	}
	r := v.(result)
	return r.raw, r.gen, r.ok, nil
}

// readParts assembles a region from the inner chunks it needs: from the
// pool, from a concurrent read that is already fetching them, or fetched
// here (neighbours merged into one request), each read on condition that
// the shard is still at gen.
func (a *Array) readParts(ctx context.Context, key string, id chunkID, p codec.PartialDecoder, gen store.Generation, index []byte, in []nd.Range, counts []int) (*nd.Array, error) {
	parts, err := planParts(key, p, index, in)
	if err != nil {
		return nil, err
	}
	out := nd.Filled(a.meta.DType, counts, a.meta.Fill)
	place := func(pt codec.Part, chunk *nd.Array) {
		if len(in) == 0 {
			nd.Copy(out, nil, chunk, nil)
			return
		}
		nd.Copy(out, pt.Out, chunk, pt.In)
	}
	pool := a.src.pool
	var mine []claim
	var others []claim
	for _, pt := range parts {
		if gen != "" {
			if e, hit := pool.get(id, pt.Index); hit && e.gen == gen && a.fits(e.chunk, nil) {
				pool.count(true)
				place(pt, e.chunk)
				continue
			}
		}
		f, leader := flights.claim(flightKey{id, pt.Index, gen})
		if leader {
			mine = append(mine, claim{pt, f})
		} else {
			others = append(others, claim{pt, f})
		}
	}
	var mu sync.Mutex // out is shared by the fetches
	decoded := func(pt codec.Part, chunk *nd.Array) {
		pool.count(false)
		if gen != "" {
			pool.put(cacheEntry{id: id, part: pt.Index, gen: gen, checked: time.Now(), chunk: chunk})
		}
		mu.Lock()
		place(pt, chunk)
		mu.Unlock()
	}
	err = a.fetchParts(ctx, key, p, gen, mine, decoded)
	for _, c := range others {
		select {
		case <-c.f.done:
		case <-ctx.Done():
			return nil, errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
		}
		if c.f.err == nil {
			place(c.part, c.f.val.(*nd.Array))
			continue
		}
		if errs.CodeOf(c.f.err) == errs.Conflict {
			return nil, c.f.err
		}
		// The read that fetched it failed its own way (aborted, say):
		// fetch it here.
		if err == nil {
			err = a.fetchParts(ctx, key, p, gen, []claim{{c.part, nil}}, decoded)
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// claim is an inner chunk a read fetches (f: the flight others wait on)
// or waits for.
type claim struct {
	part codec.Part
	f    *flight
}

// fetchParts reads the claimed inner chunks, merged into requests by the
// coalescing policy (store.DefaultCoalescing) and sent together; each is
// decoded, handed to decoded and to the reads waiting for it. Every claim
// is settled, with the error if it fails.
func (a *Array) fetchParts(ctx context.Context, key string, p codec.PartialDecoder, gen store.Generation, claims []claim, decoded func(codec.Part, *nd.Array)) error {
	if len(claims) == 0 {
		return nil
	}
	type span struct {
		start, end int64
		claims     []claim
	}
	extents := make([]store.Extent, len(claims))
	for i, c := range claims {
		extents[i] = store.Extent{Offset: c.part.Offset, Length: c.part.Length}
	}
	var spans []span
	for _, m := range store.DefaultCoalescing.Coalesce(extents) {
		sp := span{start: m.Offset, end: m.Offset + m.Length}
		for _, i := range m.Members {
			sp.claims = append(sp.claims, claims[i])
		}
		spans = append(spans, sp)
	}
	cond := store.Conditions{IfMatch: gen}
	errsOf := make([]error, len(spans))
	var wg sync.WaitGroup
	for i, sp := range spans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := a.fetchSpan(ctx, key, p, cond, sp.start, sp.end, sp.claims, decoded)
			errsOf[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errsOf {
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *Array) fetchSpan(ctx context.Context, key string, p codec.PartialDecoder, cond store.Conditions, start, end int64, claims []claim, decoded func(codec.Part, *nd.Array)) (err error) {
	done := 0
	defer func() {
		for _, c := range claims[done:] {
			flights.settle(c.f, nil, err)
		}
	}()
	v, err := a.readKey(ctx, key, store.Span(start, end-start), cond)
	if err == nil && (!v.Found || int64(len(v.Data)) != end-start) {
		if !v.Found && cond.IfMatch != "" {
			err = store.Conflict(key, "the shard disappeared while it was read")
		} else {
			err = decodeError(key, codec.Corrupt("sharding_indexed", "bytes %d-%d of the shard could not be read", start, end-1))
		}
	}
	if err != nil {
		return err
	}
	for _, c := range claims {
		chunk, err := p.DecodePart(v.Data[c.part.Offset-start : c.part.Offset-start+c.part.Length])
		if err != nil {
			return decodeError(key, err)
		}
		decoded(c.part, chunk)
		flights.settle(c.f, chunk, nil)
		done++
	}
	return nil
}

// planParts lists the inner chunks of a shard (key) that region in needs,
// from the shard's index bytes; inner chunks the shard does not hold are
// left out (the fill value). The engine's reads and the host's read plans
// (ShardParts) both ask here, so both report a bad index alike.
func planParts(key string, p codec.PartialDecoder, index []byte, in []nd.Range) ([]codec.Part, error) {
	parts, err := p.Plan(index, in)
	if err != nil {
		return nil, decodeError(key, err)
	}
	return parts, nil
}

// ShardParts lists the inner chunks of shard idx that region in of it
// needs, from the shard's index bytes, as the engine's own read of that
// region would (codec.Part: the byte range in the shard, the region of the
// inner chunk, where it lands in the region), with the layout of the
// array's shards (their inner chunks' shape and chain). Inner chunks the
// shard does not hold are left out (the fill value). Errors are those the
// engine's read would report for that index (a CODEC error naming the
// shard).
func (a *Array) ShardParts(idx []int, index []byte, in []nd.Range) ([]codec.Part, codec.ShardLayout, error) {
	key := a.ChunkKey(idx)
	l, err := a.shardLayout(idx)
	if err != nil {
		return nil, nil, err
	}
	parts, err := planParts(key, l, index, in)
	if err != nil {
		return nil, nil, err
	}
	return parts, l, nil
}

// DecodeInner decodes the stored bytes of one inner chunk of shard idx.
func (a *Array) DecodeInner(idx []int, data []byte) (*nd.Array, error) {
	key := a.ChunkKey(idx)
	l, err := a.shardLayout(idx)
	if err != nil {
		return nil, err
	}
	shape, _ := l.InnerChunks()
	if err := a.checkChunkWork(key, shape, decodeCopies); err != nil {
		return nil, err
	}
	chunk, err := l.DecodePart(data)
	if err != nil {
		return nil, decodeError(key, err)
	}
	return chunk, nil
}

// shardLayout is the layout of shard idx's chain, or an error when the
// array is not sharded (by a chain that decodes by parts).
func (a *Array) shardLayout(idx []int) (codec.ShardLayout, error) {
	key := a.ChunkKey(idx)
	chain, err := a.meta.Chain(a.meta.Grid.ChunkShape(idx))
	if err != nil {
		return nil, err
	}
	l, ok := chain.Partial().(codec.ShardLayout)
	if !ok {
		return nil, errs.New(errs.Unsupported, key, "not a shard")
	}
	return l, nil
}
