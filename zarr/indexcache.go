package zarr

import (
	"container/list"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// indexCache keeps shard indexes between reads, whatever the chunk cache
// does: a read of part of a shard then costs only its inner chunks'
// requests. Only indexes read with a generation are kept, since the inner
// chunks are read on condition that the shard is still that generation: a
// shard rewritten since fails that condition, and the read starts over
// with a fresh index (shardAttempts), so a kept index never gives other
// values. Bounded by bytes; least recently used first out.
type indexCache struct {
	mu    sync.Mutex
	limit int
	bytes int
	order *list.List // of *indexEntry, most recent at the front
	m     map[chunkID]*list.Element
}

type indexEntry struct {
	id  chunkID
	gen store.Generation
	raw []byte
}

// maxCachedIndexes bounds the bytes of shard indexes kept (a 32×32 shard's
// index is 16 KiB: about a thousand such shards).
const maxCachedIndexes = 16 << 20

var shardIndexes = &indexCache{limit: maxCachedIndexes, order: list.New(), m: map[chunkID]*list.Element{}}

func (c *indexCache) get(id chunkID) (raw []byte, gen store.Generation, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[id]
	if !ok {
		return nil, "", false
	}
	c.order.MoveToFront(el)
	e := el.Value.(*indexEntry)
	return e.raw, e.gen, true
}

func (c *indexCache) put(id chunkID, gen store.Generation, raw []byte) {
	if gen == "" || len(raw) > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[id]; ok {
		c.bytes -= len(el.Value.(*indexEntry).raw)
		c.order.Remove(el)
		delete(c.m, id)
	}
	c.m[id] = c.order.PushFront(&indexEntry{id: id, gen: gen, raw: raw})
	c.bytes += len(raw)
	for c.bytes > c.limit {
		last := c.order.Back()
		e := last.Value.(*indexEntry)
		c.order.Remove(last)
		delete(c.m, e.id)
		c.bytes -= len(e.raw)
	}
}

func (c *indexCache) forget(id chunkID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[id]; ok {
		c.bytes -= len(el.Value.(*indexEntry).raw)
		c.order.Remove(el)
		delete(c.m, id)
	}
}
