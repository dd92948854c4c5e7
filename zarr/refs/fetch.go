package refs

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Defaults for reading targets (Options documents them).
const (
	DefaultMaxGap      = 64 << 10 // store.DefaultCoalescing's gap
	DefaultMaxBlock    = 16 << 20 // store.DefaultCoalescing's largest request
	DefaultWindow      = 2 * time.Millisecond
	DefaultConcurrency = 16
)

// request is one byte range (n >= 0) of a URL, or the rest of it from off
// (n < 0; off == 0 is the whole file).
type request struct {
	key  string // for messages
	off  int64
	n    int64
	ctx  context.Context
	done chan struct{}
	data []byte
	err  error
}

// coalescer turns reads of targets into as few fetches as it can: reads of
// one URL that arrive within a short window (or come together from GetMany)
// are merged when the gap between them is at most maxGap and the merged
// block at most maxBlock, and the merged blocks are fetched concurrently,
// at most `limit` at a time for the whole store.
type coalescer struct {
	f        Fetcher
	maxGap   int64
	maxBlock int64
	window   time.Duration
	sem      chan struct{}

	mu      sync.Mutex
	pending map[string][]*request

	fetches atomic.Int64 // fetches issued (for tests and tools)
}

func newCoalescer(f Fetcher, opt *Options) *coalescer {
	c := &coalescer{f: f, maxGap: opt.MaxGap, maxBlock: opt.MaxBlock, window: opt.Window, pending: map[string][]*request{}}
	if c.maxGap == 0 {
		c.maxGap = DefaultMaxGap
	}
	if c.maxBlock == 0 {
		c.maxBlock = DefaultMaxBlock
	}
	if c.window == 0 {
		c.window = DefaultWindow
	}
	n := opt.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	c.sem = make(chan struct{}, n)
	return c
}

func newRequest(ctx context.Context, key string, off, n int64) *request {
	return &request{key: key, off: off, n: n, ctx: ctx, done: make(chan struct{})}
}

// read waits for one request, batched with others for the same URL.
func (c *coalescer) read(ctx context.Context, key, url string, off, n int64) ([]byte, error) {
	r := newRequest(ctx, key, off, n)
	if c.window < 0 {
		go c.run(url, []*request{r})
	} else {
		c.mu.Lock()
		q := c.pending[url]
		c.pending[url] = append(q, r)
		if len(q) == 0 {
			time.AfterFunc(c.window, func() { c.flush(url) })
		}
		c.mu.Unlock()
	}
	select {
	case <-r.done:
		return r.data, r.err
	case <-ctx.Done():
		return nil, errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
	}
}

func (c *coalescer) flush(url string) {
	c.mu.Lock()
	q := c.pending[url]
	delete(c.pending, url)
	c.mu.Unlock()
	c.run(url, q)
}

// block is one fetch: a range of a URL and the requests it serves.
type block struct {
	off, n int64 // n < 0: to the end
	reqs   []*request
}

// plan merges the requests of one URL into blocks.
func (c *coalescer) plan(reqs []*request) []*block {
	var out []*block
	var ranged []*request
	var whole *block
	for _, r := range reqs {
		switch {
		case r.n >= 0:
			ranged = append(ranged, r)
		case r.off == 0:
			if whole == nil {
				whole = &block{n: -1}
				out = append(out, whole)
			}
			whole.reqs = append(whole.reqs, r)
		default:
			out = append(out, &block{off: r.off, n: -1, reqs: []*request{r}})
		}
	}
	if whole != nil {
		// the whole file is fetched anyway: every range comes from it
		// (fsspec does the same)
		whole.reqs = append(whole.reqs, ranged...)
		return out
	}
	if c.maxGap < 0 { // no merging
		for _, r := range ranged {
			out = append(out, &block{off: r.off, n: r.n, reqs: []*request{r}})
		}
		return out
	}
	extents := make([]store.Extent, len(ranged))
	for i, r := range ranged {
		extents[i] = store.Extent{Offset: r.off, Length: r.n}
	}
	for _, m := range (store.Coalescing{Gap: c.maxGap, MaxRequest: c.maxBlock}).Coalesce(extents) {
		b := &block{off: m.Offset, n: m.Length}
		for _, i := range m.Members {
			b.reqs = append(b.reqs, ranged[i])
		}
		out = append(out, b)
	}
	return out
}

