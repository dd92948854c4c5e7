package http_test

import (
	"context"
	"fmt"
	nethttp "net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/tests/faults"
	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/refs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
)

// faultOptions are small timeouts, so stalls cost a fraction of a second.
var faultOptions = zhttp.Options{
	Timeout:       300 * time.Millisecond,
	TotalTimeout:  20 * time.Second,
	RetryDelay:    5 * time.Millisecond,
	MaxRetryDelay: 2 * time.Second,
	MaxBodyBytes:  1 << 20,
}

// faultScenario is one fault and what every reader must make of it:
// "values" (every case read equals the writer's values) or "STORE" (reads
// that need the faulty answers fail with a STORE error, the others are
// right: a missing shard needs no range). The npm package's test
// (tests/node/faults.test.mjs) has the same table for FetchStore and
// ReferenceStore; docs/stores.md ("Timeouts, caps and retries") shows both.
type faultScenario struct {
	fault, when string
	store, refs string // Go's Store (a sharded v3 array: ranges) and a reference set through the Fetcher
}

var faultScenarios = []faultScenario{
	{"ok", "all", "values", "values"},
	{"5xx", "2", "values", "values"},
	{"5xx", "all", "STORE", "STORE"},
	{"reset", "2", "values", "values"},
	{"reset", "all", "STORE", "STORE"},
	{"truncate", "2", "values", "values"},
	{"truncate", "all", "STORE", "STORE"},
	{"ignore-range", "all", "STORE", "STORE"},
	{"endless", "all", "STORE", "STORE"},
	{"stall", "1", "values", "values"},
	{"stall", "all", "STORE", "STORE"},
	{"stall-body", "1", "values", "values"},
	{"429", "1", "values", "values"},
	{"429-date", "1", "values", "values"},
	{"429-long", "1", "STORE", "STORE"},
	{"mix", "p30", "values", "values"},
}

// TestFaultServer reads real data through the fault server (tests/faults):
// 0 wrong results, 0 hangs; an error is always a STORE error.
func TestFaultServer(t *testing.T) {
	root := peers.RepoRoot()
	fsrv := faults.New(os.DirFS(root))
	fsrv.MaxStall = 10 * time.Second
	srv := httptest.NewServer(fsrv)
	defer srv.Close()

	v3, err := conformance.Load(filepath.Join(root, "tests", "fixtures", "v3", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sharded []conformance.Case
	for _, c := range v3 {
		if c.Store == "v3.zarr" && strings.HasPrefix(c.Path, "sharding/") && c.Error == "" {
			sharded = append(sharded, c)
		}
	}
	refCases, err := conformance.Load(filepath.Join(root, "tests", "refs", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v0 []conformance.Case
	for _, c := range refCases {
		if c.Store == "json/v0.json" {
			v0 = append(v0, c)
		}
	}
	for _, sc := range faultScenarios {
		t.Run(sc.fault+"/"+sc.when, func(t *testing.T) {
			base := fmt.Sprintf("%s/%s/%s/", srv.URL, sc.fault, sc.when)
			start := time.Now()
			st, err := zhttp.NewStore(base+"tests/fixtures/v3/data/v3.zarr", faultOptions)
			if err != nil {
				t.Fatal(err)
			}
			got := readCases(t, st, sharded)
			checkOutcome(t, "Store", got, sc.store)
			t.Logf("Store: %s in %v", got, time.Since(start).Round(time.Millisecond))

			start = time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			rs, err := refs.FromURL(ctx, base+"tests/refs/data/json/v0.json", refs.Options{Fetcher: zhttp.NewFetcher(faultOptions)})
			var out outcome
			if err != nil {
				out.add(err)
			} else {
				out = readCases(t, rs, v0)
			}
			checkOutcome(t, "refs", out, sc.refs)
			t.Logf("refs: %s in %v", out, time.Since(start).Round(time.Millisecond))
		})
	}
}

// outcome counts what a run of reads gave.
type outcome struct {
	values, wrong int
	codes         map[errs.Code]int
	first         error
}

func (o *outcome) add(err error) {
	if o.codes == nil {
		o.codes = map[errs.Code]int{}
	}
	o.codes[errs.CodeOf(err)]++
	if o.first == nil {
		o.first = err
	}
}

func (o outcome) String() string {
	return fmt.Sprintf("%d right, %d wrong, errors %v", o.values, o.wrong, o.codes)
}

// readCases opens and reads the cases concurrently, each under a deadline
// (a hang fails the test), and compares the values.
func readCases(t *testing.T, s zarr.Store, cases []conformance.Case) outcome {
	var o outcome
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			nd, err := readCase(ctx, s, c)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case ctx.Err() != nil:
				t.Errorf("%s: hung until the test's deadline (%v)", c.Name, err)
			case err != nil:
				o.add(err)
			default:
				if cerr := conformance.Compare(nd, c); cerr != nil {
					o.wrong++
					t.Errorf("%s: WRONG VALUES: %v", c.Name, cerr)
				} else {
					o.values++
				}
			}
		}()
	}
	wg.Wait()
	return o
}

func readCase(ctx context.Context, s zarr.Store, c conformance.Case) (*zarr.NDArray, error) {
	arr, err := zarr.OpenArray(ctx, s, c.Path)
	if err != nil {
		return nil, err
	}
	sel, err := zarr.ParseSelection(c.Selection)
	if err != nil {
		return nil, err
	}
	return arr.Read(ctx, sel)
}

func checkOutcome(t *testing.T, who string, o outcome, want string) {
	t.Helper()
	switch want {
	case "values":
		if o.wrong > 0 || len(o.codes) > 0 {
			t.Errorf("%s: %s, want every read right (first error: %v)", who, o, o.first)
		}
	case "STORE":
		if o.wrong > 0 || len(o.codes) != 1 || o.codes[errs.Store] == 0 {
			t.Errorf("%s: %s, want STORE errors only (first error: %v)", who, o, o.first)
		}
	}
}

// TestBodyCaps: an endless or oversized body stops at the cap, at once.
func TestBodyCaps(t *testing.T) {
	big := strings.Repeat("x", 10000)
	srv := newServer(t, "", map[string][]byte{"big": []byte(big)})
	ctx := context.Background()
	st, _ := zhttp.NewStore(srv.URL, zhttp.Options{MaxBodyBytes: 5000})
	_, _, err := st.Get(ctx, "big")
	if errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), "5000-byte cap") {
		t.Fatalf("whole object over MaxBodyBytes: %v", err)
	}
	if n := len(srv.requests()); n != 1 {
		t.Fatalf("an over-cap body was retried: %d requests", n)
	}
	// a ranged read is bounded by its length: the cap does not apply
	if got, ok, err := st.GetRange(ctx, "big", zarrRange(100, 10)); err != nil || !ok || len(got) != 10 {
		t.Fatalf("range: %d %v %v", len(got), ok, err)
	}
	// an endless body (no Content-Length) behind a correct 206
	endless := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Header().Set("Content-Range", "bytes 0-9/100")
		w.WriteHeader(nethttp.StatusPartialContent)
		junk := make([]byte, 1<<16)
		for {
			if _, err := w.Write(junk); err != nil {
				return
			}
		}
	}))
	defer endless.Close()
	st2, _ := zhttp.NewStore(endless.URL, zhttp.Options{})
	start := time.Now()
	_, _, err = st2.GetRange(ctx, "k", zarrRange(0, 10))
	if errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), "cap") || time.Since(start) > 5*time.Second {
		t.Fatalf("endless 206: %v after %v", err, time.Since(start))
	}
}

