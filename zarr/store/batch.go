package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

// Batcher turns reads of byte ranges of a few objects into as few
// requests as it can: reads of one object that arrive within a short
// window (or come together from Run) are merged by a Coalescing policy,
// and the merged requests go out concurrently, at most a set number at a
// time. The targets of a reference set and the entries of a zip read from
// a server both read through one (with DefaultCoalescing), so reads of
// several chunks at once cost a request per neighbourhood, not per chunk.
type Batcher struct {
	fetch  BatchFetch
	policy Coalescing // Gap < 0: never merge
	window time.Duration
	sem    chan struct{}

	mu      sync.Mutex
	pending map[string][]*BatchRequest
}

// The window and concurrency of the Batchers of reference sets and zips:
// reads that come together (the chunks of one read, asked for at once by
// the engine's goroutines) arrive within microseconds; a window of 2 ms
// costs a lone read little beside a request's round trip.
const (
	DefaultBatchWindow      = 2 * time.Millisecond
	DefaultBatchConcurrency = 16
)

// BatchFetch reads n bytes at off of target (n < 0: to its end; off 0 and
// n < 0: the whole object) for key (the key a read is for, for messages),
// checking what comes back.
type BatchFetch func(ctx context.Context, key, target string, off, n int64) ([]byte, error)

// NewBatcher makes a Batcher reading with fetch: reads of one target within
// window (< 0: none, each read goes out alone) merged by policy, at most
// concurrency requests at a time.
func NewBatcher(fetch BatchFetch, policy Coalescing, window time.Duration, concurrency int) *Batcher {
	return &Batcher{fetch: fetch, policy: policy, window: window, sem: make(chan struct{}, max(concurrency, 1)), pending: map[string][]*BatchRequest{}}
}

// BatchRequest is one read of a Batcher: a range of a target (N >= 0), or
// the rest of it from Off (N < 0; Off 0 is the whole object). Data and Err
// are set once Done is closed.
type BatchRequest struct {
	Key    string // for messages
	Off, N int64
	Data   []byte
	Err    error

	ctx  context.Context
	done chan struct{}
}

// NewBatchRequest is a read for Run.
func NewBatchRequest(ctx context.Context, key string, off, n int64) *BatchRequest {
	return &BatchRequest{Key: key, Off: off, N: n, ctx: ctx, done: make(chan struct{})}
}

// Read waits for one read, batched with others of the same target.
func (b *Batcher) Read(ctx context.Context, key, target string, off, n int64) ([]byte, error) {
	r := NewBatchRequest(ctx, key, off, n)
	if b.window < 0 {
		go b.Run(target, []*BatchRequest{r})
	} else {
		b.mu.Lock()
		q := b.pending[target]
		b.pending[target] = append(q, r)
		if len(q) == 0 {
			go func() {
				time.Sleep(b.window)
				b.flush(target)
			}()
		}
		b.mu.Unlock()
	}
	select {
	case <-r.done:
		return r.Data, r.Err
	case <-ctx.Done():
		return nil, errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
	}
}

// Acquire takes one of the Batcher's request slots, for a read that is not
// batched (release gives it back).
func (b *Batcher) Acquire(ctx context.Context, key string) (release func(), err error) {
	select {
	case b.sem <- struct{}{}:
		return func() { <-b.sem }, nil
	case <-ctx.Done():
		return nil, errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
	}
}

func (b *Batcher) flush(target string) {
	b.mu.Lock()
	q := b.pending[target]
	delete(b.pending, target)
	b.mu.Unlock()
	b.Run(target, q)
}

// batch is one request: a range of a target and the reads it serves.
type batch struct {
	off, n int64 // n < 0: to the end
	reqs   []*BatchRequest
}

