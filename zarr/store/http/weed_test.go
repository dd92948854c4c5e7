package http_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	nethttp "net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	s3test "github.com/zarr-wasm/zarr-wasm/tests/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
)

// One SeaweedFS server for the package's tests (started by the first that
// needs it, stopped by TestMain).
var (
	weedOnce sync.Once
	weed     *s3test.Weed
	weedDir  string
	weedErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if weed != nil {
		weed.Stop()
	}
	if weedDir != "" {
		os.RemoveAll(weedDir)
	}
	os.Exit(code)
}

// startWeed returns the running SeaweedFS server with a bucket named
// after the test; without the binary the test skips (fails under CI).
func startWeed(t *testing.T) (*s3test.Weed, string) {
	t.Helper()
	bin := s3test.WeedBinary()
	if _, err := os.Stat(bin); err != nil {
		peers.Unavailable(t, "SeaweedFS is not built (make seaweedfs): %v", err)
	}
	weedOnce.Do(func() {
		weedDir, weedErr = os.MkdirTemp("", "zarr-wasm-weed-")
		if weedErr == nil {
			weed, weedErr = s3test.StartWeed(context.Background(), bin, weedDir)
		}
	})
	if weedErr != nil {
		t.Fatal(weedErr)
	}
	bucket := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if err := weed.CreateBucket(context.Background(), bucket); err != nil {
		t.Fatal(err)
	}
	return weed, bucket
}

