package zarr

import (
	"context"
	"sync"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

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
