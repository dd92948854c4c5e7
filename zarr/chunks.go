package zarr

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// chunkSource is the one place where an array's chunks are read and
// decoded: plain reads, regions of shards, Array.ReadChunk (the bridge's
// getChunk) and the read half of a write all come through it, and the
// npm package's decode workers (jsbridge/offload.go) work inside its decode
// step. It
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

// shardAttempts bounds how often a sharded read starts over when the shard
// changes while it is read.
const shardAttempts = 4

// CoalesceGap is the largest gap between two inner chunks' byte ranges that
// is read through rather than split into two requests.
const CoalesceGap = 64 << 10

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

// placeStored hands chunk t.idx to a destination that reads, decodes and
// places stored chunks itself (the bridge's: JS store bytes through the
// npm package's libzstd or zlib straight into the JS result), when nothing
// else wants the decoded chunk and the destination decodes it as the
// engine would: no cache keeps chunks (so wholeChunk would read the chunk
// once, without conditions, and keep nothing), the chain is the plain
// bytes codec under at most one compressor with a host decoder, and the
// store is one the destination reads. It leads the chunk's flight as
// wholeChunk does, so concurrent reads still share one fetch: when others
// joined while the store answered, the bytes come back and are decoded
// here for all of them. Bytes the destination does not decode (corrupt, a
// size other than the chunk's) are decoded here too, so errors are the
// engine's. done is false when the chunk is left to wholeChunk (also when
// another read is fetching it: wholeChunk joins that fetch).
func (a *Array) placeStored(ctx context.Context, d StoredDest, chain *codec.Chain, t chunkTask) (done bool, err error) {
	decoder, ok := a.storedDecoder(chain)
	if !ok {
		return false, nil
	}
	s := a.ChunkStore()
	if !d.CanPlaceStored(s) {
		return false, nil
	}
	key := a.ChunkKey(t.idx)
	shape := a.meta.Grid.ChunkShape(t.idx)
	if err := a.checkChunkWork(key, shape, decodeCopies); err != nil {
		return true, err
	}
	if err := ctx.Err(); err != nil {
		return true, errs.Wrap(errs.Aborted, key, err, "aborted")
	}
	f, leader := flights.claimFree(flightKey{a.chunkID(key), wholePart, ""})
	if !leader {
		return false, nil
	}
	var res wholeResult
	defer func() { flights.settle(f, res, err) }()
	alone := func() bool { return flights.seal(f) == 0 }
	v, placed, err := d.PlaceStored(ctx, s, key, decoder, nd.Size(shape)*a.meta.DType.Size, shape, t.out, t.in, alone)
	if err != nil {
		if ctx.Err() != nil {
			return true, errs.Wrap(errs.Aborted, key, err, "aborted")
		}
		return true, errs.Wrap(errs.Store, key, err, "read of %s failed", store.WholeValue())
	}
	a.src.pool.count(false)
	if placed {
		return true, nil
	}
	if !v.Found {
		res = wholeResult{nil, v.Generation, false}
		return true, a.missingChunk(t.idx)
	}
	chunk, err := a.DecodeChunk(t.idx, v.Data)
	if err != nil {
		return true, err
	}
	res = wholeResult{chunk, v.Generation, true}
	d.Place(t.out, chunk, t.in)
	return true, nil
}