func weedStore(t *testing.T, w *s3test.Weed, loc string, c *s3.Credentials) *zhttp.Store {
	opt := zhttp.Options{Endpoint: w.Endpoint}
	if c != nil {
		opt.Credentials = zhttp.StaticCredentials(*c)
	}
	s, err := zhttp.NewStore(loc, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// SeaweedFS verifies signatures: the admin writes, the reader reads and
// lists but may not write, a wrong secret is refused, anonymous reads
// work and anonymous writes do not.
func TestWeedSignatures(t *testing.T) {
	w, b := startWeed(t)
	ctx := context.Background()
	admin := weedStore(t, w, "s3://"+b+"/p", &s3test.Admin)
	if err := admin.Set(ctx, "a/k ü+.bin", []byte("signed")); err != nil {
		t.Fatal(err)
	}
	reader := weedStore(t, w, "s3://"+b+"/p", &s3test.Reader)
	if data, ok, err := reader.Get(ctx, "a/k ü+.bin"); err != nil || !ok || string(data) != "signed" {
		t.Fatalf("reader: %q %v %v", data, ok, err)
	}
	if data, ok, err := reader.GetRange(ctx, "a/k ü+.bin", store.Span(1, 3)); err != nil || !ok || string(data) != "ign" {
		t.Fatalf("reader range: %q %v %v", data, ok, err)
	}
	if names, err := reader.List(ctx, ""); err != nil || strings.Join(names, ",") != "a/" {
		t.Fatalf("reader list: %v %v", names, err)
	}
	if err := reader.Set(ctx, "x", []byte("no")); errs.CodeOf(err) != errs.AccessDenied {
		t.Errorf("the reader wrote: %v", err)
	}
	wrong := s3test.Reader
	wrong.SecretAccessKey = "not-the-secret"
	bad := weedStore(t, w, "s3://"+b+"/p", &wrong)
	if _, _, err := bad.Get(ctx, "a/k ü+.bin"); errs.CodeOf(err) != errs.AccessDenied || !strings.Contains(err.Error(), "SignatureDoesNotMatch") {
		t.Errorf("a wrong secret: %v", err)
	}
	anon := weedStore(t, w, "s3://"+b+"/p", nil)
	if data, ok, err := anon.Get(ctx, "a/k ü+.bin"); err != nil || !ok || string(data) != "signed" {
		t.Errorf("anonymous read: %q %v %v", data, ok, err)
	}
	anonW, _ := zhttp.NewStore("s3://"+b+"/p", zhttp.Options{Endpoint: w.Endpoint, Writable: true})
	if err := anonW.Set(ctx, "x", []byte("no")); errs.CodeOf(err) != errs.AccessDenied {
		t.Errorf("an anonymous write: %v", err)
	}
}

// A presigned URL is read as a plain URL (by a Fetcher without
// credentials); once expired it is an error, not a missing file.
func TestWeedPresigned(t *testing.T) {
	w, b := startWeed(t)
	ctx := context.Background()
	admin := weedStore(t, w, "s3://"+b, &s3test.Admin)
	if err := admin.Set(ctx, "f.bin", []byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	u, err := s3.Signer{}.Presign(s3.Request{Method: "GET", URL: admin.URL("f.bin")}, s3test.Reader, time.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	f := zhttp.NewFetcher(zhttp.Options{})
	if data, ok, err := f.Fetch(ctx, u, store.Span(2, 3)); err != nil || !ok || string(data) != "234" {
		t.Fatalf("presigned: %q %v %v", data, ok, err)
	}
	// with credentials too, a presigned URL is not signed again
	signed := zhttp.NewFetcher(zhttp.Options{Credentials: zhttp.StaticCredentials(s3test.Admin)})
	if data, ok, err := signed.Fetch(ctx, u, store.WholeValue()); err != nil || !ok || string(data) != "0123456789" {
		t.Fatalf("presigned, with credentials: %q %v %v", data, ok, err)
	}
	old, _ := s3.Signer{}.Presign(s3.Request{Method: "GET", URL: admin.URL("f.bin")}, s3test.Reader, time.Now().Add(-time.Hour), time.Second)
	if _, _, err := f.Fetch(ctx, old, store.WholeValue()); err == nil || errs.CodeOf(err) != errs.AccessDenied {
		t.Errorf("an expired presigned URL: %v", err)
	}
}

// SeaweedFS honours If-None-Match and If-Match: the probe says so, and the
// conditions hold.
func TestWeedConditionalWrites(t *testing.T) {
	w, b := startWeed(t)
	ctx := context.Background()
	s := weedStore(t, w, "s3://"+b, &s3test.Admin)
	gen, err := s.SetIf(ctx, "k", []byte("v1"), store.Absent)
	if err != nil {
		t.Fatal(err)
	}
	honoured, known := s.ConditionalWrites()
	t.Logf("SeaweedFS honours conditional writes: %v (probed: %v)", honoured, known)
	if !known || !honoured {
		t.Fatal("the probe found SeaweedFS ignores conditional writes")
	}
	if _, err := s.SetIf(ctx, "k", []byte("v2"), store.Absent); errs.CodeOf(err) != errs.Conflict {
		t.Errorf("create over an existing key: %v", err)
	}
	if _, err := s.SetIf(ctx, "k", []byte("v2"), `"0123456789abcdef0123456789abcdef"`); errs.CodeOf(err) != errs.Conflict {
		t.Errorf("a stale If-Match: %v", err)
	}
	if _, err := s.SetIf(ctx, "k", []byte("v2"), gen); err != nil {
		t.Errorf("the current If-Match (%s): %v", gen, err)
	}
	if names, _ := s.List(ctx, ""); strings.Join(names, ",") != "k" {
		t.Errorf("the probe left keys behind: %v", names)
	}
}

// 50 writers, each with a store of its own (so the engine's in-process
// lock does not serialise them), write one element each into one chunk
// on SeaweedFS: conditional writes and the engine's read-modify-write lose
// nothing (a writer that gives up with CONFLICT tries again).
func TestWeed50Writers(t *testing.T) {
	w, b := startWeed(t)
	ctx := context.Background()
	const n = 50
	for _, sharded := range []bool{false, true} {
		path := fmt.Sprintf("w%v.zarr", sharded)
		opt := zarr.ArrayOptions{Shape: []int{n}, Chunks: []int{n}, DType: "int32", ZarrFormat: 3}
		if sharded {
			opt.Chunks = []int{10}
			opt.ShardShape = []int{n}
		}
		if _, err := zarr.CreateArray(ctx, weedStore(t, w, "s3://"+b, &s3test.Admin), path, opt); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		conflicts := 0
		var answers statusCounter
		errc := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, _ := zhttp.NewStore("s3://"+b, zhttp.Options{Endpoint: w.Endpoint, Credentials: zhttp.StaticCredentials(s3test.Admin),
					Client: &nethttp.Client{Transport: &answers}, ConditionalWrites: zhttp.TrustConditions})
				a, err := zarr.OpenArray(ctx, st, path)
				if err != nil {
					errc <- err
					return
				}
				sel, _ := zarr.ParseSelection(fmt.Sprintf("%d", i))
				v, _ := zarr.NDArrayFromBytes(a.DType(), []int{}, []byte{byte(i + 1), 0, 0, 0})
				for attempt := 0; ; attempt++ {
					err := a.Write(ctx, sel, v)
					if errs.CodeOf(err) == errs.Conflict && attempt < 50 {
						mu.Lock()
						conflicts++
						mu.Unlock()
						continue
					}
					if err != nil {
						errc <- err
					}
					return
				}
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatal(err)
		}
		a, err := zarr.OpenArray(ctx, weedStore(t, w, "s3://"+b, nil), path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.Read(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		data := got.Bytes()
		for i := range n {
			if data[4*i] != byte(i+1) {
				t.Errorf("sharded %v: element %d is %d: a write was lost", sharded, i, data[4*i])
			}
		}
		t.Logf("sharded %v: %d conditional writes refused (412/409) and read again by the engine; %d writes gave up with CONFLICT and were tried again", sharded, answers.refused(), conflicts)
		if answers.refused() == 0 {
			t.Error("no conditional write was refused: the writers did not contend, the test proves nothing")
		}
	}
}

// Arrays written to SeaweedFS (v2: create, write, resize, attributes) are
// read by zarr-python 2 from a copy of the bucket's objects.
func TestWeedZarrPythonReads(t *testing.T) {
	py := peers.RequirePython(t, "zarr", "numcodecs")
	w, b := startWeed(t)
	ctx := context.Background()
	s := weedStore(t, w, "s3://"+b+"/data.zarr", &s3test.Admin)
	var cases []map[string]any
	for _, c := range []struct {
		name string
		opt  zarr.ArrayOptions
	}{
		{"i4", zarr.ArrayOptions{Shape: []int{12, 9}, Chunks: []int{5, 4}, DType: "<i4", FillValue: -3, ZarrFormat: 2}},
		{"grp/f8_zstd", zarr.ArrayOptions{Shape: []int{12, 9}, Chunks: []int{4, 4}, DType: "<f8", FillValue: 0.5, ZarrFormat: 2, Compressor: map[string]any{"id": "zstd", "level": 3}}},
	} {
		a, err := zarr.CreateArray(ctx, s, c.name, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		size := a.DType().Size
		vals := make([]byte, 12*9*size)
		for i := range vals {
			vals[i] = byte(i*31 + 7)
		}
		if c.opt.DType == "<f8" {
			for i := 0; i < len(vals); i += 8 {
				vals[i+7] = 0x3f // finite doubles
			}
		}
		nd, _ := zarr.NDArrayFromBytes(a.DType(), []int{12, 9}, vals)
		if err := a.Write(ctx, nil, nd); err != nil {
			t.Fatal(err)
		}
		if err := a.Resize(ctx, []int{12, 5}); err != nil {
			t.Fatal(err)
		}
		if err := a.SetAttrs(ctx, map[string]any{"written": "to SeaweedFS"}); err != nil {
			t.Fatal(err)
		}
		want := make([]byte, 0, 12*5*size)
		for r := range 12 {
			want = append(want, vals[(r*9)*size:(r*9+5)*size]...)
		}
		rawDT, _ := a.DType().V2JSON()
		cases = append(cases, map[string]any{"name": c.name, "store": "data.zarr", "path": c.name, "zarr_format": 2, "selection": "",
			"shape": []int{12, 5}, "dtype": rawDT, "bytes": base64.StdEncoding.EncodeToString(want)})
	}
	dir := t.TempDir()
	if err := download(ctx, s, "", filepath.Join(dir, "data.zarr")); err != nil {
		t.Fatal(err)
	}
	casesJSON, _ := json.Marshal(cases)
	casesFile := filepath.Join(dir, "cases.json")
	os.WriteFile(casesFile, casesJSON, 0o644)
	out, err := exec.Command(py, filepath.Join(peers.RepoRoot(), "tests", "python", "verify_cases.py"), dir, casesFile).CombinedOutput()
	if err != nil || strings.Contains(string(out), "FAIL") {
		t.Fatalf("zarr-python: %v\n%s", err, out)
	}
	attrs, err := os.ReadFile(filepath.Join(dir, "data.zarr", "i4", ".zattrs"))
	if err != nil || !strings.Contains(string(attrs), "to SeaweedFS") {
		t.Errorf("attributes: %s %v", attrs, err)
	}
	t.Logf("zarr-python: %s", strings.TrimSpace(string(out)))
}

// statusCounter counts the answers refusing a conditional write.
type statusCounter struct {
	mu sync.Mutex
	n  int
}

func (c *statusCounter) RoundTrip(r *nethttp.Request) (*nethttp.Response, error) {
	resp, err := nethttp.DefaultTransport.RoundTrip(r)
	if err == nil && (resp.StatusCode == nethttp.StatusPreconditionFailed || resp.StatusCode == nethttp.StatusConflict) {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}
	return resp, err
}

func (c *statusCounter) refused() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// download copies every object below prefix (listed) to dir.
func download(ctx context.Context, s *zhttp.Store, prefix, dir string) error {
	names, err := s.List(ctx, prefix)
	if err != nil {
		return err
	}
	for _, n := range names {
		if strings.HasSuffix(n, "/") {
			if err := download(ctx, s, prefix+n, filepath.Join(dir, strings.TrimSuffix(n, "/"))); err != nil {
				return err
			}
			continue
		}
		// (a plain GET, signed as Admin: the bytes as stored)
		req, _ := nethttp.NewRequestWithContext(ctx, "GET", s.URL(prefix+n), nil)
		hs, err := s3.Signer{}.Sign(s3.Request{Method: "GET", URL: req.URL.String()}, s3test.Admin, time.Now())
		if err != nil {
			return err
		}
		for _, h := range hs {
			req.Header.Set(h.Name, h.Value)
		}
		resp, err := nethttp.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			return errors.Join(err, fmt.Errorf("GET %s: %s", req.URL, resp.Status))
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
