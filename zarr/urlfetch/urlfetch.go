// Package urlfetch reads byte ranges of files by URL through a Fetcher,
// in as few requests as it can: ranges of one file that arrive together
// (within a short window, or in one batch) are merged by the engine's one
// coalescing rule (store.Coalescing), and the merged requests run
// concurrently under one bound. Reference sets (zarr/refs) and Icechunk's
// virtual chunks (zarr/icechunk) read their files through it.
package urlfetch

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Fetcher reads a byte range of a file by URL (store.WholeValue for all of
// it); ok is false when the file does not exist.
type Fetcher interface {
	Fetch(ctx context.Context, url string, r store.ByteRange) (data []byte, ok bool, err error)
}

// FetcherFunc makes a function a Fetcher (a hook that signs or re-routes
// requests can wrap another Fetcher this way).
type FetcherFunc func(ctx context.Context, url string, r store.ByteRange) ([]byte, bool, error)

func (f FetcherFunc) Fetch(ctx context.Context, url string, r store.ByteRange) ([]byte, bool, error) {
	return f(ctx, url, r)
}

// ValidatingFetcher is a Fetcher that also returns its answer's
// validators, the ETag and Last-Modified headers ("" when absent), so that
// a reader can notice a file that changed since it was referenced.
type ValidatingFetcher interface {
	Fetcher
	FetchWithValidators(ctx context.Context, url string, r store.ByteRange) (data []byte, ok bool, etag, lastModified string, err error)
}

// Defaults of Options.
const (
	DefaultWindow      = 2 * time.Millisecond
	DefaultConcurrency = 16
)

// Options tune a Coalescer; zero values take the defaults.
type Options struct {
	// Gap and MaxRequest are the merging rule (0: store.DefaultCoalescing's;
	// a negative Gap never merges).
	Gap, MaxRequest int64
	// Window is how long a read waits for other reads of the same file to
	// merge with (0: DefaultWindow; negative: no waiting).
	Window time.Duration
	// Concurrency bounds the fetches in flight (0: DefaultConcurrency).
	Concurrency int
	// What names the files in messages ("reference target").
	What string
}

// Answer is what a read gets: its bytes and the validators of the fetch
// they came from (when the Fetcher is a ValidatingFetcher).
type Answer struct {
	Data               []byte
	ETag, LastModified string
}

// Range is one read of a batch: N bytes at Off (N < 0: to the end; Off 0
// and N < 0: the whole file), for Key (named in messages).
type Range struct {
	Key    string
	Off, N int64
}

// Result is a batch read's answer or error.
type Result struct {
	Answer
	Err error
}

// request is one read waiting for its fetch.
type request struct {
	key  string // for messages
	off  int64
	n    int64
	ctx  context.Context
	done chan struct{}
	ans  Answer
	err  error
}

// Coalescer merges and runs reads of files through a Fetcher. It is safe
// for concurrent use.
type Coalescer struct {
	f      Fetcher
	rule   store.Coalescing
	merge  bool
	window time.Duration
	sem    chan struct{}
	what   string

	mu      sync.Mutex
	pending map[string][]*request

	fetches atomic.Int64
}

// New returns a Coalescer reading through f.
func New(f Fetcher, o Options) *Coalescer {
	c := &Coalescer{f: f, rule: store.DefaultCoalescing, merge: o.Gap >= 0, window: o.Window, what: o.What, pending: map[string][]*request{}}
	if o.Gap > 0 {
		c.rule.Gap = o.Gap
	}
	if o.MaxRequest > 0 {
		c.rule.MaxRequest = o.MaxRequest
	}
	if c.window == 0 {
		c.window = DefaultWindow
	}
	if c.what == "" {
		c.what = "file"
	}
	n := o.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	c.sem = make(chan struct{}, n)
	return c
}

// Fetches is how many fetches the Coalescer has made (for tests and tools).
func (c *Coalescer) Fetches() int64 { return c.fetches.Load() }

func newRequest(ctx context.Context, key string, off, n int64) *request {
	return &request{key: key, off: off, n: n, ctx: ctx, done: make(chan struct{})}
}

// Read reads n bytes at off of url (n < 0: to the end; off 0 and n < 0:
// the whole file), merged with the other reads of url that arrive within
// the window.
func (c *Coalescer) Read(ctx context.Context, key, url string, off, n int64) (Answer, error) {
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
		return r.ans, r.err
	case <-ctx.Done():
		return Answer{}, errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
	}
}

// ReadMany reads ranges of url at once, merged without waiting: the way to
// read a known set of ranges in the fewest requests.
func (c *Coalescer) ReadMany(ctx context.Context, url string, ranges []Range) []Result {
	reqs := make([]*request, len(ranges))
	for i, r := range ranges {
		reqs[i] = newRequest(ctx, r.Key, r.Off, r.N)
	}
	c.run(url, reqs)
	out := make([]Result, len(reqs))
	for i, r := range reqs {
		out[i] = Result{Answer: r.ans, Err: r.err}
	}
	return out
}

