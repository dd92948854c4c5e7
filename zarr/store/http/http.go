// Package http reads (and, on object stores, writes) Zarr over HTTP for
// native Go programs: Store is a Zarr store at a base URL or an object-store
// location (s3://bucket/prefix, gs://bucket/prefix, see urlx.ObjectURL), and
// Fetcher reads byte ranges of any http(s) URL, which is how a refs.Store
// reaches its targets (it implements refs.Fetcher). Both use net/http, so
// neither belongs in the WebAssembly build, where the JS fetch does this job
// (npm/lib/stores.js follows the same policy, with the same defaults).
//
// Semantics, for both:
//   - 404 and 410 mean absent (ok == false, nil error), unless the body is
//     an S3 error document that says otherwise (NoSuchBucket); a 403 is
//     described under Store;
//   - a ranged read must be answered 206 with a Content-Range for the bytes
//     asked for; a server that ignores Range (200 with the whole file) is
//     an error rather than wrong bytes, unless Options.AcceptFullResponse
//     lets the client cut the range out of the whole body; a 200 is fine
//     for a range that starts at 0 and runs to the end;
//   - bodies are read with a cap: a 206 may carry the bytes asked for plus
//     RangeSlack, a whole object at most Options.MaxBodyBytes; a longer
//     body is an error at once (the connection is closed, not drained);
//   - an attempt fails when the response headers, or the next bytes of the
//     body, take longer than Options.Timeout; one read gives up after
//     Options.TotalTimeout, attempts and waits included;
//   - network errors, attempts that time out, truncated bodies (fewer bytes
//     than Content-Length or Content-Range announce) and the statuses 408,
//     425, 429, 500, 502, 503 and 504 are retried (Options.Retries times)
//     after an exponential back-off with jitter, or after the Retry-After
//     the server sends; a Retry-After longer than Options.MaxRetryDelay (or
//     than the time left) ends the read at once; other statuses are errors.
//
// Versions (Store.ReadVersion): an answer's generation is its ETag, or its
// Last-Modified date when there is no ETag. Conditions become If-Match (a
// 412 answer is a CONFLICT error) or If-Unmodified-Since, and If-None-Match
// (a 304 answer is NotModified, without a body) or If-Modified-Since. A weak
// ETag is never sent as If-Match (it cannot match); the answer's ETag is
// compared instead, as it is for servers that ignore the conditions.
//
// Signed requests: with Options.Credentials every request but those to a
// presigned URL is signed with AWS Signature Version 4 (zarr/s3), in the
// region Options.Region (or the one the host names; else us-east-1).
//
// Errors are *errs.Error with code STORE (ABORTED when the caller's context
// ends, CONFLICT for a failed condition, ACCESS_DENIED and NOT_FOUND as
// s3.Failure classifies object stores' errors), naming the URL.
package http

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	nethttp "net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

// The defaults of Options: the same numbers as the npm package's FetchStore
// and reference reader (docs/stores.md, "Timeouts, caps and retries").
const (
	DefaultTimeout       = 30 * time.Second
	DefaultTotalTimeout  = 2 * time.Minute
	DefaultRetries       = 3
	DefaultRetryDelay    = 200 * time.Millisecond
	DefaultMaxRetryDelay = 10 * time.Second
	DefaultMaxBodyBytes  = 1 << 30
	// RangeSlack is how many bytes beyond the range asked for a 206 body
	// may run before the read is stopped (they are then an error too; the
	// slack only lets the message say how many came).
	RangeSlack = 4096
)