// run fetches the requests of one URL and answers them.
func (c *coalescer) run(url string, reqs []*request) {
	if len(reqs) == 0 {
		return
	}
	// The fetch stops when every caller waiting for it has given up.
	ctx, cancel := context.WithCancel(context.WithoutCancel(reqs[0].ctx))
	defer cancel()
	var live atomic.Int64
	live.Store(int64(len(reqs)))
	for _, r := range reqs {
		stop := context.AfterFunc(r.ctx, func() {
			if live.Add(-1) == 0 {
				cancel()
			}
		})
		defer stop()
	}
	blocks := c.plan(reqs)
	var wg sync.WaitGroup
	for _, b := range blocks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.fetchBlock(ctx, url, b)
		}()
	}
	wg.Wait()
}

func (c *coalescer) fetchBlock(ctx context.Context, url string, b *block) {
	var data []byte
	var err error
	if b.n == 0 {
		data = []byte{}
	} else {
		select {
		case c.sem <- struct{}{}:
			data, err = c.fetch(ctx, b.reqs[0].key, url, b.off, b.n)
			<-c.sem
		case <-ctx.Done():
			err = errs.Wrap(errs.Aborted, b.reqs[0].key, ctx.Err(), "aborted")
		}
	}
	overlap := false
	for i := 1; i < len(b.reqs); i++ {
		p, r := b.reqs[i-1], b.reqs[i]
		if p.n < 0 || r.n < 0 || r.off < p.off+p.n {
			overlap = true
		}
	}
	for _, r := range b.reqs {
		if err != nil {
			r.err = err
		} else {
			r.data, r.err = cut(data, b.off, r, url, overlap)
		}
		close(r.done)
	}
}

// cut takes a request's bytes out of its block's data (which starts at off).
func cut(data []byte, off int64, r *request, url string, copyOut bool) ([]byte, error) {
	start := r.off - off
	if r.n < 0 {
		if start > int64(len(data)) {
			return nil, errs.New(errs.Store, r.key, "%s has %d bytes, the reference starts at %d", url, off+int64(len(data)), r.off)
		}
		return data[start:], nil
	}
	end := start + r.n
	if end > int64(len(data)) {
		return nil, errs.New(errs.Store, r.key, "%s ends at byte %d, the reference wants bytes %d-%d", url, off+int64(len(data)), r.off, r.off+r.n-1)
	}
	out := data[start:end:end]
	if copyOut {
		out = append([]byte(nil), out...)
	}
	return out, nil
}

// fetch makes one call to the Fetcher and checks what it returns.
func (c *coalescer) fetch(ctx context.Context, key, url string, off, n int64) ([]byte, error) {
	c.fetches.Add(1)
	r := store.WholeValue()
	switch {
	case n >= 0:
		r = store.Span(off, n)
	case off != 0:
		r = store.From(off)
	}
	data, ok, err := c.f.Fetch(ctx, url, r)
	if err != nil {
		return nil, fetchError(ctx, key, url, err)
	}
	if !ok {
		return nil, errs.New(errs.Store, key, "reference target %s does not exist", url)
	}
	if n >= 0 && int64(len(data)) > n {
		// a fetcher (or server) that ignored the range: these bytes are
		// not the ones asked for
		return nil, errs.New(errs.Store, key, "reading %s returned %d bytes for %s", url, len(data), r)
	}
	return data, nil
}

// fetchSuffix reads the last n bytes of a URL (not batched).
func (c *coalescer) fetchSuffix(ctx context.Context, key, url string, n int64) ([]byte, error) {
	select {
	case c.sem <- struct{}{}:
		defer func() { <-c.sem }()
	case <-ctx.Done():
		return nil, errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
	}
	c.fetches.Add(1)
	data, ok, err := c.f.Fetch(ctx, url, store.Last(n))
	if err != nil {
		return nil, fetchError(ctx, key, url, err)
	}
	if !ok {
		return nil, errs.New(errs.Store, key, "reference target %s does not exist", url)
	}
	if int64(len(data)) > n {
		return nil, errs.New(errs.Store, key, "reading the last %d bytes of %s returned %d bytes", n, url, len(data))
	}
	return data, nil
}

// get reads a whole file (not batched); a missing file is ok == false.
func (c *coalescer) get(ctx context.Context, key, url string) ([]byte, bool, error) {
	select {
	case c.sem <- struct{}{}:
		defer func() { <-c.sem }()
	case <-ctx.Done():
		return nil, false, errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
	}
	c.fetches.Add(1)
	data, ok, err := c.f.Fetch(ctx, url, store.WholeValue())
	if err != nil {
		return nil, false, fetchError(ctx, key, url, err)
	}
	return data, ok, nil
}

// fetchError is the error of a failed read of url for key: the fetcher's
// own code when it gave one, else ABORTED when ctx ended, else STORE.
func fetchError(ctx context.Context, key, url string, err error) error {
	if ctx.Err() != nil {
		return errs.Wrap(errs.Aborted, key, err, "aborted reading %s", url)
	}
	return errs.Wrap(errs.Store, key, err, "cannot read %s", url)
}