// plan merges the reads of one target into requests.
func (b *Batcher) plan(reqs []*BatchRequest) []*batch {
	var out []*batch
	var ranged []*BatchRequest
	var whole *batch
	for _, r := range reqs {
		switch {
		case r.N >= 0:
			ranged = append(ranged, r)
		case r.Off == 0:
			if whole == nil {
				whole = &batch{n: -1}
				out = append(out, whole)
			}
			whole.reqs = append(whole.reqs, r)
		default:
			out = append(out, &batch{off: r.Off, n: -1, reqs: []*BatchRequest{r}})
		}
	}
	if whole != nil {
		// the whole object is read anyway: every range comes from it
		// (fsspec does the same)
		whole.reqs = append(whole.reqs, ranged...)
		return out
	}
	if b.policy.Gap < 0 { // no merging
		for _, r := range ranged {
			out = append(out, &batch{off: r.Off, n: r.N, reqs: []*BatchRequest{r}})
		}
		return out
	}
	extents := make([]Extent, len(ranged))
	for i, r := range ranged {
		extents[i] = Extent{Offset: r.Off, Length: r.N}
	}
	for _, m := range b.policy.Coalesce(extents) {
		x := &batch{off: m.Offset, n: m.Length}
		for _, i := range m.Members {
			x.reqs = append(x.reqs, ranged[i])
		}
		out = append(out, x)
	}
	return out
}

// Run reads reqs, all of target, in as few requests as the policy allows,
// and answers them (each BatchRequest's Data or Err).
func (b *Batcher) Run(target string, reqs []*BatchRequest) {
	if len(reqs) == 0 {
		return
	}
	// The request stops when every caller waiting for it has given up.
	// (Goroutines rather than context.AfterFunc and WithoutCancel, which
	// would add 8 KB brotli to the core build for this alone.)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var live atomic.Int64
	live.Store(int64(len(reqs)))
	for _, r := range reqs {
		go func() {
			select {
			case <-r.ctx.Done():
				if live.Add(-1) == 0 {
					cancel()
				}
			case <-ctx.Done():
			}
		}()
	}
	batches := b.plan(reqs)
	var wg sync.WaitGroup
	for _, x := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.fetchBatch(ctx, target, x)
		}()
	}
	wg.Wait()
}

func (b *Batcher) fetchBatch(ctx context.Context, target string, x *batch) {
	var data []byte
	var err error
	if x.n == 0 {
		data = []byte{}
	} else {
		select {
		case b.sem <- struct{}{}:
			data, err = b.fetch(ctx, x.reqs[0].Key, target, x.off, x.n)
			<-b.sem
		case <-ctx.Done():
			err = errs.Wrap(errs.Aborted, x.reqs[0].Key, ctx.Err(), "aborted")
		}
	}
	overlap := false
	for i := 1; i < len(x.reqs); i++ {
		p, r := x.reqs[i-1], x.reqs[i]
		if p.N < 0 || r.N < 0 || r.Off < p.Off+p.N {
			overlap = true
		}
	}
	for _, r := range x.reqs {
		if err != nil {
			r.Err = err
		} else {
			r.Data, r.Err = cut(data, x.off, r, target, overlap)
		}
		close(r.done)
	}
}

// cut takes a read's bytes out of its request's data (which starts at off).
func cut(data []byte, off int64, r *BatchRequest, target string, copyOut bool) ([]byte, error) {
	start := r.Off - off
	if r.N < 0 {
		if start > int64(len(data)) {
			return nil, errs.New(errs.Store, r.Key, "%s has %d bytes, the read starts at %d", target, off+int64(len(data)), r.Off)
		}
		return data[start:], nil
	}
	end := start + r.N
	if end > int64(len(data)) {
		return nil, errs.New(errs.Store, r.Key, "%s ends at byte %d, the read wants bytes %d-%d", target, off+int64(len(data)), r.Off, r.Off+r.N-1)
	}
	out := data[start:end:end]
	if copyOut {
		out = append([]byte(nil), out...)
	}
	return out, nil
}
