// Package http reads Zarr over HTTP for native Go programs: Store is a
// read-only Zarr store at a base URL, and Fetcher reads byte ranges of any
// http(s) URL, which is how a refs.Store reaches its targets (it implements
// refs.Fetcher). Both use net/http, so neither belongs in the WebAssembly
// build, where the JS fetch does this job.
//
// Semantics, for both:
//   - 404 and 410 mean absent (ok == false, nil error);
//   - a ranged read must be answered 206 with a Content-Range for the bytes
//     asked for; a server that ignores Range (200 with the whole file) is
//     an error rather than wrong bytes, unless Options.AcceptFullResponse
//     lets the client cut the range out of the whole body; a 200 is fine
//     for a range that starts at 0 and runs to the end;
//   - 5xx, 429 and transport errors are retried (Options.Retries times,
//     with exponential back-off from Options.RetryDelay, honouring
//     Retry-After up to Options.MaxRetryDelay); other statuses are errors.
//
// Errors are *errs.Error with code STORE (ABORTED when the context ends),
// naming the URL.
package http

import (
	"context"
	"errors"
	"fmt"
	"io"
	nethttp "net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Options configure requests.
type Options struct {
	// Client sends the requests (nil: http.DefaultClient).
	Client *nethttp.Client
	// Header is added to every request (authorization, for instance).
	Header nethttp.Header
	// Retries is how many times a failed request is retried (0: 3;
	// negative: none).
	Retries int
	// RetryDelay is the first back-off (0: 200 ms), doubled each time.
	RetryDelay time.Duration
	// MaxRetryDelay bounds a back-off or a Retry-After (0: 10 s).
	MaxRetryDelay time.Duration
	// AcceptFullResponse lets a ranged read be served from a 200 response
	// carrying the whole file (the range is cut out of it). Off by
	// default: the whole file may be large.
	AcceptFullResponse bool
	// Modify, if set, may change each request before it is sent (sign it,
	// point it elsewhere).
	Modify func(*nethttp.Request) error
}

type client struct{ opt Options }

func (c *client) retries() int {
	switch {
	case c.opt.Retries < 0:
		return 0
	case c.opt.Retries == 0:
		return 3
	}
	return c.opt.Retries
}

// Fetcher reads byte ranges of http and https URLs.
type Fetcher struct{ c client }

// NewFetcher returns a Fetcher.
func NewFetcher(opt Options) *Fetcher { return &Fetcher{c: client{opt: opt}} }

// Fetch reads r of url (the zero range: the whole file). A missing file is
// ok == false.
func (f *Fetcher) Fetch(ctx context.Context, u string, r store.ByteRange) ([]byte, bool, error) {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return nil, false, errs.New(errs.Unsupported, u, "only http and https URLs can be fetched (map other schemes with refs.Options.URLMap)")
	}
	whole := r == (store.ByteRange{})
	return f.c.get(ctx, u, u, r, whole)
}

// Store is a read-only Zarr store over HTTP: key k is read from
// base + "/" + k (each path segment escaped, the base's query kept).
type Store struct {
	c     client
	base  *url.URL
	query string
}

// NewStore returns a store at baseURL.
func NewStore(baseURL string, opt Options) (*Store, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errs.New(errs.Store, baseURL, "not an http(s) URL")
	}
	s := &Store{c: client{opt: opt}, base: u, query: u.RawQuery}
	return s, nil
}

// URL returns the URL of a key.
func (s *Store) URL(key string) string {
	u := *s.base
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	p := strings.TrimSuffix(u.EscapedPath(), "/") + "/" + strings.Join(segs, "/")
	u.RawPath = ""
	u.Path, _ = url.PathUnescape(p)
	u.RawPath = p
	u.Fragment = ""
	return u.String()
}

// Get reads a key.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	return s.c.get(ctx, key, s.URL(key), store.ByteRange{}, true)
}

// GetRange reads part of a key.
func (s *Store) GetRange(ctx context.Context, key string, r store.ByteRange) ([]byte, bool, error) {
	return s.c.get(ctx, key, s.URL(key), r, false)
}