// Options configure requests. Zero values mean the defaults above.
type Options struct {
	// Client sends the requests (nil: http.DefaultClient; the timeouts
	// below apply whatever the client's own).
	Client *nethttp.Client
	// Header is added to every request (authorization, for instance).
	Header nethttp.Header
	// Retries is how many times a failed request is retried (0: 3;
	// negative: none).
	Retries int
	// RetryDelay is the first back-off (0: 200 ms), doubled each time and
	// spread by a random factor between 0.5 and 1.5.
	RetryDelay time.Duration
	// MaxRetryDelay bounds a back-off (0: 10 s); a Retry-After longer than
	// this ends the read instead of being waited for.
	MaxRetryDelay time.Duration
	// Timeout is how long one attempt may wait for the response headers,
	// and then for each next piece of the body (0: 30 s; negative: none).
	Timeout time.Duration
	// TotalTimeout bounds one read, every attempt and back-off included
	// (0: 2 min; negative: none).
	TotalTimeout time.Duration
	// MaxBodyBytes bounds the body of a whole object (0: 1 GiB). A ranged
	// read's body is bounded by its length plus RangeSlack.
	MaxBodyBytes int64
	// AcceptFullResponse lets a ranged read be served from a 200 response
	// carrying the whole file (the range is cut out of it, MaxBodyBytes
	// bounding the file). Off by default: the whole file may be large.
	AcceptFullResponse bool
	// Modify, if set, may change each request before it is sent (sign it,
	// point it elsewhere). It runs after the request is signed.
	Modify func(*nethttp.Request) error

	// Region is an S3 bucket's region: it maps s3:// locations
	// (urlx.LocationOptions) and is the region requests are signed for
	// ("": the one the host name gives, else us-east-1).
	Region string
	// Endpoint is an S3-compatible server's URL: s3://bucket/prefix is
	// then <endpoint>/bucket/prefix (path-style), and the server is known
	// to answer S3's listing.
	Endpoint string
	// Credentials, when set, are asked for the keys every request is
	// signed with (AWS Signature Version 4); asked again shortly before
	// they expire (s3.Credentials.Expires) and when the server says they
	// did. StaticCredentials makes one from fixed keys.
	Credentials func(ctx context.Context) (s3.Credentials, error)
	// MissingStatus are the HTTP statuses that mean "no such key" (nil:
	// s3.DefaultMissing, 403, 404 and 410; see Store for how a 403 is
	// read). []int{404, 410} makes every 403 an ACCESS_DENIED error.
	MissingStatus []int
	// Writable lets a Store write (PUT and DELETE) without Credentials,
	// to a server that takes anonymous writes; with Credentials a Store
	// for an object store location writes anyway.
	Writable bool
	// ConditionalWrites says whether a Store sends its writes' conditions
	// (If-None-Match: *, If-Match): ProbeConditions (the default) tries
	// once whether the server honours them, TrustConditions sends them
	// without trying, NoConditions never sends them.
	ConditionalWrites Conditional
}

// Conditional is Options.ConditionalWrites.
type Conditional int

const (
	ProbeConditions Conditional = iota
	TrustConditions
	NoConditions
)

// StaticCredentials returns an Options.Credentials that always gives c.
func StaticCredentials(c s3.Credentials) func(context.Context) (s3.Credentials, error) {
	return func(context.Context) (s3.Credentials, error) { return c, nil }
}

type client struct {
	opt   Options
	creds *credentialCache
}

func newClient(opt Options) *client {
	c := &client{opt: opt}
	if opt.Credentials != nil {
		c.creds = &credentialCache{fn: opt.Credentials}
	}
	return c
}

func (c *client) retries() int {
	switch {
	case c.opt.Retries < 0:
		return 0
	case c.opt.Retries == 0:
		return DefaultRetries
	}
	return c.opt.Retries
}

func (c *client) missing() []int {
	if c.opt.MissingStatus == nil {
		return s3.DefaultMissing
	}
	return c.opt.MissingStatus
}

// orDefault returns v, or def when v is 0 (negative: 0, meaning none).
func orDefault[T ~int64](v, def T) T {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return def
	}
	return v
}

// credentialCache keeps the last credentials Options.Credentials gave.
type credentialCache struct {
	fn   func(context.Context) (s3.Credentials, error)
	mu   sync.Mutex
	cur  s3.Credentials
	have bool
}

// get returns the credentials, asking for new ones when there are none,
// they expire within a minute, or refresh is set (the server said they
// expired).
func (cc *credentialCache) get(ctx context.Context, refresh bool) (s3.Credentials, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.have && !refresh && (cc.cur.Expires.IsZero() || time.Until(cc.cur.Expires) > time.Minute) {
		return cc.cur, nil
	}
	c, err := cc.fn(ctx)
	if err != nil {
		return s3.Credentials{}, errs.Wrap(errs.AccessDenied, "", err, "getting credentials")
	}
	cc.cur, cc.have = c, true
	return c, nil
}

// Fetcher reads byte ranges of http and https URLs.
type Fetcher struct{ c *client }

// NewFetcher returns a Fetcher.
func NewFetcher(opt Options) *Fetcher { return &Fetcher{c: newClient(opt)} }

