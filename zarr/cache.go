package zarr

import (
	"container/list"
	"sync"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// CachePool holds decoded chunks (and the indexes of shards) for the
// arrays that use it, up to a number of bytes, dropping the least recently
// used first. An entry is the chunk of one key of one store at one
// generation: a read whose store reports another generation does not use
// it, and writes through the engine replace or drop it. TensorStore's
// cache_pool is the model. A nil *CachePool, or one of 0 bytes, caches
// nothing. Safe for concurrent use.
type CachePool struct {
	mu     sync.Mutex
	limit  int64
	used   int64
	chunks map[chunkID]*cachedChunk
	lru    list.List // of *cacheEntry, most recent first
	stats  CacheStats
}

// CacheStats counts what a pool did.
type CacheStats struct {
	Hits        int64 // reads answered from the pool without asking the store
	Revalidated int64 // entries the store confirmed unchanged (an HTTP 304)
	Misses      int64 // reads that went to the store and decoded
	Evictions   int64 // entries dropped to stay within the limit
	Entries     int64 // entries held now
	Bytes       int64 // bytes held now
	Limit       int64 // the pool's limit
}

// NewCachePool returns a pool of at most limit bytes (0: caches nothing).
func NewCachePool(limit int64) *CachePool {
	return &CachePool{limit: max(limit, 0), chunks: map[chunkID]*cachedChunk{}}
}

var defaultPool = NewCachePool(0)

// DefaultCachePool is the pool arrays use unless WithCache says otherwise.
// It holds nothing until given a limit (SetLimit).
func DefaultCachePool() *CachePool { return defaultPool }

// SetLimit changes the pool's limit, dropping entries beyond it (0 empties
// it and turns it off).
func (p *CachePool) SetLimit(limit int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.limit = max(limit, 0)
	p.evict()
}

// Stats returns the pool's counters.
func (p *CachePool) Stats() CacheStats {
	if p == nil {
		return CacheStats{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Entries, s.Bytes, s.Limit = int64(p.lru.Len()), p.used, p.limit
	return s
}

// Clear drops every entry.
func (p *CachePool) Clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.chunks)
	p.lru.Init()
	p.used = 0
}

// chunkID names a stored chunk: the store's identity and the key.
type chunkID struct {
	store any
	key   string
}

// The parts of a stored chunk an entry can hold.
const (
	wholePart = -1 // the decoded chunk
	indexPart = -2 // a shard's index, as stored
	// 0, 1, ...: a shard's decoded inner chunk
)

type cachedChunk struct {
	parts map[int]*list.Element
	// The newest information held: a read that started before it (and
	// so may have old bytes) does not replace it.
	newest    time.Time
	newestGen store.Generation
}

type cacheEntry struct {
	id      chunkID
	part    int
	gen     store.Generation
	checked time.Time // fetched or revalidated
	absent  bool      // the key had no value
	chunk   *nd.Array // wholePart, inner chunks
	raw     []byte    // indexPart
	size    int64
}

// entryOverhead is what an entry costs beyond its data.
const entryOverhead = 128

func (p *CachePool) on() bool { return p != nil && p.limit > 0 }

// get returns a copy of the entry of (id, part), counting nothing.
func (p *CachePool) get(id chunkID, part int) (cacheEntry, bool) {
	if !p.on() {
		return cacheEntry{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.chunks[id]
	if c == nil {
		return cacheEntry{}, false
	}
	el := c.parts[part]
	if el == nil {
		return cacheEntry{}, false
	}
	p.lru.MoveToFront(el)
	return *el.Value.(*cacheEntry), true
}

// put stores an entry, replacing the one of the same part.
func (p *CachePool) put(e cacheEntry) {
	if !p.on() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.putLocked(e)
}

func (p *CachePool) putLocked(e cacheEntry) {
	e.size = entryOverhead + int64(len(e.raw))
	if e.chunk != nil {
		e.size += chunkBytes(e.chunk)
	}
	if e.size > p.limit {
		p.drop(e.id, e.part)
		return
	}
	c := p.chunks[e.id]
	if c == nil {
		c = &cachedChunk{parts: map[int]*list.Element{}}
		p.chunks[e.id] = c
	}
	if c.newest.After(e.checked) && (c.newestGen != e.gen || e.gen == "") {
		return // a write or a later read knows better
	}
	c.newest, c.newestGen = e.checked, e.gen
	if el := c.parts[e.part]; el != nil {
		old := el.Value.(*cacheEntry)
		p.used += e.size - old.size
		*old = e
		p.lru.MoveToFront(el)
	} else {
		c.parts[e.part] = p.lru.PushFront(&e)
		p.used += e.size
	}
	p.evict()
}

// touch records that the store confirmed an entry unchanged.
func (p *CachePool) touch(id chunkID, part int, gen store.Generation, now time.Time) {
	if !p.on() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Revalidated++
	if c := p.chunks[id]; c != nil {
		if el := c.parts[part]; el != nil {
			if e := el.Value.(*cacheEntry); e.gen == gen {
				e.checked = now
				if gen == c.newestGen && now.After(c.newest) {
					c.newest = now
				}
			}
		}
	}
}

func (p *CachePool) count(hit bool) {
	if !p.on() {
		return
	}
	p.mu.Lock()
	if hit {
		p.stats.Hits++
	} else {
		p.stats.Misses++
	}
	p.mu.Unlock()
}

// forget drops every entry of a stored chunk (when a shard changed while
// it was read).
func (p *CachePool) forget(id chunkID) {
	if !p.on() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forgetLocked(id)
}

func (p *CachePool) forgetLocked(id chunkID) {
	if c := p.chunks[id]; c != nil {
		for part := range c.parts {
			p.drop(id, part)
		}
	}
}

// wrote replaces every entry of a stored chunk with what a write stored
// (chunk nil: the key was deleted), at generation gen ("" if the store did
// not say). Reads that started before the write cannot replace it.
func (p *CachePool) wrote(id chunkID, gen store.Generation, chunk *nd.Array, at time.Time) {
	if !p.on() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forgetLocked(id)
	p.putLocked(cacheEntry{id: id, part: wholePart, gen: gen, checked: at, chunk: chunk, absent: chunk == nil})
}

// drop removes one entry; the caller holds the lock.
func (p *CachePool) drop(id chunkID, part int) {
	c := p.chunks[id]
	if c == nil {
		return
	}
	if el := c.parts[part]; el != nil {
		p.used -= el.Value.(*cacheEntry).size
		p.lru.Remove(el)
		delete(c.parts, part)
	}
	if len(c.parts) == 0 {
		delete(p.chunks, id)
	}
}

// evict drops the least recently used entries beyond the limit; the caller
// holds the lock.
func (p *CachePool) evict() {
	for p.used > p.limit {
		el := p.lru.Back()
		if el == nil {
			p.used = 0
			return
		}
		e := el.Value.(*cacheEntry)
		p.drop(e.id, e.part)
		p.stats.Evictions++
	}
}

// chunkBytes estimates the memory a decoded chunk holds.
func chunkBytes(a *nd.Array) int64 {
	n := int64(len(a.Raw()))
	for _, o := range a.RawObjects() {
		n += 16
		switch v := o.(type) {
		case string:
			n += int64(len(v))
		case []byte:
			n += int64(len(v))
		default:
			n += 32
		}
	}
	return n
}

// Recheck says when a cached chunk is confirmed with the store before it is
// used, as TensorStore's recheck_cached_data: always (the zero value), never,
// once per open, or when it is older than a duration. Confirming is a
// conditional request (If-None-Match over HTTP: a 304 carries no body; a
// file's identity on disk; a counter in memory). A store without
// generations cannot confirm anything: under any policy but RecheckNever its
// chunks are read again.
type Recheck struct {
	mode  recheckMode
	after time.Duration
	since time.Time
}

type recheckMode uint8

const (
	recheckAlways recheckMode = iota
	recheckNever
	recheckOpen
	recheckAfter
	recheckSince
)

var (
	// RecheckAlways confirms every cached chunk on every read.
	RecheckAlways = Recheck{mode: recheckAlways}
	// RecheckNever trusts cached chunks: no request at all.
	RecheckNever = Recheck{mode: recheckNever}
	// RecheckOpen confirms chunks cached before the array was opened,
	// once, and trusts chunks cached since.
	RecheckOpen = Recheck{mode: recheckOpen}
)

// RecheckAfter trusts cached chunks confirmed less than d ago.
func RecheckAfter(d time.Duration) Recheck { return Recheck{mode: recheckAfter, after: d} }

// RecheckSince trusts cached chunks confirmed at or after t, and confirms
// older ones (TensorStore's recheck_cached_data given as a time).
func RecheckSince(t time.Time) Recheck { return Recheck{mode: recheckSince, since: t} }

func (r Recheck) String() string {
	switch r.mode {
	case recheckNever:
		return "never"
	case recheckOpen:
		return "open"
	case recheckAfter:
		return r.after.String()
	case recheckSince:
		return "since " + r.since.UTC().Format(time.RFC3339Nano)
	}
	return "always"
}

// fresh reports whether an entry confirmed at checked may be used without
// asking the store, for an array opened at opened.
func (r Recheck) fresh(checked, opened, now time.Time) bool {
	switch r.mode {
	case recheckNever:
		return true
	case recheckOpen:
		return !checked.Before(opened)
	case recheckAfter:
		return now.Sub(checked) < r.after
	case recheckSince:
		return !checked.Before(r.since)
	}
	return false
}

// storeIdentity is what identifies a store for the cache and write locks:
// its Identity when it has one, else the store value itself when it is a
// pointer (every store of this package), else a value of its own (such a
// store shares nothing between opens).
func storeIdentity(s Store) any {
	if id, ok := s.(store.Identifier); ok {
		return id.Identity()
	}
	if isPointer(s) {
		return s
	}
	return new(byte)
}
