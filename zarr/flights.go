package zarr

import (
	"context"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

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