// Fetch reads r of url (store.WholeValue: the whole file). A missing file
// is ok == false; a 403 is an error (ACCESS_DENIED), whatever
// Options.MissingStatus says, since nothing tells a missing target from a
// refused one (an expired presigned URL).
func (f *Fetcher) Fetch(ctx context.Context, u string, r store.ByteRange) ([]byte, bool, error) {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return nil, false, errs.New(errs.Unsupported, u, "only http and https URLs can be fetched (map other schemes with refs.Options.URLMap)")
	}
	v, err := f.c.do(ctx, request{method: nethttp.MethodGet, url: u, where: u, r: r})
	return v.Data, v.Found, err
}

// FetchWithValidators is Fetch that also returns the answer's ETag and
// Last-Modified headers ("" when absent), for a caller that checks the
// file's version itself (an Icechunk virtual chunk records the one it
// was written against: zarr/icechunk's ValidatingFetcher).
func (f *Fetcher) FetchWithValidators(ctx context.Context, u string, r store.ByteRange) (data []byte, ok bool, etag, lastModified string, err error) {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return nil, false, "", "", errs.New(errs.Unsupported, u, "only http and https URLs can be fetched")
	}
	var val validators
	v, err := f.c.do(ctx, request{method: nethttp.MethodGet, url: u, where: u, r: r, val: &val})
	return v.Data, v.Found, val.etag, val.lastModified, err
}

// validators are an answer's ETag and Last-Modified headers.
type validators struct{ etag, lastModified string }

// request is one exchange with the server, retried as the package
// comment says.
type request struct {
	method string // GET, PUT or DELETE
	url    string
	where  string // names it in errors: a store key, or the URL
	// bucket and key name the object in S3's errors ("" when unknown).
	bucket, key string
	r           store.ByteRange  // GET
	cond        store.Conditions // GET
	body        []byte           // PUT
	// ifMatch makes a PUT or DELETE conditional: store.Absent sends
	// If-None-Match: *, another generation If-Match ("": none).
	ifMatch store.Generation
	// maxBody bounds a whole body (0: Options.MaxBodyBytes).
	maxBody int64
	// deniedAbsent: a GET answered 403 that s3.Missing accepts is an
	// absent key (Versioned.Denied), not an error.
	deniedAbsent bool
	// val, when not nil, receives a GET's answer's validators.
	val *validators
}

func (q *request) what() string { return q.method + " " + q.url }

// rangeHeader is the Range header for r, "" for the whole file.
func rangeHeader(r store.ByteRange) string {
	if n, ok := r.Suffix(); ok {
		return "bytes=-" + strconv.FormatInt(n, 10)
	}
	off, n := r.Bounds()
	if n < 0 {
		return "bytes=" + strconv.FormatInt(off, 10) + "-"
	}
	return "bytes=" + strconv.FormatInt(off, 10) + "-" + strconv.FormatInt(off+n-1, 10)
}

// lastModified marks a generation taken from Last-Modified (no ETag).
const lastModified = "last-modified:"

// generation is the version of an answer: its ETag, else its Last-Modified.
func generation(h nethttp.Header) store.Generation {
	if e := h.Get("ETag"); e != "" {
		return store.Generation(e)
	}
	if lm := h.Get("Last-Modified"); lm != "" {
		return store.Generation(lastModified + lm)
	}
	return ""
}

// readConditions sets the headers of c (a GET's) with set.
func readConditions(set func(name, value string), c store.Conditions) {
	if g := string(c.IfMatch); g != "" && c.IfMatch != store.Absent {
		if date, ok := strings.CutPrefix(g, lastModified); ok {
			set("If-Unmodified-Since", date)
		} else if !strings.HasPrefix(g, "W/") {
			set("If-Match", g) // (a weak ETag never matches If-Match)
		}
	}
	if g := string(c.IfNoneMatch); g != "" && c.IfNoneMatch != store.Absent {
		if date, ok := strings.CutPrefix(g, lastModified); ok {
			set("If-Modified-Since", date)
		} else {
			set("If-None-Match", g)
		}
	}
}

// errRetry marks a failure worth retrying.
type errRetry struct {
	err   error
	after time.Duration // the server's Retry-After (-1: none)
	// expired: the server said the credentials expired (retried once,
	// with new ones)
	expired bool
}

func (e *errRetry) Error() string { return e.err.Error() }

