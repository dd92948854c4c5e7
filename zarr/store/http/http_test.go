package http_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	nethttp "net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
)

var _ refs.Fetcher = (*zhttp.Fetcher)(nil)

// server serves a directory (or in-memory files) on 127.0.0.1 with Range
// support (net/http's ServeContent), counts requests, and can misbehave.
type server struct {
	*httptest.Server
	dir   string
	files map[string][]byte

	mu   sync.Mutex
	log  []string
	fail atomic.Int32 // answer this many requests with 503 first
	// ignoreRange answers 200 with the whole file to ranged requests
	ignoreRange atomic.Bool
	// lie answers a ranged request with the bytes one further on
	lie atomic.Bool
}

func newServer(t *testing.T, dir string, files map[string][]byte) *server {
	s := &server{dir: dir, files: files}
	s.Server = httptest.NewServer(nethttp.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w nethttp.ResponseWriter, r *nethttp.Request) {
	s.mu.Lock()
	s.log = append(s.log, r.URL.Path+" "+r.Header.Get("Range"))
	s.mu.Unlock()
	if s.fail.Load() > 0 {
		s.fail.Add(-1)
		nethttp.Error(w, "try again", nethttp.StatusServiceUnavailable)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	var data []byte
	var ok bool
	if s.files != nil {
		data, ok = s.files[name]
	} else {
		var err error
		data, err = os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(name)))
		ok = err == nil
	}
	if !ok {
		nethttp.NotFound(w, r)
		return
	}
	if s.ignoreRange.Load() {
		w.Write(data)
		return
	}
	if s.lie.Load() && r.Header.Get("Range") != "" {
		var a, b int64
		fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a+1, b+1, len(data)))
		w.WriteHeader(nethttp.StatusPartialContent)
		w.Write(data[a+1 : b+2])
		return
	}
	nethttp.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *server) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
}

var file = []byte("0123456789abcdefghijklmnopqrstuvwxyz")

func TestStore(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t, "", map[string][]byte{"a/b c/k": file, ".zgroup": []byte(`{"zarr_format": 2}`)})
	s, err := zhttp.NewStore(srv.URL+"/a", zhttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Get(ctx, "b c/k")
	if err != nil || !ok || !bytes.Equal(got, file) {
		t.Fatalf("Get: %q %v %v", got, ok, err)
	}
	if _, ok, err := s.Get(ctx, "nope"); ok || err != nil {
		t.Fatalf("404: %v %v", ok, err)
	}
	for _, c := range []struct {
		r    store.ByteRange
		want string
	}{
		{store.Span(3, 4), "3456"},
		{store.From(30), "uvwxyz"},
		{store.Last(5), "vwxyz"},
		{store.Last(100), string(file)},
		{store.Span(33, 10), "xyz"}, // HTTP: fewer bytes at the end
		{store.From(0), string(file)},
	} {
		got, ok, err := s.GetRange(ctx, "b c/k", c.r)
		if err != nil || !ok || string(got) != c.want {
			t.Errorf("%s: %q %v %v, want %q", c.r, got, ok, err, c.want)
		}
	}
	if _, _, err := s.GetRange(ctx, "b c/k", store.Span(50, 2)); errs.CodeOf(err) != errs.Store {
		t.Errorf("range past the end: %v", err)
	}
	if want := srv.URL + "/a/b%20c/k"; s.URL("b c/k") != want {
		t.Errorf("URL %s, want %s", s.URL("b c/k"), want)
	}
	// the engine opens a group over it
	root, _ := zhttp.NewStore(srv.URL, zhttp.Options{})
	if _, err := zarr.OpenGroup(ctx, root, ""); err != nil {
		t.Fatal(err)
	}
}

func TestRangeMustBeHonoured(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t, "", map[string][]byte{"k": file})
	f := zhttp.NewFetcher(zhttp.Options{})
	srv.ignoreRange.Store(true)
	_, _, err := f.Fetch(ctx, srv.URL+"/k", store.Span(3, 4))
	if errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), "ignored the Range") {
		t.Fatalf("200 to a ranged request: %v", err)
	}
	// a range from 0 to the end is the whole file anyway
	if got, ok, err := f.Fetch(ctx, srv.URL+"/k", store.From(0)); err != nil || !ok || !bytes.Equal(got, file) {
		t.Fatalf("bytes=0-: %q %v %v", got, ok, err)
	}
	lenient := zhttp.NewFetcher(zhttp.Options{AcceptFullResponse: true})
	for _, c := range []struct {
		r    store.ByteRange
		want string
	}{
		{store.Span(3, 4), "3456"},
		{store.Last(3), "xyz"},
		{store.Span(34, 9), "yz"},
	} {
		got, ok, err := lenient.Fetch(ctx, srv.URL+"/k", c.r)
		if err != nil || !ok || string(got) != c.want {
			t.Errorf("AcceptFullResponse %s: %q %v %v", c.r, got, ok, err)
		}
	}
	srv.ignoreRange.Store(false)
	srv.lie.Store(true)
	_, _, err = f.Fetch(ctx, srv.URL+"/k", store.Span(3, 4))
	if errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), "does not answer") {
		t.Fatalf("206 for other bytes: %v", err)
	}
}