var (
	_ store.Store       = (*Store)(nil)
	_ store.RangeReader = (*Store)(nil)
)

// rangeHeader is the Range header for r, "" for the whole file.
func rangeHeader(r store.ByteRange) string {
	switch {
	case r.Suffix > 0:
		return "bytes=-" + strconv.FormatInt(r.Suffix, 10)
	case r.Length < 0:
		return "bytes=" + strconv.FormatInt(r.Offset, 10) + "-"
	}
	return "bytes=" + strconv.FormatInt(r.Offset, 10) + "-" + strconv.FormatInt(r.Offset+r.Length-1, 10)
}

// errRetry marks a failure worth retrying.
type errRetry struct {
	err   error
	after time.Duration
}

func (e *errRetry) Error() string { return e.err.Error() }

func (c *client) get(ctx context.Context, where, u string, r store.ByteRange, whole bool) ([]byte, bool, error) {
	if !whole && r.Suffix <= 0 {
		if r.Offset < 0 {
			return nil, false, errs.New(errs.Store, where, "bad range %s", r)
		}
		if r.Length == 0 {
			// no Range header can ask for nothing; the bytes are known
			// (whether the file exists is not checked)
			return []byte{}, true, nil
		}
	}
	delay := c.opt.RetryDelay
	if delay <= 0 {
		delay = 200 * time.Millisecond
	}
	maxDelay := c.opt.MaxRetryDelay
	if maxDelay <= 0 {
		maxDelay = 10 * time.Second
	}
	var last error
	for attempt := 0; ; attempt++ {
		data, ok, err := c.once(ctx, u, r, whole)
		if err == nil {
			return data, ok, nil
		}
		var re *errRetry
		if !errors.As(err, &re) || attempt >= c.retries() {
			if ctx.Err() != nil {
				return nil, false, errs.Wrap(errs.Aborted, where, ctx.Err(), "aborted")
			}
			if re != nil {
				err = re.err
			}
			if attempt > 0 {
				return nil, false, errs.Wrap(errs.Store, where, err, "GET %s failed after %d attempts", u, attempt+1)
			}
			return nil, false, errs.Wrap(errs.Store, where, err, "GET %s", u)
		}
		last = re.err
		wait := delay << uint(attempt)
		if re.after > 0 {
			wait = re.after
		}
		if wait > maxDelay || wait <= 0 {
			wait = maxDelay
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, false, errs.Wrap(errs.Aborted, where, ctx.Err(), "aborted (last error: %v)", last)
		}
	}
}

// once makes one request.
func (c *client) once(ctx context.Context, u string, r store.ByteRange, whole bool) ([]byte, bool, error) {
	req, err := nethttp.NewRequestWithContext(ctx, nethttp.MethodGet, u, nil)
	if err != nil {
		return nil, false, err
	}
	for k, vs := range c.opt.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if !whole {
		req.Header.Set("Range", rangeHeader(r))
		// byte offsets are offsets of the stored bytes, not of a decoded body
		req.Header.Set("Accept-Encoding", "identity")
	}
	if c.opt.Modify != nil {
		if err := c.opt.Modify(req); err != nil {
			return nil, false, err
		}
	}
	hc := c.opt.Client
	if hc == nil {
		hc = nethttp.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, err
		}
		return nil, false, &errRetry{err: err}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == nethttp.StatusNotFound || resp.StatusCode == nethttp.StatusGone:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, false, nil
	case resp.StatusCode >= 500 || resp.StatusCode == nethttp.StatusTooManyRequests || resp.StatusCode == nethttp.StatusRequestTimeout:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, false, &errRetry{err: fmt.Errorf("%s", resp.Status), after: retryAfter(resp)}
	case resp.StatusCode == nethttp.StatusRequestedRangeNotSatisfiable:
		return nil, false, fmt.Errorf("%s: %s is past the end (%s)", resp.Status, r, resp.Header.Get("Content-Range"))
	case resp.StatusCode == nethttp.StatusPartialContent:
		if whole {
			return nil, false, fmt.Errorf("206 Partial Content to a request without Range")
		}
		return readPartial(resp, r)
	case resp.StatusCode == nethttp.StatusOK:
		body, err := readBody(resp)
		if err != nil {
			return nil, false, err
		}
		if whole {
			return body, true, nil
		}
		if r.Suffix <= 0 && r.Offset == 0 && r.Length < 0 {
			return body, true, nil // "bytes=0-" is the whole file anyway
		}
		if !c.opt.AcceptFullResponse {
			return nil, false, fmt.Errorf("the server ignored the Range header (200 OK instead of 206) for %s", r)
		}
		sub, err := cutFull(body, r)
		return sub, err == nil, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	return nil, false, fmt.Errorf("%s", resp.Status)
}