var (
	errStalled = errors.New("stalled")
	errTotal   = errors.New("total timeout")
)

// do makes a request, retrying failures worth another attempt.
func (c *client) do(ctx context.Context, q request) (store.Versioned, error) {
	where, u, r := q.where, q.url, q.r
	if _, suffix := r.Suffix(); q.method == nethttp.MethodGet && !r.IsWhole() && !suffix {
		off, n := r.Bounds()
		if off < 0 {
			return store.Versioned{}, errs.New(errs.Store, where, "bad range %s", r)
		}
		if n == 0 && q.cond == (store.Conditions{}) {
			// no Range header can ask for nothing; the bytes are known
			// (whether the file exists is not checked)
			return store.Versioned{Data: []byte{}, Found: true}, nil
		}
	}
	delay := orDefault(c.opt.RetryDelay, DefaultRetryDelay)
	maxDelay := orDefault(c.opt.MaxRetryDelay, DefaultMaxRetryDelay)
	caller := ctx
	var deadline time.Time // of the total timeout (zero: none)
	if total := orDefault(c.opt.TotalTimeout, DefaultTotalTimeout); total > 0 {
		deadline = time.Now().Add(total)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, deadline, errTotal)
		defer cancel()
	}
	attempts := 0
	fail := func(err error, format string, args ...any) error {
		msg := fmtx.Sprintf(format, args...)
		if attempts > 1 {
			msg += fmtx.Sprintf(" (%d attempts)", attempts)
		}
		return errs.Wrap(errs.Store, where, err, "%s %s: %s", q.method, u, msg)
	}
	ended := func(last error) error {
		if caller.Err() != nil {
			return errs.Wrap(errs.Aborted, where, caller.Err(), "aborted")
		}
		return fail(last, "gave up after %v (the total timeout)", orDefault(c.opt.TotalTimeout, DefaultTotalTimeout))
	}
	refreshed := false
	for attempt := 0; ; attempt++ {
		attempts = attempt + 1
		v, err := c.once(ctx, &q)
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			return store.Versioned{}, ended(err)
		}
		if errs.CodeOf(err) == errs.Conflict {
			return store.Versioned{}, errs.Wrap(errs.Conflict, where, err, "%s", q.what())
		}
		var re *errRetry
		if !errors.As(err, &re) {
			if _, typed := err.(*errs.Error); typed {
				return store.Versioned{}, err // (s3.Failure: classified, and names the request)
			}
			return store.Versioned{}, fail(err, "failed")
		}
		if re.expired {
			if refreshed || c.creds == nil {
				return store.Versioned{}, re.err
			}
			refreshed = true
			if _, err := c.creds.get(ctx, true); err != nil {
				return store.Versioned{}, err
			}
			continue // at once, with the new credentials
		}
		if attempt >= c.retries() {
			return store.Versioned{}, fail(re.err, "failed")
		}
		wait := time.Duration(float64(delay<<uint(min(attempt, 30))) * (0.5 + rand.Float64()))
		if wait > maxDelay || wait < 0 {
			wait = maxDelay
		}
		if re.after >= 0 {
			if re.after > maxDelay {
				return store.Versioned{}, fail(re.err, "the server asks to retry after %v, longer than the %v this client waits", re.after, maxDelay)
			}
			wait = re.after
		}
		if !deadline.IsZero() && time.Until(deadline) < wait && caller.Err() == nil {
			return store.Versioned{}, fail(re.err, "failed, and the next attempt (in %v) would pass the total timeout", wait.Round(time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return store.Versioned{}, ended(re.err)
		}
	}
}

