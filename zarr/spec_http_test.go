package zarr_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// An http kvstore (by URL and by object with base_url and path) reads an
// array written through a file kvstore; it is read-only.
func TestSpecHTTPKvStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := zarr.OpenSpec(ctx, `{"driver": "zarr", "kvstore": {"driver": "file", "path": "`+dir+`/data.zarr"}, "create": true, "dtype": "uint8",
		"metadata": {"compressor": null, "chunks": [4]}, "schema": {"domain": {"shape": [6]}}}`)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := zarr.NDArrayFromBytes(w.DType(), []int{6}, []byte{1, 2, 3, 4, 5, 6})
	if err := w.Write(ctx, nil, v); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var paths []string
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		files.ServeHTTP(rw, r)
	}))
	defer srv.Close()
	for _, spec := range []string{
		srv.URL + "/data.zarr/|zarr2:",
		`{"driver": "zarr2", "kvstore": {"driver": "http", "base_url": "` + srv.URL + `", "path": "data.zarr"}}`,
		`{"driver": "zarr2", "kvstore": {"driver": "http", "base_url": "` + srv.URL + `/data.zarr/"}}`,
	} {
		paths = nil
		a, err := zarr.OpenSpec(ctx, spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		sel, _ := zarr.ParseSelection("4:6")
		got, err := a.Read(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Bytes()) != "\x05\x06" {
			t.Fatalf("%s: read %v", spec, got.Bytes())
		}
		if strings.Join(paths, " ") != "/data.zarr/.zarray /data.zarr/.zattrs /data.zarr/1" {
			t.Errorf("%s: requests %v", spec, paths)
		}
		if err := a.Write(ctx, sel, got); zarr.ErrorCodeOf(err) != zarr.CodeReadOnly {
			t.Errorf("write to http: %v", err)
		}
	}
}
