package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	srv := httptest.NewServer(handler(demo, pkg, false))
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
