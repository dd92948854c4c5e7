package zarr_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/tests/peers"
	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
	zhttp "github.com/zarr-wasm/zarr-wasm/zarr/store/http"
)

// TestShardedOverHTTP reads a v3 sharded array written by zarr-python 3
// (zarrita's fixture) over real HTTP with Range requests: once the metadata
// is loaded, one inner chunk costs two requests (index, chunk), and the
// values equal what zarrita.js reads.
func TestShardedOverHTTP(t *testing.T) {
	testdata := peers.TestData()
	root := filepath.Join(testdata, "zarrita", "v3", "data.zarr")
	var requests atomic.Int64
	files := http.FileServer(http.Dir(root)) // serves Range requests
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	s, err := zhttp.NewStore(srv.URL+"/", zhttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	arr, err := zarr.OpenArray(ctx, s, "3d.chunked.compressed.sharded.i2")
	if err != nil {
		t.Fatal(err)
	}
	requests.Store(0)
	sel, _ := zarr.ParseSelection("0, 0, 0:2") // one inner chunk
	if _, err := arr.Read(ctx, sel); err != nil {
		t.Fatal(err)
	}
	if n := requests.Load(); n > 2 {
		t.Errorf("one inner chunk cost %d requests, want at most 2", n)
	}
	cases := zarritaCases(t, filepath.Join(testdata, "zarrita", "v3"), "data.zarr")
	for _, c := range cases {
		if c.Path != "3d.chunked.compressed.sharded.i2" {
			continue
		}
		got, err := arr.Read(ctx, nil)
		if err == nil {
			err = conformance.Compare(got, c)
		}
		if err != nil {
			t.Error(err)
		}
		return
	}
	t.Fatal("zarrita did not list the array")
}

// TestZipOverHTTP reads zarr-python's zipped v3 hierarchy over HTTP without
// downloading it: a few range requests, far fewer bytes than the file.
func TestZipOverHTTP(t *testing.T) {
	testdata := peers.TestData()
	root := filepath.Join(testdata, "zarrita", "v3")
	var requests, sent atomic.Int64
	files := http.FileServer(http.Dir(root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		cw := &countingWriter{ResponseWriter: w}
		files.ServeHTTP(cw, r)
		sent.Add(cw.n)
	}))
	defer srv.Close()
	ctx := context.Background()
	base, err := zhttp.NewStore(srv.URL+"/", zhttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A small first read, as for a large zip (by default the last 64 KiB
	// are read at once, which is most of this small file).
	zs, err := store.NewZip(ctx, base, "data.zipped_from_within.zarr.zip", store.ZipTail(1024))
	if err != nil {
		t.Fatal(err)
	}
	arr, err := zarr.OpenArray(ctx, zs, "1d.contiguous.i4")
	if err != nil {
		t.Fatal(err)
	}
	got, err := arr.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Bytes()) != string(int32s(4, func(i int) int32 { return int32(i + 1) })) {
		t.Errorf("values % x", got.Bytes())
	}
	t.Logf("%d requests, %d bytes sent for a zip of %d bytes", requests.Load(), sent.Load(), zs.Size())
	if requests.Load() > 6 || sent.Load() >= zs.Size()/2 {
		t.Errorf("%d requests and %d bytes: the zip was not read by ranges", requests.Load(), sent.Load())
	}
}

type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	return n, err
}