// storedDecoder reports whether a chunk of chain may be decoded and placed
// outside the engine, straight from its stored bytes, and how: no cache
// keeps chunks (so the engine would read each chunk once, without
// conditions, and keep nothing), and the chain is the plain bytes codec
// (the stored bytes are the elements as Read returns them: decoder "") or
// that under one compressor with a host decoder (decoder names it).
// placeStored and PlanExternalRead's Direct decide by it.
func (a *Array) storedDecoder(chain *codec.Chain) (decoder string, ok bool) {
	if a.src.pool.on() {
		return "", false
	}
	bb, ok := chain.Plain()
	if !ok {
		return "", false
	}
	if bb == nil {
		return "", true
	}
	h, ok := bb.(codec.HostDecodable)
	if !ok {
		return "", false
	}
	decoder = h.HostDecoder()
	return decoder, decoder != ""
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
// generation, from the pool when the policy allows.
func (a *Array) shardIndex(ctx context.Context, key string, id chunkID, p codec.PartialDecoder, reload bool) ([]byte, store.Generation, bool, error) {
	pool := a.src.pool
	if e, hit := pool.get(id, indexPart); hit && !reload && a.src.recheck.fresh(e.checked, a.src.opened, time.Now()) {
		pool.count(true)
		return e.raw, e.gen, !e.absent, nil
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
	parts, err := p.Plan(index, in)
	if err != nil {
		return nil, decodeError(key, err)
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

// fetchParts reads the claimed inner chunks, merging neighbours closer than
// CoalesceGap into one request and sending the requests together; each is
// decoded, handed to decoded and to the reads waiting for it. Every claim
// is settled, with the error if it fails.
func (a *Array) fetchParts(ctx context.Context, key string, p codec.PartialDecoder, gen store.Generation, claims []claim, decoded func(codec.Part, *nd.Array)) error {
	if len(claims) == 0 {
		return nil
	}
	sort.Slice(claims, func(i, j int) bool { return claims[i].part.Offset < claims[j].part.Offset })
	type span struct {
		start, end int64
		claims     []claim
	}
	var spans []span
	for _, c := range claims {
		end := c.part.Offset + c.part.Length
		if n := len(spans); n > 0 && c.part.Offset <= spans[n-1].end+CoalesceGap {
			spans[n-1].end = max(spans[n-1].end, end)
			spans[n-1].claims = append(spans[n-1].claims, c)
			continue
		}
		spans = append(spans, span{c.part.Offset, end, []claim{c}})
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

// flightKey names one fetch-and-decode: a part of a stored chunk at a
// generation ("" where the generation is not known yet).
type flightKey struct {
	id   chunkID
	part int
	gen  store.Generation
}

// flightGroup lets concurrent reads of one chunk share one fetch and one
// decode: the first read to ask leads, the others wait for its result.
type flightGroup struct {
	mu sync.Mutex
	m  map[flightKey]*flight
}

type flight struct {
	key     flightKey
	done    chan struct{}
	val     any
	err     error
	waiters int // reads that joined it
}

var flights = flightGroup{m: map[flightKey]*flight{}}

// claim returns the flight of k, and leader == true when the caller must
// run it (and settle it).
func (g *flightGroup) claim(k flightKey) (f *flight, leader bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f := g.m[k]; f != nil {
		f.waiters++
		return f, false
	}
	f = &flight{key: k, done: make(chan struct{})}
	g.m[k] = f
	return f, true
}

// claimFree claims k only when no flight of it is under way.
func (g *flightGroup) claimFree(k flightKey) (*flight, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m[k] != nil {
		return nil, false
	}
	f := &flight{key: k, done: make(chan struct{})}
	g.m[k] = f
	return f, true
}

// seal closes f to reads that would join it from now on (they start their
// own) and returns how many joined it before.
func (g *flightGroup) seal(f *flight) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m[f.key] == f {
		delete(g.m, f.key)
	}
	return f.waiters
}

// settle publishes a flight's result (f may be nil: nothing to do).
func (g *flightGroup) settle(f *flight, val any, err error) {
	if f == nil {
		return
	}
	g.mu.Lock()
	if g.m[f.key] == f {
		delete(g.m, f.key)
	}
	g.mu.Unlock()
	f.val, f.err = val, err
	close(f.done)
}

// do runs fn once for concurrent callers with the same key. A caller whose
// leader was aborted (its own call ended) runs fn itself.
func (g *flightGroup) do(ctx context.Context, k flightKey, fn func() (any, error)) (any, error) {
	for {
		f, leader := g.claim(k)
		if leader {
			val, err := fn()
			g.settle(f, val, err)
			return val, err
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, errs.Wrap(errs.Aborted, k.id.key, ctx.Err(), "aborted")
		}
		if errs.CodeOf(f.err) == errs.Aborted && ctx.Err() == nil {
			continue
		}
		return f.val, f.err
	}
}

// keyLocks serialises the read-modify-write cycles of one stored chunk in
// this process, whichever Array value, goroutine or JS promise asks.
type keyLocks struct {
	mu sync.Mutex
	m  map[chunkID]*keyLock
}

type keyLock struct {
	mu   sync.Mutex
	refs int
}

var chunkLocks = keyLocks{m: map[chunkID]*keyLock{}}

// lock takes the lock of id and returns its release.
func (t *keyLocks) lock(ctx context.Context, id chunkID) (func(), error) {
	t.mu.Lock()
	l := t.m[id]
	if l == nil {
		l = &keyLock{}
		t.m[id] = l
	}
	l.refs++
	t.mu.Unlock()
	release := func() {
		t.mu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(t.m, id)
		}
		t.mu.Unlock()
	}
	if !l.mu.TryLock() {
		// Wait without ignoring an abort.
		got := make(chan struct{})
		go func() {
			l.mu.Lock()
			close(got)
		}()
		select {
		case <-got:
		case <-ctx.Done():
			go func() { <-got; l.mu.Unlock(); release() }()
			return nil, errs.Wrap(errs.Aborted, id.key, ctx.Err(), "aborted while waiting for another write of this chunk")
		}
	}
	return func() { l.mu.Unlock(); release() }, nil
}
