package http_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	s3test "github.com/zarr-wasm/zarr-wasm/tests/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
)

func fixtures(parts ...string) string {
	return filepath.Join(append([]string{peers.RepoRoot(), "tests", "fixtures"}, parts...)...)
}

// newFake serves a Fake bucket holding zarr-python's v2 and v3 fixture
// stores under v2.zarr/ and v3.zarr/.
func newFake(t *testing.T) (*s3test.Fake, string) {
	f := s3test.NewFake("bucket")
	for _, v := range []string{"v2", "v3"} {
		if err := f.PutDir(fixtures(v, "data", v+".zarr"), v+".zarr/"); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

// A public bucket without list permission answers 403 for every key that
// does not exist: every array of zarr-python's v2 and v3 fixtures opens
// (v2 past zarr.json's 403, v3 past .zarray's) and reads as zarr-python
// wrote it, missing chunks as the fill value.
func TestForbiddenMeansMissing(t *testing.T) {
	f, endpoint := newFake(t)
	ctx := context.Background()
	for _, v := range []string{"v2", "v3"} {
		cases, err := conformance.Load(fixtures(v, "cases.json"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := zhttp.NewStore("s3://bucket/"+v+".zarr", zhttp.Options{Endpoint: endpoint})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range cases {
			if c.Store != v+".zarr" || c.Error != "" {
				continue
			}
			// (as TestZarrPythonFixtures: zarr-python's complex NaN fill
			// has an arithmetic sign; optional codec settings may be
			// refused, never read wrongly)
			c.AnyNaN = c.Name == "fill/c8_nan_inf"
			err := conformance.CheckStore(ctx, s, c)
			if err != nil && strings.HasPrefix(c.Note, "OPTIONAL") && errs.CodeOf(err) == errs.Unsupported {
				continue
			}
			if err != nil {
				t.Errorf("%s %s: %v", v, c.Name, err)
			}
			n++
		}
		if n < 100 {
			t.Errorf("%s: only %d cases", v, n)
		}
	}
	// Some chunks were missing (answered 403) and read as fill values.
	missingChunks := 0
	stored := map[string]bool{}
	for _, k := range f.Keys() {
		stored["/bucket/"+k] = true
	}
	for _, l := range f.Log() {
		p := strings.Fields(l)[1]
		if !stored[p] && !strings.HasSuffix(p, ".json") && !strings.Contains(p, "/.z") {
			missingChunks++
		}
	}
	if missingChunks == 0 {
		t.Error("no missing chunk was asked for: the fill-value path was not exercised")
	}
	t.Logf("%d reads of missing chunks answered 403", missingChunks)
}

func TestEveryProbeDenied(t *testing.T) {
	f, endpoint := newFake(t)
	ctx := context.Background()
	s, _ := zhttp.NewStore("s3://bucket/v2.zarr", zhttp.Options{Endpoint: endpoint})
	// nothing at the path: every metadata key 403
	_, err := zarr.Open(ctx, s, "no/such/array")
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.AccessDenied || e.Where != "no/such/array" || !strings.Contains(e.Msg, "zarr.json, .zarray, .zgroup, .zattrs") {
		t.Errorf("nothing at the path: %v (%#v)", err, e)
	}
	// a private bucket
	f.Fault = "deny"
	if _, err := zarr.Open(ctx, s, "dtypes/i1"); errs.CodeOf(err) != errs.AccessDenied {
		t.Errorf("a private bucket: %v", err)
	}
	f.Fault = ""
	// 404 for missing keys: nothing there is NOT_FOUND
	f.Missing = 404
	if _, err := zarr.Open(ctx, s, "no/such/array"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("404 bucket: %v", err)
	}
}

// missingStatus [404, 410]: a 403 is never fill values.
func TestStrictMissingStatus(t *testing.T) {
	f, endpoint := newFake(t)
	f.Missing = 404
	ctx := context.Background()
	var chunk string
	for _, k := range f.Keys() {
		if strings.HasPrefix(k, "v2.zarr/dtypes/i1/") && !strings.Contains(k, "/.z") {
			chunk = k
			break
		}
	}
	f.Deny = map[string]bool{chunk: true}
	lenient, _ := zhttp.NewStore("s3://bucket/v2.zarr", zhttp.Options{Endpoint: endpoint})
	arr, err := zarr.OpenArray(ctx, lenient, "dtypes/i1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := arr.Read(ctx, nil); err != nil {
		t.Errorf("default: the denied chunk %s should read as missing: %v", chunk, err)
	}
	strict, _ := zhttp.NewStore("s3://bucket/v2.zarr", zhttp.Options{Endpoint: endpoint, MissingStatus: []int{404, 410}})
	arr, err = zarr.OpenArray(ctx, strict, "dtypes/i1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = arr.Read(ctx, nil)
	if errs.CodeOf(err) != errs.AccessDenied || !strings.Contains(err.Error(), `bucket "bucket", key "`+chunk+`"`) {
		t.Errorf("missingStatus [404, 410]: %v, want ACCESS_DENIED naming bucket and key", err)
	}
	// a chunk key read before any metadata from the store: an error too
	fresh, _ := zhttp.NewStore("s3://bucket/v2.zarr", zhttp.Options{Endpoint: endpoint})
	if _, _, err := fresh.Get(ctx, strings.TrimPrefix(chunk, "v2.zarr/")); errs.CodeOf(err) != errs.AccessDenied {
		t.Errorf("a 403 chunk with no metadata read: %v", err)
	}
}

// Listing (ListObjectsV2, pages of 2 names): the children of every group
// of the v3 fixture, without consolidated metadata, are the directories
// that hold a node.
func TestListedChildren(t *testing.T) {
	f, endpoint := newFake(t)
	f.PageSize = 2
	ctx := context.Background()
	s, _ := zhttp.NewStore("s3://bucket/v3.zarr", zhttp.Options{Endpoint: endpoint})
	root := fixtures("v3", "data", "v3.zarr")
	g, err := zarr.OpenGroup(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := g.Consolidated(ctx); c {
		t.Fatal("the fixture has consolidated metadata; the listing would not be used")
	}
	children, err := g.Children(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, c := range children {
		got = append(got, c.Name)
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(root, e.Name(), "zarr.json")); err == nil {
			want = append(want, e.Name())
		}
	}
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") || len(want) < 3 {
		t.Errorf("children %v, want %v", got, want)
	}
	tokens := 0
	for _, l := range f.Log() {
		if strings.Contains(l, "continuation-token=") {
			tokens++
		}
	}
	if tokens == 0 {
		t.Error("no continuation token was followed")
	}
}

func TestBadListings(t *testing.T) {
	f, endpoint := newFake(t)
	f.PageSize = 2
	ctx := context.Background()
	s, _ := zhttp.NewStore("s3://bucket/v3.zarr", zhttp.Options{Endpoint: endpoint})
	for fault, says := range map[string]string{
		"list-repeat":    "came again",
		"list-truncated": "truncated",
		"list-malformed": "does not close",
		"list-no-token":  "without a NextContinuationToken",
	} {
		f.Fault = fault
		_, err := s.List(ctx, "")
		if errs.CodeOf(err) != errs.Store || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v", fault, err)
		}
	}
}

// S3's error answers become typed errors naming the bucket, the key and
// the cause.
func TestServerErrors(t *testing.T) {
	f, endpoint := newFake(t)
	ctx := context.Background()
	s, _ := zhttp.NewStore("s3://bucket/v2.zarr", zhttp.Options{Endpoint: endpoint, Credentials: zhttp.StaticCredentials(s3.Credentials{AccessKeyID: "a", SecretAccessKey: "b"})})
	for _, c := range []struct {
		fault string
		code  errs.Code
		says  string
	}{
		{"skew", errs.Store, "clock differs"},
		{"expired", errs.AccessDenied, "expired"},
		{"redirect", errs.Store, `region "eu-west-1"`},
		{"signature", errs.AccessDenied, "secret access key"},
	} {
		f.Fault = c.fault
		_, _, err := s.Get(ctx, "dtypes/i1/.zarray")
		if errs.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), `bucket "bucket", key "v2.zarr/dtypes/i1/.zarray"`) {
			t.Errorf("%s: %v", c.fault, err)
		}
		if _, err := zarr.Open(ctx, s, "dtypes/i1"); errs.CodeOf(err) != c.code {
			t.Errorf("%s: open: %v", c.fault, err)
		}
	}
}

// A credentials function is asked again when the server says the
// credentials expired, and the request is repeated once.
func TestCredentialsRefresh(t *testing.T) {
	f, endpoint := newFake(t)
	f.RequireAuth = true
	var calls atomic.Int32
	creds := func(context.Context) (s3.Credentials, error) {
		n := calls.Add(1)
		return s3.Credentials{AccessKeyID: "key" + string(rune('0'+n)), SecretAccessKey: "s", Expires: time.Now().Add(time.Hour)}, nil
	}
	s, _ := zhttp.NewStore("s3://bucket/v2.zarr", zhttp.Options{Endpoint: endpoint, Credentials: creds})
	ctx := context.Background()
	if _, ok, err := s.Get(ctx, "dtypes/i1/.zarray"); err != nil || !ok {
		t.Fatal(ok, err)
	}
	f.ExpiredOnce = true
	if _, ok, err := s.Get(ctx, "dtypes/i1/.zarray"); err != nil || !ok {
		t.Fatalf("after ExpiredToken: %v %v", ok, err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("credentials asked %d times, want 2", n)
	}
	// without credentials the fake refuses: ACCESS_DENIED, not "missing"
	anon, _ := zhttp.NewStore("s3://bucket/v2.zarr", zhttp.Options{Endpoint: endpoint})
	if _, err := zarr.Open(ctx, anon, "dtypes/i1"); errs.CodeOf(err) != errs.AccessDenied {
		t.Errorf("anonymous: %v", err)
	}
}

// Conditional writes: the probe finds whether the server honours
// If-None-Match and If-Match, and leaves nothing behind.
func TestConditionalProbe(t *testing.T) {
	ctx := context.Background()
	for _, ignore := range []bool{false, true} {
		f, endpoint := newFake(t)
		f.IgnoreConditions = ignore
		before := len(f.Keys())
		s, _ := zhttp.NewStore("s3://bucket/w.zarr", zhttp.Options{Endpoint: endpoint, Writable: true})
		if _, err := s.SetIf(ctx, "k", []byte("v1"), store.Absent); err != nil {
			t.Fatal(err)
		}
		honoured, known := s.ConditionalWrites()
		if !known || honoured == ignore {
			t.Errorf("ignoring conditions %v: honoured %v known %v", ignore, honoured, known)
		}
		if n := len(f.Keys()); n != before+1 {
			t.Errorf("the probe left keys behind: %v", f.Keys())
		}
		if store.Has(s, store.CanWriteIf) == ignore {
			t.Errorf("CanWriteIf %v with conditions ignored %v", !ignore, ignore)
		}
		if !ignore {
			if _, err := s.SetIf(ctx, "k", []byte("v2"), store.Absent); errs.CodeOf(err) != errs.Conflict {
				t.Errorf("create over an existing key: %v", err)
			}
			if _, err := s.SetIf(ctx, "k", []byte("v2"), `"stale"`); errs.CodeOf(err) != errs.Conflict {
				t.Errorf("update at a stale generation: %v", err)
			}
			if err := s.DeleteIf(ctx, "k", `"stale"`); errs.CodeOf(err) != errs.Conflict {
				t.Errorf("delete at a stale generation: %v", err)
			}
		}
	}
}

// Writing into a bucket that answers 403 for missing keys: a partial
// write reads its chunk first, and the chunk's 403 (nothing there yet)
// counts as missing because the store wrote the array's metadata.
func TestWriteIntoForbiddenBucket(t *testing.T) {
	f, endpoint := newFake(t)
	ctx := context.Background()
	s, _ := zhttp.NewStore("s3://bucket/new.zarr", zhttp.Options{Endpoint: endpoint, Writable: true})
	a, err := zarr.CreateArray(ctx, s, "a", zarr.ArrayOptions{Shape: []int{10}, Chunks: []int{5}, DType: "uint8", ZarrFormat: 3})
	if err != nil {
		t.Fatal(err)
	}
	sel, _ := zarr.ParseSelection("1:3")
	v, _ := zarr.NDArrayFromBytes(a.DType(), []int{}, []byte{9})
	if err := a.Write(ctx, sel, v); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Get("new.zarr/a/c/0"); !ok {
		t.Fatal("no chunk c/0 written")
	}
	got, err := a.Read(ctx, nil)
	if err != nil || string(got.Bytes()) != "\x00\x09\x09\x00\x00\x00\x00\x00\x00\x00" {
		t.Errorf("read back %v %v", got.Bytes(), err)
	}
}

// A write failing half-way (the server refuses every write after the
// first few) leaves the array readable: every element is a value
// written before or the fill value, and the shape is one of the two.
func TestFailedWritesLeaveArrayReadable(t *testing.T) {
	f, endpoint := newFake(t)
	ctx := context.Background()
	s, _ := zhttp.NewStore("s3://bucket/half.zarr", zhttp.Options{Endpoint: endpoint, Writable: true, Retries: -1})
	for _, format := range []int{2, 3} {
		path := fmt.Sprintf("v%d", format)
		a, err := zarr.CreateArray(ctx, s, path, zarr.ArrayOptions{Shape: []int{40}, Chunks: []int{10}, DType: "uint16", ZarrFormat: format})
		if err != nil {
			t.Fatal(err)
		}
		five, _ := zarr.NDArrayFromBytes(a.DType(), []int{}, []byte{5, 0})
		if err := a.Write(ctx, nil, five); err != nil {
			t.Fatal(err)
		}
		f.Set("failWritesAfter", "1")
		if err := a.Resize(ctx, []int{10}); err == nil {
			t.Errorf("v%d: resize went through although the server failed writes", format)
		}
		six, _ := zarr.NDArrayFromBytes(a.DType(), []int{}, []byte{6, 0})
		if err := a.Write(ctx, nil, six); err == nil {
			t.Errorf("v%d: write went through although the server failed writes", format)
		}
		f.Set("failWritesAfter", "0")
		back, err := zarr.OpenArray(ctx, s, path)
		if err != nil {
			t.Fatalf("v%d: the array cannot be opened after the failed writes: %v", format, err)
		}
		got, err := back.Read(ctx, nil)
		if err != nil {
			t.Fatalf("v%d: the array cannot be read after the failed writes: %v", format, err)
		}
		if n := back.Shape()[0]; n != 40 && n != 10 {
			t.Errorf("v%d: shape %d", format, n)
		}
		for i, b := range got.Bytes() {
			if i%2 == 0 && b != 5 && b != 6 && b != 0 {
				t.Errorf("v%d: element %d is %d", format, i/2, b)
				break
			}
		}
	}
}