func TestRetries(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t, "", map[string][]byte{"k": file})
	f := zhttp.NewFetcher(zhttp.Options{RetryDelay: time.Millisecond})
	srv.fail.Store(2)
	got, ok, err := f.Fetch(ctx, srv.URL+"/k", store.Span(1, 2))
	if err != nil || !ok || string(got) != "12" {
		t.Fatalf("after two 503s: %q %v %v", got, ok, err)
	}
	if n := len(srv.requests()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
	srv.reset()
	srv.fail.Store(10)
	_, _, err = f.Fetch(ctx, srv.URL+"/k", store.WholeValue())
	if errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), "503") {
		t.Fatalf("persistent 503: %v", err)
	}
	if n := len(srv.requests()); n != 4 {
		t.Fatalf("%d requests, want 4 (1 + 3 retries)", n)
	}
	srv.fail.Store(0)
	srv.reset()
	// other 4xx are errors at once
	if _, _, err := f.Fetch(ctx, srv.URL+"/k", store.Span(100, 2)); errs.CodeOf(err) != errs.Store {
		t.Fatalf("416: %v", err)
	}
	if n := len(srv.requests()); n != 1 {
		t.Fatalf("416 retried: %d requests", n)
	}
	// a cancelled context stops the retries
	srv.fail.Store(100)
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	slow := zhttp.NewFetcher(zhttp.Options{RetryDelay: time.Second, Retries: 5})
	start := time.Now()
	_, _, err = slow.Fetch(cctx, srv.URL+"/k", store.WholeValue())
	if errs.CodeOf(err) != errs.Aborted || time.Since(start) > 2*time.Second {
		t.Fatalf("cancelled: %v after %v", err, time.Since(start))
	}
	if _, _, err := f.Fetch(ctx, "s3://bucket/k", store.WholeValue()); errs.CodeOf(err) != errs.Unsupported {
		t.Fatalf("s3 url: %v", err)
	}
}

