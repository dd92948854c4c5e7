package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	demo := t.TempDir()
	pkg := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(demo, "index.html"), []byte("<!doctype html>"), 0o644))
	must(os.MkdirAll(filepath.Join(demo, "data"), 0o755))
	must(os.WriteFile(filepath.Join(demo, "data", "blob"), []byte("0123456789"), 0o644))
	must(os.MkdirAll(filepath.Join(demo, "gen"), 0o755))
	must(os.WriteFile(filepath.Join(demo, "gen", "main.go"), []byte("package main"), 0o644))
	must(os.WriteFile(filepath.Join(pkg, "zarr.wasm"), []byte("\x00asm"), 0o644))
	must(os.MkdirAll(filepath.Join(pkg, "node_modules", "x"), 0o755))
	must(os.WriteFile(filepath.Join(pkg, "node_modules", "x", "index.js"), []byte("//"), 0o644))
	srv := httptest.NewServer(handler(demo, pkg, false, 0, nil))
	defer srv.Close()

	get := func(path string, hdr map[string]string, method string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}

	res, body := get("/data/blob", map[string]string{"Range": "bytes=2-4"}, "GET")
	if res.StatusCode != 206 || body != "234" || res.Header.Get("Content-Range") != "bytes 2-4/10" {
		t.Errorf("range: %d %q %q", res.StatusCode, body, res.Header.Get("Content-Range"))
	}
	res, body = get("/data/blob", map[string]string{"Range": "bytes=-3"}, "GET")
	if res.StatusCode != 206 || body != "789" {
		t.Errorf("suffix range: %d %q", res.StatusCode, body)
	}
	if res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Error("no CORS header")
	}
	if res, _ = get("/data/missing", nil, "GET"); res.StatusCode != 404 {
		t.Errorf("missing key: %d", res.StatusCode)
	}
	res, _ = get("/pkg/zarr.wasm", nil, "GET")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/wasm" {
		t.Errorf("wasm: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, p := range []string{"/pkg/node_modules/x/index.js", "/gen/main.go", "/pkg/../index.html/../gen/main.go"} {
		if res, _ = get(p, nil, "GET"); res.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, res.StatusCode)
		}
	}
	if res, _ = get("/data/blob", map[string]string{"Access-Control-Request-Headers": "range"}, "OPTIONS"); res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Headers") == "" {
		t.Errorf("preflight: %d", res.StatusCode)
	}
	if res, _ = get("/data/blob", nil, "PUT"); res.StatusCode != 405 {
		t.Errorf("PUT: %d", res.StatusCode)
	}
}

// The .wasm and the page's scripts go gzip-compressed to clients that take
// gzip; ranges, clients without gzip and the data get the stored bytes.
func TestGzip(t *testing.T) {
	demo := t.TempDir()
	pkg := t.TempDir()
	wasm := bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00 some code "), 4000)
	files := map[string][]byte{
		filepath.Join(pkg, "zarr.wasm"):         wasm,
		filepath.Join(demo, "index.html"):       []byte("<!doctype html>" + string(bytes.Repeat([]byte("<p>x</p>"), 100))),
		filepath.Join(demo, "js", "main.js"):    bytes.Repeat([]byte("export const x = 1;\n"), 100),
		filepath.Join(demo, "data", "a.json"):   bytes.Repeat([]byte(`{"a": 1}`), 100),
		filepath.Join(demo, "data", "chunk.js"): bytes.Repeat([]byte("0123"), 100),
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(handler(demo, pkg, false, 0, nil))
	defer srv.Close()
	// The transport must not decompress for us: we check the wire format.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(path string, hdr map[string]string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	gunzip := func(b []byte) []byte {
		t.Helper()
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	gz := map[string]string{"Accept-Encoding": "gzip, deflate, br"}

	res, body := get("/pkg/zarr.wasm", gz)
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Content-Type") != "application/wasm" || !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("wasm headers: %v", res.Header)
	}
	if len(body) >= len(wasm)/4 || !bytes.Equal(gunzip(body), wasm) {
		t.Errorf("wasm: %d compressed bytes for %d, or not the file", len(body), len(wasm))
	}
	etag := res.Header.Get("ETag")
	if res, _ = get("/pkg/zarr.wasm", map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag}); res.StatusCode != 304 {
		t.Errorf("revalidation: %d, want 304", res.StatusCode)
	}
	for _, p := range []string{"/", "/js/main.js"} {
		res, body = get(p, gz)
		want := files[filepath.Join(demo, "index.html")]
		if p != "/" {
			want = files[filepath.Join(demo, "js", "main.js")]
		}
		if res.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(gunzip(body), want) {
			t.Errorf("%s: Content-Encoding %q", p, res.Header.Get("Content-Encoding"))
		}
	}
	// Without gzip, or with q=0, the stored bytes.
	for _, ae := range []string{"", "identity", "gzip;q=0", "br"} {
		res, body = get("/pkg/zarr.wasm", map[string]string{"Accept-Encoding": ae})
		if res.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, wasm) {
			t.Errorf("Accept-Encoding %q: got %q encoding", ae, res.Header.Get("Content-Encoding"))
		}
	}
	// A range is a range of the stored file.
	res, body = get("/pkg/zarr.wasm", map[string]string{"Accept-Encoding": "gzip", "Range": "bytes=0-3"})
	if res.StatusCode != 206 || string(body) != "\x00asm" || res.Header.Get("Content-Encoding") != "" {
		t.Errorf("range: %d %q %q", res.StatusCode, body, res.Header.Get("Content-Encoding"))
	}
	// The data is never compressed (its ranges are ranges of stored files).
	for _, p := range []string{"/data/a.json", "/data/chunk.js"} {
		if res, _ = get(p, gz); res.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: compressed", p)
		}
	}
}