func zarrRange(off, n int64) store.ByteRange { return store.Span(off, n) }

// TestTimeouts: a server that never answers fails the read after the
// configured times, not never.
func TestTimeouts(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	st, _ := zhttp.NewStore(srv.URL, zhttp.Options{Timeout: 100 * time.Millisecond, RetryDelay: time.Millisecond, Retries: 2})
	start := time.Now()
	_, _, err := st.Get(ctx, "k")
	if errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), "attempt timeout") || !strings.Contains(err.Error(), "3 attempts") {
		t.Fatalf("stalled server: %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 3*time.Second {
		t.Fatalf("3 attempts of 100 ms took %v", d)
	}
	st, _ = zhttp.NewStore(srv.URL, zhttp.Options{Timeout: time.Second, TotalTimeout: 250 * time.Millisecond})
	start = time.Now()
	_, _, err = st.Get(ctx, "k")
	if errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), "total timeout") || time.Since(start) > 2*time.Second {
		t.Fatalf("total timeout: %v after %v", err, time.Since(start))
	}
	// the caller's own deadline is ABORTED, not a STORE error
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, _, err := st.Get(cctx, "k"); errs.CodeOf(err) != errs.Aborted {
		t.Fatalf("caller's deadline: %v", err)
	}
}

// TestRetryAfter: a 429's Retry-After is waited for; one longer than
// MaxRetryDelay ends the read at once.
func TestRetryAfter(t *testing.T) {
	var after string
	n := 0
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		n++
		if n == 1 {
			w.Header().Set("Retry-After", after)
			w.WriteHeader(nethttp.StatusTooManyRequests)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	ctx := context.Background()
	st, _ := zhttp.NewStore(srv.URL, zhttp.Options{RetryDelay: time.Millisecond, MaxRetryDelay: 3 * time.Second})
	after = "1"
	start := time.Now()
	got, ok, err := st.Get(ctx, "k")
	if err != nil || !ok || string(got) != "ok" || time.Since(start) < 900*time.Millisecond {
		t.Fatalf("Retry-After 1: %q %v %v after %v", got, ok, err, time.Since(start))
	}
	n, after = 0, "3600"
	start = time.Now()
	_, _, err = st.Get(ctx, "k")
	if errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), "retry after 1h0m0s") || time.Since(start) > time.Second {
		t.Fatalf("Retry-After 3600: %v after %v", err, time.Since(start))
	}
}