// TestReferencesOverHTTP reads the reference fixtures of tests/refs over a
// local server and counts the requests.
func TestReferencesOverHTTP(t *testing.T) {
	ctx := context.Background()
	data := filepath.Join(peers.RepoRoot(), "tests", "refs", "data")
	srv := newServer(t, data, nil)
	fetch := zhttp.NewFetcher(zhttp.Options{})

	s, err := refs.FromURL(ctx, srv.URL+"/json/v0.json", refs.Options{Fetcher: fetch})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.requests()); n != 1 {
		t.Fatalf("open: %d requests", n)
	}
	arr, err := zarr.OpenArray(ctx, s, "counts")
	if err != nil {
		t.Fatal(err)
	}
	srv.reset()
	all, _ := zarr.ParseSelection("")
	if _, err := arr.Read(ctx, all); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	t.Logf("engine read of counts (10 adjacent chunks): %d request(s) %q", len(reqs), reqs)
	if len(reqs) > 2 {
		t.Errorf("10 adjacent chunks cost %d requests", len(reqs))
	}

	// temp: 8 zlib chunks with up to 200 junk bytes between them
	keys := []string{}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			keys = append(keys, fmt.Sprintf("temp/%d.%d", i, j))
		}
	}
	srv.reset()
	got, err := s.GetMany(ctx, keys)
	if err != nil || len(got) != 8 {
		t.Fatal(len(got), err)
	}
	if reqs := srv.requests(); len(reqs) != 1 {
		t.Fatalf("GetMany of 8 chunks in one file: %d requests %q", len(reqs), reqs)
	}
	// without merging every chunk is its own request, with the same bytes
	s2, err := refs.FromURL(ctx, srv.URL+"/json/v0.json", refs.Options{Fetcher: fetch, MaxGap: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv.reset()
	got2, err := s2.GetMany(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if reqs := srv.requests(); len(reqs) != 8 {
		t.Fatalf("no merging: %d requests", len(reqs))
	}
	for k := range got {
		if !bytes.Equal(got[k], got2[k]) {
			t.Fatalf("%s differs", k)
		}
	}
	// a gap larger than MaxGap splits the block
	s3, err := refs.FromURL(ctx, srv.URL+"/json/v0.json", refs.Options{Fetcher: fetch, MaxGap: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv.reset()
	if _, err := s3.GetMany(ctx, keys); err != nil {
		t.Fatal(err)
	}
	t.Logf("8 chunks with MaxGap 1: %d requests; default: 1; no merging: 8", len(srv.requests()))

	// every array of the fixtures, compared with zarr-python's values
	cases, err := conformance.Load(filepath.Join(peers.RepoRoot(), "tests", "refs", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]*refs.Store{}
	srv.reset()
	checked := 0
	for _, c := range cases {
		if c.Store == "json/v1_target.json" {
			continue // needs Target, below
		}
		st := stores[c.Store]
		if st == nil {
			st, err = refs.FromURL(ctx, srv.URL+"/"+c.Store, refs.Options{Fetcher: fetch})
			if err != nil {
				t.Fatal(err)
			}
			stores[c.Store] = st
		}
		a, err := zarr.OpenArray(ctx, st, c.Path)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		sel, _ := zarr.ParseSelection(c.Selection)
		nd, err := a.Read(ctx, sel)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if err := conformance.Compare(nd, c); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		checked++
	}
	t.Logf("%d cases over HTTP, %d requests", checked, len(srv.requests()))

	// null urls with a target
	st, err := refs.FromURL(ctx, srv.URL+"/json/v1_target.json", refs.Options{Fetcher: fetch, Target: "t1.bin"})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok, err := st.Get(ctx, "counts/0"); err != nil || !ok || len(d) != 20 {
		t.Fatalf("target: %d %v %v", len(d), ok, err)
	}
}

func TestParquetOverHTTP(t *testing.T) {
	ctx := context.Background()
	data := filepath.Join(peers.RepoRoot(), "tests", "refs", "data")
	srv := newServer(t, data, nil)
	fetch := zhttp.NewFetcher(zhttp.Options{})
	// a directory URL without "/": not JSON, so FromURL tries .zmetadata
	s, err := refs.FromURL(ctx, srv.URL+"/pq/hyp_zstd", refs.Options{Fetcher: fetch})
	if err != nil {
		t.Fatal(err)
	}
	if reqs := srv.requests(); len(reqs) != 2 || !strings.HasSuffix(reqs[1], "/pq/hyp_zstd/.zmetadata ") {
		t.Fatalf("open: %q", reqs)
	}
	a, err := zarr.OpenArray(ctx, s, "a/big")
	if err != nil {
		t.Fatal(err)
	}
	srv.reset()
	sel, _ := zarr.ParseSelection("0:3, 0:4") // chunk 0.0: inline (record 0)
	if _, err := a.Read(ctx, sel); err != nil {
		t.Fatal(err)
	}
	if reqs := srv.requests(); len(reqs) != 1 || !strings.Contains(reqs[0], "a/big/refs.0.parq") {
		t.Fatalf("inline chunk: %q", reqs)
	}
	srv.reset()
	all, _ := zarr.ParseSelection("")
	if _, err := a.Read(ctx, all); err != nil {
		t.Fatal(err)
	}
	parq, targets := 0, 0
	for _, r := range srv.requests() {
		if strings.Contains(r, ".parq") {
			parq++
		} else {
			targets++
		}
	}
	t.Logf("whole a/big (170 chunks, 11 record files, 2 targets): %d record file requests, %d target requests", parq, targets)
	if parq != 10 { // refs.0.parq is cached already
		t.Errorf("%d record file requests, want 10", parq)
	}
	// a missing directory
	if _, err := refs.FromURL(ctx, srv.URL+"/pq/nothing/", refs.Options{Fetcher: fetch}); errs.CodeOf(err) != errs.NotFound {
		t.Fatalf("missing directory: %v", err)
	}
}

// TestIgnoredRangeIsNotWrongData: a target server that ignores Range makes
// reads fail, never return the wrong bytes.
func TestIgnoredRangeIsNotWrongData(t *testing.T) {
	ctx := context.Background()
	data := filepath.Join(peers.RepoRoot(), "tests", "refs", "data")
	srv := newServer(t, data, nil)
	s, err := refs.FromURL(ctx, srv.URL+"/json/v0.json", refs.Options{Fetcher: zhttp.NewFetcher(zhttp.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	srv.ignoreRange.Store(true)
	_, _, err = s.Get(ctx, "counts/3")
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.Store {
		t.Fatalf("got %v", err)
	}
	// a fetcher that ignores ranges itself is caught by the store too
	raw := refs.FetcherFunc(func(ctx context.Context, url string, r store.ByteRange) ([]byte, bool, error) {
		return zhttp.NewFetcher(zhttp.Options{}).Fetch(ctx, url, store.WholeValue())
	})
	s2, err := refs.FromURL(ctx, srv.URL+"/json/v0.json", refs.Options{Fetcher: raw})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s2.Get(ctx, "counts/3"); errs.CodeOf(err) != errs.Store {
		t.Fatalf("fetcher ignoring ranges: %v", err)
	}
}

// TestVersionedReads: ETags become generations; If-Match on a ranged read
// is a CONFLICT when the file changed (412), If-None-Match answers 304
// without a body; a weak ETag is not sent as If-Match but compared; with
// only Last-Modified, the dates are used.
func TestVersionedReads(t *testing.T) {
	var mu sync.Mutex
	content, etag := []byte("0123456789"), `"v1"`
	modified := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	var headers []nethttp.Header
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		mu.Lock()
		data, tag := content, etag
		headers = append(headers, r.Header.Clone())
		mu.Unlock()
		if tag != "" {
			w.Header().Set("ETag", tag)
		}
		nethttp.ServeContent(w, r, "f", modified, bytes.NewReader(data))
	}))
	defer srv.Close()
	ctx := context.Background()
	s, _ := zhttp.NewStore(srv.URL, zhttp.Options{})
	v, err := s.ReadVersion(ctx, "f", store.Last(4), store.Conditions{})
	if err != nil || string(v.Data) != "6789" || v.Generation != `"v1"` {
		t.Fatalf("%+v, %v", v, err)
	}
	v, err = s.ReadVersion(ctx, "f", store.Span(0, 3), store.Conditions{IfMatch: `"v1"`})
	if err != nil || string(v.Data) != "012" {
		t.Fatalf("If-Match the version: %+v, %v", v, err)
	}
	v, err = s.ReadVersion(ctx, "f", store.WholeValue(), store.Conditions{IfNoneMatch: `"v1"`})
	if err != nil || !v.NotModified || v.Data != nil {
		t.Fatalf("If-None-Match the version: %+v, %v", v, err)
	}
	mu.Lock()
	content, etag = []byte("abcdefghij"), `"v2"`
	mu.Unlock()
	if _, err := s.ReadVersion(ctx, "f", store.Span(0, 3), store.Conditions{IfMatch: `"v1"`}); errs.CodeOf(err) != errs.Conflict {
		t.Fatalf("If-Match an old version: %v, want CONFLICT", err)
	}
	v, err = s.ReadVersion(ctx, "f", store.WholeValue(), store.Conditions{IfNoneMatch: `"v1"`})
	if err != nil || v.NotModified || string(v.Data) != "abcdefghij" || v.Generation != `"v2"` {
		t.Fatalf("If-None-Match an old version: %+v, %v", v, err)
	}
	// A weak ETag: never sent as If-Match (it could not match), compared.
	mu.Lock()
	etag = `W/"w1"`
	headers = nil
	mu.Unlock()
	if _, err := s.ReadVersion(ctx, "f", store.Span(0, 3), store.Conditions{IfMatch: `W/"w0"`}); errs.CodeOf(err) != errs.Conflict {
		t.Fatalf("a weak ETag that differs: %v, want CONFLICT", err)
	}
	if v, err := s.ReadVersion(ctx, "f", store.Span(0, 3), store.Conditions{IfMatch: `W/"w1"`}); err != nil || string(v.Data) != "abc" {
		t.Fatalf("a weak ETag that matches: %+v, %v", v, err)
	}
	mu.Lock()
	if h := headers[0].Get("If-Match"); h != "" {
		t.Errorf("If-Match %q sent for a weak ETag", h)
	}
	// No ETag: Last-Modified.
	etag = ""
	headers = nil
	mu.Unlock()
	v, err = s.ReadVersion(ctx, "f", store.Span(0, 1), store.Conditions{})
	if err != nil || !strings.Contains(string(v.Generation), "2024") {
		t.Fatalf("Last-Modified generation: %+v, %v", v, err)
	}
	v, err = s.ReadVersion(ctx, "f", store.Span(0, 1), store.Conditions{IfNoneMatch: v.Generation})
	if err != nil || !v.NotModified {
		t.Fatalf("If-Modified-Since: %+v, %v", v, err)
	}
	mu.Lock()
	if h := headers[len(headers)-1].Get("If-Modified-Since"); h == "" {
		t.Errorf("no If-Modified-Since sent")
	}
	mu.Unlock()
}