func (c *Coalescer) flush(url string) {
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
func (c *Coalescer) plan(reqs []*request) []*block {
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
	if !c.merge {
		for _, r := range ranged {
			out = append(out, &block{off: r.off, n: r.n, reqs: []*request{r}})
		}
		return out
	}
	extents := make([]store.Extent, len(ranged))
	for i, r := range ranged {
		extents[i] = store.Extent{Offset: r.off, Length: r.n}
	}
	for _, m := range c.rule.Coalesce(extents) {
		b := &block{off: m.Offset, n: m.Length}
		for _, i := range m.Members {
			b.reqs = append(b.reqs, ranged[i])
		}
		out = append(out, b)
	}
	return out
}

// run fetches the requests of one URL and answers them.
func (c *Coalescer) run(url string, reqs []*request) {
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

func (c *Coalescer) fetchBlock(ctx context.Context, url string, b *block) {
	var ans Answer
	var err error
	if b.n == 0 {
		ans.Data = []byte{}
	} else {
		select {
		case c.sem <- struct{}{}:
			ans, err = c.fetch(ctx, b.reqs[0].key, url, b.off, b.n)
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
			r.ans = ans
			r.ans.Data, r.err = c.cut(ans.Data, b.off, r, url, overlap)
		}
		close(r.done)
	}
}

// cut takes a request's bytes out of its block's data (which starts at off).
func (c *Coalescer) cut(data []byte, off int64, r *request, url string, copyOut bool) ([]byte, error) {
	start := r.off - off
	if r.n < 0 {
		if start > int64(len(data)) {
			return nil, errs.New(errs.Store, r.key, "%s has %d bytes, the read starts at %d", url, off+int64(len(data)), r.off)
		}
		return data[start:], nil
	}
	end := start + r.n
	if end > int64(len(data)) {
		return nil, errs.New(errs.Store, r.key, "%s ends at byte %d, the read wants bytes %d-%d", url, off+int64(len(data)), r.off, r.off+r.n-1)
	}
	out := data[start:end:end]
	if copyOut {
		out = append([]byte(nil), out...)
	}
	return out, nil
}

// call makes one call to the Fetcher, with validators when it gives them.
func (c *Coalescer) call(ctx context.Context, url string, r store.ByteRange) (Answer, bool, error) {
	c.fetches.Add(1)
	if vf, ok := c.f.(ValidatingFetcher); ok {
		data, found, etag, lm, err := vf.FetchWithValidators(ctx, url, r)
		return Answer{Data: data, ETag: etag, LastModified: lm}, found, err
	}
	data, found, err := c.f.Fetch(ctx, url, r)
	return Answer{Data: data}, found, err
}

// fetch makes one call to the Fetcher and checks what it returns.
func (c *Coalescer) fetch(ctx context.Context, key, url string, off, n int64) (Answer, error) {
	r := store.WholeValue()
	switch {
	case n >= 0:
		r = store.Span(off, n)
	case off != 0:
		r = store.From(off)
	}
	ans, ok, err := c.call(ctx, url, r)
	if err != nil {
		return Answer{}, fetchError(ctx, key, url, err)
	}
	if !ok {
		return Answer{}, errs.New(errs.Store, key, "%s %s does not exist", c.what, url)
	}
	if n >= 0 && int64(len(ans.Data)) > n {
		// a fetcher (or server) that ignored the range: these bytes are
		// not the ones asked for
		return Answer{}, errs.New(errs.Store, key, "reading %s returned %d bytes for %s", url, len(ans.Data), r)
	}
	return ans, nil
}

// acquire takes a place among the fetches in flight.
func (c *Coalescer) acquire(ctx context.Context, key string) error {
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return errs.Wrap(errs.Aborted, key, ctx.Err(), "aborted")
	}
}

// Suffix reads the last n bytes of url (not merged).
func (c *Coalescer) Suffix(ctx context.Context, key, url string, n int64) ([]byte, error) {
	if err := c.acquire(ctx, key); err != nil {
		return nil, err
	}
	defer func() { <-c.sem }()
	ans, ok, err := c.call(ctx, url, store.Last(n))
	if err != nil {
		return nil, fetchError(ctx, key, url, err)
	}
	if !ok {
		return nil, errs.New(errs.Store, key, "%s %s does not exist", c.what, url)
	}
	if int64(len(ans.Data)) > n {
		return nil, errs.New(errs.Store, key, "reading the last %d bytes of %s returned %d bytes", n, url, len(ans.Data))
	}
	return ans.Data, nil
}

// Get reads a whole file (not merged); a missing file is ok == false.
func (c *Coalescer) Get(ctx context.Context, key, url string) ([]byte, bool, error) {
	if err := c.acquire(ctx, key); err != nil {
		return nil, false, err
	}
	defer func() { <-c.sem }()
	ans, ok, err := c.call(ctx, url, store.WholeValue())
	if err != nil {
		return nil, false, fetchError(ctx, key, url, err)
	}
	return ans.Data, ok, nil
}

// fetchError is the error of a failed read of url for key: the fetcher's
// own code when it gave one, else ABORTED when ctx ended, else STORE.
func fetchError(ctx context.Context, key, url string, err error) error {
	if ctx.Err() != nil {
		return errs.Wrap(errs.Aborted, key, err, "aborted reading %s", url)
	}
	return errs.Wrap(errs.Store, key, err, "cannot read %s", url)
}
