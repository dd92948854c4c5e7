//go:build js && wasm && (!zarrcore || zarricechunk)

package jsbridge

import (
	"context"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Reading other files by URL from JS: the targets of reference sets
// (zarr/refs) and the files of Icechunk's virtual chunks (zarr/icechunk)
// are read through a JS function the npm wrapper passes in (fetch with
// Range, checked answers, retries).

var jsAbortController = js.Global().Get("AbortController")

// jsFetcher reads URLs through a JS function
//
//	read(url, range, signal) → Promise<Uint8Array | {data, etag, lastModified} | undefined>
//
// where range is null (the whole file), {offset, length} ({offset} alone:
// to the end) or {suffix}, and undefined means the file does not exist;
// the object form also gives the answer's ETag and Last-Modified headers
// (Icechunk checks them). It is a refs.Fetcher and an
// icechunk.ValidatingFetcher. Each Fetch awaits its own promise from the
// calling goroutine, so the coalescer's merged blocks are fetched
// concurrently. The request is aborted (through an AbortController of its
// own) when ctx ends: the coalescer cancels a merged fetch only once every
// read waiting for it has given up, which the JS signal of any one API
// call cannot express.
type jsFetcher struct{ read js.Value }

func (f jsFetcher) Fetch(ctx context.Context, url string, r store.ByteRange) ([]byte, bool, error) {
	data, ok, _, _, err := f.FetchWithValidators(ctx, url, r)
	return data, ok, err
}

func (f jsFetcher) FetchWithValidators(ctx context.Context, url string, r store.ByteRange) (data []byte, ok bool, etag, lastModified string, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, "", "", errs.Wrap(errs.Aborted, url, err, "aborted")
	}
	q := js.Null()
	if !r.IsWhole() {
		q = jsObject.New()
		if n, ok := r.Suffix(); ok {
			q.Set("suffix", n)
		} else {
			off, n := r.Bounds()
			q.Set("offset", off)
			if n >= 0 {
				q.Set("length", n)
			}
		}
	}
	ac := jsAbortController.New()
	stop := context.AfterFunc(ctx, func() { ac.Call("abort") })
	defer stop()
	p, err := invoke(f.read, url, q, ac.Get("signal"))
	if err != nil {
		return nil, false, "", "", err
	}
	v, err := await(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, "", "", errs.Wrap(errs.Aborted, url, ctx.Err(), "aborted")
		}
		return nil, false, "", "", err
	}
	if v.Type() == js.TypeObject && !v.InstanceOf(jsUint8Array) {
		etag, lastModified = optString(v.Get("etag")), optString(v.Get("lastModified"))
		v = v.Get("data")
	}
	data, ok, err = bytesFromJS(url, v)
	return data, ok, etag, lastModified, err
}

// invoke calls a JS function and converts a synchronous throw into an error.
func invoke(fn js.Value, args ...any) (v js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			if je, ok := r.(js.Error); ok {
				err = jsErr(je.Value)
				return
			}
			err = errs.New(errs.Store, "", "%v", r)
		}
	}()
	return fn.Invoke(args...), nil
}
