package refs

import (
	"context"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Defaults for reading targets (Options documents them).
const (
	DefaultMaxGap      = 64 << 10 // store.DefaultCoalescing's gap
	DefaultMaxBlock    = 16 << 20 // store.DefaultCoalescing's largest request
	DefaultWindow      = store.DefaultBatchWindow
	DefaultConcurrency = store.DefaultBatchConcurrency
)

// coalescer reads reference targets through a store.Batcher: reads of one
// URL that arrive within a short window (or come together from GetMany)
// are merged when the gap between them is at most maxGap and the merged
// block at most maxBlock, at most `limit` fetches at a time for the whole
// store.
type coalescer struct {
	*store.Batcher
	f Fetcher
}

func newCoalescer(f Fetcher, opt *Options) *coalescer {
	gap, block, window := opt.MaxGap, opt.MaxBlock, opt.Window
	if gap == 0 {
		gap = DefaultMaxGap
	}
	if block == 0 {
		block = DefaultMaxBlock
	}
	if window == 0 {
		window = DefaultWindow
	}
	n := opt.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	c := &coalescer{f: f}
	c.Batcher = store.NewBatcher(c.fetch, store.Coalescing{Gap: gap, MaxRequest: block}, window, n)
	return c
}

// read waits for one request, batched with others for the same URL.
func (c *coalescer) read(ctx context.Context, key, url string, off, n int64) ([]byte, error) {
	return c.Read(ctx, key, url, off, n)
}

// fetch makes one call to the Fetcher and checks what it returns.
func (c *coalescer) fetch(ctx context.Context, key, url string, off, n int64) ([]byte, error) {
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
	release, err := c.Acquire(ctx, key)
	if err != nil {
		return nil, err
	}
	defer release()
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
	release, err := c.Acquire(ctx, key)
	if err != nil {
		return nil, false, err
	}
	defer release()
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