func retryAfter(resp *nethttp.Response) time.Duration {
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := nethttp.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

func readBody(resp *nethttp.Response) ([]byte, error) {
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, &errRetry{err: fmt.Errorf("reading the body: %w", err)}
	}
	if resp.ContentLength >= 0 && int64(len(body)) != resp.ContentLength && !resp.Uncompressed {
		return nil, &errRetry{err: fmt.Errorf("body of %d bytes, Content-Length %d", len(body), resp.ContentLength)}
	}
	return body, nil
}

// readPartial checks a 206 answers the range asked for.
func readPartial(resp *nethttp.Response, r store.ByteRange) ([]byte, bool, error) {
	cr := resp.Header.Get("Content-Range")
	first, last, total, err := parseContentRange(cr)
	if err != nil {
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "multipart/byteranges") {
			return nil, false, fmt.Errorf("multipart 206 response to a single range")
		}
		return nil, false, fmt.Errorf("206 with Content-Range %q: %v", cr, err)
	}
	body, err := readBody(resp)
	if err != nil {
		return nil, false, err
	}
	if int64(len(body)) != last-first+1 {
		return nil, false, &errRetry{err: fmt.Errorf("206 body of %d bytes for Content-Range %q", len(body), cr)}
	}
	switch {
	case r.Suffix > 0:
		// bytes=-N: the last N bytes, or the whole file if it is shorter
		if total >= 0 && (last != total-1 || last-first+1 != min(r.Suffix, total)) {
			return nil, false, fmt.Errorf("Content-Range %q does not answer the last %d bytes", cr, r.Suffix)
		}
	default:
		if first != r.Offset {
			return nil, false, fmt.Errorf("Content-Range %q does not answer %s", cr, r)
		}
		if r.Length >= 0 {
			want := r.Offset + r.Length - 1
			// fewer bytes only at the end of the file
			if last > want || (last < want && (total < 0 || last != total-1)) {
				return nil, false, fmt.Errorf("Content-Range %q does not answer %s", cr, r)
			}
		} else if total >= 0 && last != total-1 {
			return nil, false, fmt.Errorf("Content-Range %q does not answer %s", cr, r)
		}
	}
	return body, true, nil
}

// parseContentRange reads "bytes first-last/total" (total may be "*": -1).
func parseContentRange(s string) (first, last, total int64, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "bytes ")
	if !ok {
		return 0, 0, 0, errors.New("not a bytes range")
	}
	rng, tot, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, 0, errors.New("no total")
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, 0, errors.New("no first-last")
	}
	if first, err = strconv.ParseInt(a, 10, 64); err != nil {
		return
	}
	if last, err = strconv.ParseInt(b, 10, 64); err != nil {
		return
	}
	total = -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil {
			return
		}
		if last >= total {
			return 0, 0, 0, errors.New("last byte past the total")
		}
	}
	if first < 0 || last < first {
		return 0, 0, 0, errors.New("bad first-last")
	}
	return first, last, total, nil
}

// cutFull takes a range out of a whole body, with HTTP's leniency at the
// end of the file.
func cutFull(body []byte, r store.ByteRange) ([]byte, error) {
	n := int64(len(body))
	if r.Suffix > 0 {
		return body[max(0, n-r.Suffix):], nil
	}
	if r.Offset >= n && !(r.Offset == 0 && n == 0) {
		return nil, fmt.Errorf("%s is past the end of a %d-byte file", r, n)
	}
	end := n
	if r.Length >= 0 {
		end = min(n, r.Offset+r.Length)
	}
	return body[r.Offset:end], nil
}
