package store

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Batcher reads byte ranges of objects (a zip file, a reference set's
// target files) in as few requests as it can: reads of one object that
// arrive together — within a short window, or in one ReadMany — are merged
// by a Coalescing policy, and the merged requests run concurrently under
// one bound. The engine reads an array's chunks concurrently, so a window
// read of a zipped array or of a reference set becomes a few merged
// requests instead of one per chunk. Zip reads its entries through one;
// package urlfetch builds its Coalescer on one. Safe for concurrent use.
type Batcher struct {
	fetch  BatchFetch
	rule   Coalescing
	window time.Duration
	sem    chan struct{}

	mu      sync.Mutex
	pending map[string]*batch
}

// batch is the reads of one object that wait to be run together, and the
// context of their requests, which ends when every read has given up.
type batch struct {
	reqs   []*batchRead
	live   atomic.Int64
	ctx    context.Context
	cancel context.CancelFunc
}

// BatchFetch makes one request: n bytes at off of object (n < 0: to the
// end; off 0 and n < 0: all of it). key names the first read it serves, in
// messages; its error reaches every read the request serves, each named.
type BatchFetch func(ctx context.Context, key, object string, off, n int64) (Fetched, error)

// Fetched is the answer to a read: its bytes and the validators of the
// request they came from (ETag and Last-Modified, "" when unknown).
type Fetched struct {
	Data               []byte
	ETag, LastModified string
}

// BatchOptions tune a Batcher; zero values take the defaults.
type BatchOptions struct {
	// Gap and MaxRequest are the merging policy (0: DefaultCoalescing's;
	// a negative Gap never merges).
	Gap, MaxRequest int64
	// Window is how long a read waits for other reads of the same object
	// to merge with (0: DefaultWindow; negative: no waiting).
	Window time.Duration
	// Concurrency bounds the requests in flight (0: DefaultBatchConcurrency).
	Concurrency int
}

// Defaults of BatchOptions. A window of 2 ms is short next to a request's
// round trip and long enough for the engine's concurrent chunk reads to
// arrive together.
const (
	DefaultWindow           = 2 * time.Millisecond
	DefaultBatchConcurrency = 16
)

// RangeRead is one read of a ReadMany: N bytes at Off (N < 0: to the end;
// Off 0 and N < 0: the whole object), for Key (named in messages).
type RangeRead struct {
	Key    string
	Off, N int64
}

// RangeResult is a ReadMany read's answer or error.
type RangeResult struct {
	Fetched
	Err error
}

// batchRead is one read waiting for its request.
type batchRead struct {
	key      string // for messages
	off, end int64  // end: toEnd for a read to the end
	done     chan struct{}
	ans      Fetched
	err      error
}

// toEnd is where a read to the end of its object is planned to end.
const toEnd = 1 << 62

// NewBatcher returns a Batcher making its requests with fetch.
func NewBatcher(fetch BatchFetch, o BatchOptions) *Batcher {
	b := &Batcher{fetch: fetch, rule: DefaultCoalescing, window: o.Window, pending: map[string]*batch{}}
	switch {
	case o.Gap < 0:
		b.rule.Gap = math.MinInt64 // never merges
	case o.Gap > 0:
		b.rule.Gap = o.Gap
	}
	if o.MaxRequest > 0 {
		b.rule.MaxRequest = o.MaxRequest
	}
	if b.window == 0 {
		b.window = DefaultWindow
	}
	n := o.Concurrency
	if n <= 0 {
		n = DefaultBatchConcurrency
	}
	b.sem = make(chan struct{}, n)
	return b
}

func newBatchRead(key string, off, n int64) *batchRead {
	end := int64(toEnd)
	if n >= 0 {
		end = off + n
	}
	return &batchRead{key: key, off: off, end: end, done: make(chan struct{})}
}

// Read reads n bytes at off of object (n < 0: to the end; off 0 and n < 0:
// all of it), merged with the other reads of object that arrive within the
// window.
func (b *Batcher) Read(ctx context.Context, key, object string, off, n int64) (Fetched, error) {
	r := newBatchRead(key, off, n)
	b.mu.Lock()
	q := b.pending[object]
	if q == nil {
		// (the requests keep the first read's context values, such as a
		// JS AbortSignal, but end only with the last read waiting)
		q = &batch{}
		q.ctx, q.cancel = context.WithCancel(detached{ctx})
		if b.window > 0 { // (else the read goes alone)
			b.pending[object] = q
		}
		go b.flush(object, q)
	}
	q.reqs = append(q.reqs, r)
	q.live.Add(1)
	b.mu.Unlock()
	select {
	case <-r.done:
		return r.ans, r.err
	case <-ctx.Done():
		if q.live.Add(-1) == 0 {
			q.cancel()
		}
		return Fetched{}, errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
	}
}

// ReadMany reads ranges of object at once, merged without waiting: the way
// to read a known set of ranges in the fewest requests.
func (b *Batcher) ReadMany(ctx context.Context, object string, ranges []RangeRead) []RangeResult {
	reqs := make([]*batchRead, len(ranges))
	for i, r := range ranges {
		reqs[i] = newBatchRead(r.Key, r.Off, r.N)
	}
	b.run(ctx, object, reqs)
	out := make([]RangeResult, len(reqs))
	for i, r := range reqs {
		out[i] = RangeResult{Fetched: r.ans, Err: r.err}
	}
	return out
}

// Acquire takes a place among the requests in flight, for a request made
// outside the Batcher (Release gives it back).
func (b *Batcher) Acquire(ctx context.Context, key string) error {
	select {
	case b.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
	}
}

// Release gives back a place taken by Acquire.
func (b *Batcher) Release() { <-b.sem }

// flush runs the batch q of object's reads once the window has passed.
func (b *Batcher) flush(object string, q *batch) {
	if b.window > 0 {
		time.Sleep(b.window)
	}
	b.mu.Lock()
	if b.pending[object] == q {
		delete(b.pending, object)
	}
	reqs := q.reqs
	b.mu.Unlock()
	b.run(q.ctx, object, reqs)
	q.cancel()
}

// detached is a context with ctx's values but none of its cancellation.
type detached struct{ context.Context }

func (detached) Done() <-chan struct{} { return nil }
func (detached) Err() error            { return nil }

// run merges the reads of one object into requests by the policy, makes
// them concurrently under ctx and answers the reads.
func (b *Batcher) run(ctx context.Context, object string, reqs []*batchRead) {
	extents := make([]Extent, len(reqs))
	for i, r := range reqs {
		extents[i] = Extent{Offset: r.off, Length: r.end - r.off}
	}
	var wg sync.WaitGroup
	for _, m := range b.rule.Coalesce(extents) {
		wg.Add(1)
		go func() {
			b.fetchBlock(ctx, object, m, reqs)
			wg.Done()
		}()
	}
	wg.Wait()
}

// fetchBlock makes the request m and answers its reads.
func (b *Batcher) fetchBlock(ctx context.Context, object string, m Merged, reqs []*batchRead) {
	key := reqs[m.Members[0]].key
	n := m.Length
	if m.Offset+n >= toEnd {
		n = -1
	}
	var ans Fetched
	var err error
	if n == 0 {
		ans.Data = []byte{}
	} else if err = b.Acquire(ctx, key); err == nil {
		ans, err = b.fetch(ctx, key, object, m.Offset, n)
		b.Release()
	}
	copyOut, reach := false, m.Offset // reads that overlap get copies
	for _, i := range m.Members {
		r := reqs[i]
		copyOut = copyOut || r.off < reach
		reach = max(reach, r.end)
	}
	for _, i := range m.Members {
		r := reqs[i]
		r.ans = ans
		if err != nil {
			r.err = errs.Wrap(errs.Store, r.key, err, "") // (naming each read's key)
		} else {
			start, end := r.off-m.Offset, min(r.end-m.Offset, int64(len(ans.Data)))
			switch {
			case r.end != toEnd && r.end-m.Offset != end || start > end:
				r.err = errs.New(errs.Store, r.key, "%s ends at byte %d, before the read's end", object, m.Offset+int64(len(ans.Data)))
			case copyOut:
				r.ans.Data = append([]byte(nil), ans.Data[start:end]...)
			default:
				r.ans.Data = ans.Data[start:end:end]
			}
		}
		close(r.done)
	}
}
