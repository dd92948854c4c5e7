// Package urlfetch reads byte ranges of files by URL through a Fetcher,
// in as few requests as it can: ranges of one file that arrive together
// (within a short window, or in one batch) are merged by the engine's one
// coalescing rule (store.Coalescing), and the merged requests run
// concurrently under one bound: a store.Batcher does that. Reference sets (zarr/refs) and Icechunk's
// virtual chunks (zarr/icechunk) read their files through it.
package urlfetch

import (
	"context"
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
	DefaultWindow      = store.DefaultWindow
	DefaultConcurrency = store.DefaultBatchConcurrency
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
type Answer = store.Fetched

// Range is one read of a batch: N bytes at Off (N < 0: to the end; Off 0
// and N < 0: the whole file), for Key (named in messages).
type Range = store.RangeRead

// Result is a batch read's answer or error.
type Result = store.RangeResult

// Coalescer merges and runs reads of files through a Fetcher: a
// store.Batcher whose objects are URLs. It is safe for concurrent use.
type Coalescer struct {
	f    Fetcher
	b    *store.Batcher
	what string

	fetches atomic.Int64
}

// New returns a Coalescer reading through f.
func New(f Fetcher, o Options) *Coalescer {
	c := &Coalescer{f: f, what: o.What}
	if c.what == "" {
		c.what = "file"
	}
	c.b = store.NewBatcher(c.fetch, store.BatchOptions{Gap: o.Gap, MaxRequest: o.MaxRequest, Window: o.Window, Concurrency: o.Concurrency})
	return c
}

// Fetches is how many fetches the Coalescer has made (for tests and tools).
func (c *Coalescer) Fetches() int64 { return c.fetches.Load() }

// Read reads n bytes at off of url (n < 0: to the end; off 0 and n < 0:
// the whole file), merged with the other reads of url that arrive within
// the window.
func (c *Coalescer) Read(ctx context.Context, key, url string, off, n int64) (Answer, error) {
	return c.b.Read(ctx, key, url, off, n)
}

// ReadMany reads ranges of url at once, merged without waiting: the way to
// read a known set of ranges in the fewest requests.
func (c *Coalescer) ReadMany(ctx context.Context, url string, ranges []Range) []Result {
	return c.b.ReadMany(ctx, url, ranges)
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

// Suffix reads the last n bytes of url (not merged).
func (c *Coalescer) Suffix(ctx context.Context, key, url string, n int64) ([]byte, error) {
	if err := c.b.Acquire(ctx, key); err != nil {
		return nil, err
	}
	defer c.b.Release()
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
	if err := c.b.Acquire(ctx, key); err != nil {
		return nil, false, err
	}
	defer c.b.Release()
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