// once makes one request. Its context ends when the headers, or the next
// bytes of the body, take longer than the attempt timeout.
func (c *client) once(ctx context.Context, q *request) (store.Versioned, error) {
	r := q.r
	whole := r.IsWhole()
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := orDefault(c.opt.Timeout, DefaultTimeout)
	var timer *time.Timer
	if stall > 0 {
		timer = time.AfterFunc(stall, func() { cancel(errStalled) })
		defer timer.Stop()
	}
	// retryable wraps a transport failure: a stalled attempt says so.
	retryable := func(err error) error {
		if context.Cause(actx) == errStalled {
			err = fmtx.Errorf("no answer for %v (the attempt timeout)", stall)
		}
		return &errRetry{err: err, after: -1}
	}
	var body io.Reader
	if q.method == nethttp.MethodPut {
		body = bytes.NewReader(q.body)
	}
	req, err := nethttp.NewRequestWithContext(actx, q.method, q.url, body)
	if err != nil {
		return store.Versioned{}, err
	}
	for k, vs := range c.opt.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	// signed: the headers set here (beside Host and X-Amz-*), which the
	// signature covers
	var signed []s3.Header
	set := func(name, value string) {
		req.Header.Set(name, value)
		signed = append(signed, s3.Header{Name: name, Value: value})
	}
	if q.method == nethttp.MethodGet {
		if !whole {
			set("Range", rangeHeader(r))
			// byte offsets are offsets of the stored bytes, not of a decoded body
			req.Header.Set("Accept-Encoding", "identity")
		}
		readConditions(set, q.cond)
	}
	switch q.ifMatch {
	case "":
	case store.Absent:
		set("If-None-Match", "*")
	default:
		set("If-Match", string(q.ifMatch))
	}
	if c.creds != nil && !s3.Presigned(q.url) {
		if err := c.sign(ctx, req, q, signed); err != nil {
			return store.Versioned{}, err
		}
	}
	if c.opt.Modify != nil {
		if err := c.opt.Modify(req); err != nil {
			return store.Versioned{}, err
		}
	}
	hc := c.opt.Client
	if hc == nil {
		hc = nethttp.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return store.Versioned{}, err
		}
		return store.Versioned{}, retryable(err)
	}
	// Closing the body before its end closes the connection: an endless or
	// oversized body is never drained.
	defer resp.Body.Close()
	br := &bodyReader{resp: resp, timer: timer, stall: stall, retryable: retryable}
	if q.method != nethttp.MethodGet {
		return c.writeAnswer(br, q)
	}
	v, err := c.answer(br, q)
	if err != nil {
		return store.Versioned{}, err
	}
	if q.val != nil {
		q.val.etag, q.val.lastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	}
	switch {
	case v.NotModified:
		if v.Generation == "" {
			v.Generation = q.cond.IfNoneMatch
		}
	case v.Found && q.cond.IfMatch != "" && v.Generation != "" && v.Generation != q.cond.IfMatch:
		return store.Versioned{}, store.Conflict(q.url, "changed (ETag %s, expected %s)", string(v.Generation), string(q.cond.IfMatch))
	}
	return v, nil
}

// sign adds the signature headers to req.
func (c *client) sign(ctx context.Context, req *nethttp.Request, q *request, signed []s3.Header) error {
	creds, err := c.creds.get(ctx, false)
	if err != nil {
		return err
	}
	region := c.opt.Region
	if region == "" {
		if l, err := urlx.ParseLocation(q.url, urlx.LocationOptions{}); err == nil {
			region = l.Region
		}
	}
	payload := ""
	if q.method == nethttp.MethodPut {
		payload = s3.PayloadHash(q.body)
	}
	hs, err := s3.Signer{Region: region}.Sign(s3.Request{Method: q.method, URL: q.url, Header: signed, PayloadHash: payload}, creds, time.Now())
	if err != nil {
		return err
	}
	for _, h := range hs {
		req.Header.Set(h.Name, h.Value)
	}
	return nil
}

// failure reads the start of a failed answer's body and classifies it:
// worth another attempt (a retry status or S3 error code, expired
// credentials), or a typed error (s3.Failure).
func (c *client) failure(resp *nethttp.Response, q *request, body []byte) error {
	e, _ := s3.ParseError(body)
	if retryStatus(resp.StatusCode) || s3.IsRetry(e.Code) {
		return &errRetry{err: fmtx.Errorf("%s%s", resp.Status, codeSuffix(e.Code)), after: retryAfter(resp)}
	}
	f := s3.Failure(q.what(), q.where, q.bucket, q.key, resp.StatusCode, resp.Header.Get("x-amz-bucket-region"), body)
	if s3.IsExpired(e.Code) && c.creds != nil {
		return &errRetry{err: f, after: -1, expired: true}
	}
	return f
}

func codeSuffix(code string) string {
	if code == "" {
		return ""
	}
	return " " + code
}

// errorBody reads the start of a failed answer's body (an S3 error
// document is small).
func errorBody(resp *nethttp.Response) []byte {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, s3.MaxErrorBody))
	return b
}

// answer reads the answer to a GET: the bytes and their generation, or an
// error.
func (c *client) answer(body *bodyReader, q *request) (store.Versioned, error) {
	resp, r, whole := body.resp, q.r, q.r.IsWhole()
	gen := generation(resp.Header)
	found := func(data []byte, err error) (store.Versioned, error) {
		if err != nil {
			return store.Versioned{}, err
		}
		return store.Versioned{Data: data, Found: true, Generation: gen}, nil
	}
	maxBody := orDefault(c.opt.MaxBodyBytes, DefaultMaxBodyBytes)
	if q.maxBody > 0 {
		maxBody = q.maxBody
	}
	switch {
	case resp.StatusCode == nethttp.StatusNotModified:
		drain(resp)
		return store.Versioned{Found: true, Generation: gen, NotModified: true}, nil
	case resp.StatusCode == nethttp.StatusPreconditionFailed:
		drain(resp)
		return store.Versioned{}, store.Conflict(resp.Request.URL.String(), "changed (412 Precondition Failed)")
	case resp.StatusCode == nethttp.StatusRequestedRangeNotSatisfiable:
		return store.Versioned{}, fmtx.Errorf("%s: %s is past the end (%s)", resp.Status, r, resp.Header.Get("Content-Range"))
	case resp.StatusCode == nethttp.StatusPartialContent:
		if whole {
			return store.Versioned{}, fmtx.Errorf("206 Partial Content to a request without Range")
		}
		return found(readPartial(body, r, maxBody))
	case resp.StatusCode == nethttp.StatusOK:
		_, suffix := r.Suffix()
		off, n := r.Bounds()
		full := whole || (!suffix && off == 0 && n < 0) // "bytes=0-" is the whole file anyway
		if !full && !c.opt.AcceptFullResponse {
			return store.Versioned{}, fmtx.Errorf("the server ignored the Range header (200 OK instead of 206) for %s", r)
		}
		data, err := body.read(maxBody, "a whole object (MaxBodyBytes)")
		if err != nil || full {
			return found(data, err)
		}
		return found(cutFull(data, r))
	}
	eb := errorBody(resp)
	e, _ := s3.ParseError(eb)
	if s3.Missing(resp.StatusCode, e, c.missing()) && (resp.StatusCode != nethttp.StatusForbidden || q.deniedAbsent) {
		return store.Versioned{Generation: store.Absent, Denied: resp.StatusCode == nethttp.StatusForbidden}, nil
	}
	return store.Versioned{}, c.failure(resp, q, eb)
}

// writeAnswer reads the answer to a PUT or DELETE: the new generation (a
// PUT's ETag; Absent after a DELETE), a CONFLICT when a condition failed.
func (c *client) writeAnswer(body *bodyReader, q *request) (store.Versioned, error) {
	resp := body.resp
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		drain(resp)
		if q.method == nethttp.MethodDelete {
			return store.Versioned{Generation: store.Absent}, nil
		}
		return store.Versioned{Found: true, Generation: generation(resp.Header)}, nil
	case code == nethttp.StatusPreconditionFailed, code == nethttp.StatusConflict:
		// (409 ConditionalRequestConflict: another conditional write of
		// the key was under way)
		drain(resp)
		return store.Versioned{}, store.Conflict(q.where, "changed since it was read (%s %s: %s)", q.method, q.url, resp.Status)
	case code == nethttp.StatusNotFound && q.ifMatch != "" && q.ifMatch != store.Absent:
		drain(resp)
		return store.Versioned{}, store.Conflict(q.where, "deleted since it was read (%s %s: %s)", q.method, q.url, resp.Status)
	case code == nethttp.StatusNotFound && q.method == nethttp.MethodDelete:
		eb := errorBody(resp)
		if e, ok := s3.ParseError(eb); ok && e.Code == "NoSuchBucket" {
			return store.Versioned{}, c.failure(resp, q, eb)
		}
		return store.Versioned{Generation: store.Absent}, nil // (already gone)
	}
	return store.Versioned{}, c.failure(resp, q, errorBody(resp))
}

// drain reads a little of an unused body, so a short one leaves the
// connection reusable; a long one is cut off by closing.
func drain(resp *nethttp.Response) { io.CopyN(io.Discard, resp.Body, 4096) }

// retryStatus reports the statuses worth another attempt.
func retryStatus(code int) bool {
	switch code {
	case 408, 425, 429, 500, 502, 503, 504:
		return true
	}
	return false
}

// retryAfter reads Retry-After (seconds or an HTTP date); -1 when absent
// or unreadable.
func retryAfter(resp *nethttp.Response) time.Duration {
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return -1
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		if s > 1<<20 {
			s = 1 << 20
		}
		return time.Duration(s) * time.Second
	}
	if t, err := nethttp.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return -1
}

// bodyReader reads a response body with a cap, keeping the attempt alive
// while bytes arrive.
type bodyReader struct {
	resp      *nethttp.Response
	timer     *time.Timer
	stall     time.Duration
	retryable func(error) error
}

// read returns the body, failing (without retry) once it would pass max
// bytes; what names the cap. A body cut short (fewer bytes than
// Content-Length, a reset) is a retryable error.
func (b *bodyReader) read(max int64, what string) ([]byte, error) {
	cl := b.resp.ContentLength
	if cl > max {
		return nil, fmtx.Errorf("the response announces %d bytes, over the %d-byte cap for %s", cl, max, what)
	}
	var buf bytes.Buffer
	if cl > 0 {
		buf.Grow(int(min(cl, 64<<20)))
	}
	chunk := make([]byte, 64<<10)
	for {
		n, err := b.resp.Body.Read(chunk)
		if n > 0 {
			if int64(buf.Len()+n) > max {
				return nil, fmtx.Errorf("the response body runs past the %d-byte cap for %s; connection closed", max, what)
			}
			buf.Write(chunk[:n])
			if b.timer != nil {
				b.timer.Reset(b.stall)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, b.retryable(fmtx.Errorf("reading the body: %w", err))
		}
	}
	if cl >= 0 && int64(buf.Len()) != cl && !b.resp.Uncompressed {
		return nil, &errRetry{err: fmtx.Errorf("body of %d bytes, Content-Length %d", buf.Len(), cl), after: -1}
	}
	return buf.Bytes(), nil
}

// readPartial checks a 206 answers the range asked for, reading at most
// the bytes it announces (and never more than the range plus RangeSlack).
func readPartial(b *bodyReader, r store.ByteRange, maxBody int64) ([]byte, error) {
	resp := b.resp
	cr := resp.Header.Get("Content-Range")
	first, last, total, err := parseContentRange(cr)
	if err != nil {
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "multipart/byteranges") {
			return nil, fmtx.Errorf("multipart 206 response to a single range")
		}
		return nil, fmtx.Errorf("206 with Content-Range %q: %v", cr, err)
	}
	limit := maxBody
	suffix, isSuffix := r.Suffix()
	off, n := r.Bounds()
	switch {
	case isSuffix:
		limit = min(limit, suffix+RangeSlack)
	case n >= 0:
		limit = min(limit, n+RangeSlack)
	}
	body, err := b.read(limit, "a "+r.String()+" read")
	if err != nil {
		return nil, err
	}
	if int64(len(body)) != last-first+1 {
		return nil, &errRetry{err: fmtx.Errorf("206 body of %d bytes for Content-Range %q", len(body), cr), after: -1}
	}
	switch {
	case isSuffix:
		// bytes=-N: the last N bytes, or the whole file if it is shorter
		if total >= 0 && (last != total-1 || last-first+1 != min(suffix, total)) {
			return nil, fmtx.Errorf("Content-Range %q does not answer the last %d bytes", cr, suffix)
		}
	default:
		if first != off {
			return nil, fmtx.Errorf("Content-Range %q does not answer %s", cr, r)
		}
		if n >= 0 {
			want := off + n - 1
			// fewer bytes only at the end of the file
			if last > want || (last < want && (total < 0 || last != total-1)) {
				return nil, fmtx.Errorf("Content-Range %q does not answer %s", cr, r)
			}
		} else if total >= 0 && last != total-1 {
			return nil, fmtx.Errorf("Content-Range %q does not answer %s", cr, r)
		}
	}
	return body, nil
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
	size := int64(len(body))
	if suffix, ok := r.Suffix(); ok {
		return body[max(0, size-suffix):], nil
	}
	off, n := r.Bounds()
	if off >= size && !(off == 0 && size == 0) {
		return nil, fmtx.Errorf("%s is past the end of a %d-byte file", r, size)
	}
	end := size
	if n >= 0 {
		end = min(size, off+n)
	}
	return body[off:end], nil
}
