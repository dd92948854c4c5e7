// Command serve is the demo viewer's static file server: the page
// (web/demo), the npm package it imports (npm/, at /pkg/) and the sample
// data (web/demo/data, at /data/), on 127.0.0.1 only. net/http's file
// server answers Range requests, which the viewer's stores use for shards
// and zip entries. The page's own files and the package (above all the
// 9 MB .wasm) go gzip-compressed to browsers that accept it; the data is
// sent as stored, so ranges keep meaning bytes of the stored file. Not part
// of the WebAssembly module.
//
//	go run ./web/demo/serve [-addr 127.0.0.1:8080] [-v] [-latency 20ms] [-mount /extra/=DIR]
//
// The first line on stdout is the page's URL. -latency holds every answer
// that long (the viewer's benchmarks: a distant server); -mount serves more
// data directories beside /data/ (tests write stores there).
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (port 0 picks a free port; a busy 8080 moves to the next free port)")
	demo := flag.String("demo", "web/demo", "the page's directory")
	pkg := flag.String("pkg", "npm", "the npm package directory (needs zarr.wasm: run make wasm)")
	verbose := flag.Bool("v", false, "log every request")
	latency := flag.Duration("latency", 0, "hold every answer this long before sending it")
	var mounts mountList
	flag.Var(&mounts, "mount", "serve DIR at PREFIX as well (PREFIX=DIR, PREFIX starting and ending in /; repeatable)")
	flag.Parse()

	for _, f := range []string{filepath.Join(*demo, "index.html"), filepath.Join(*pkg, "zarr.wasm"), filepath.Join(*pkg, "zarr-core.wasm"), filepath.Join(*pkg, "zarr-icechunk.wasm"), filepath.Join(*pkg, "wasm_exec.js")} {
		if _, err := os.Stat(f); err != nil {
			log.Fatalf("%s is missing (run `make demo`, which builds the package and the sample data)", f)
		}
	}
	if _, err := os.Stat(filepath.Join(*demo, "data")); err != nil {
		log.Printf("warning: %s has no sample data (go run ./web/demo/gen); the default example will not load", *demo)
	}

	ln, err := listen(*addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/\n", ln.Addr())
	os.Stdout.Sync()

	srv := &http.Server{
		Handler:           handler(*demo, *pkg, *verbose, *latency, mounts),
		ReadHeaderTimeout: 10 * time.Second,
	}
	log.Fatal(srv.Serve(ln))
}

// listen binds addr; if the default port is taken it tries the next few.
func listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err == nil || port != "8080" || !errors.Is(err, syscall.EADDRINUSE) {
		return ln, err
	}
	for p := 8081; p < 8100; p++ {
		if ln, err2 := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(p))); err2 == nil {
			return ln, nil
		}
	}
	return nil, err
}

// pkgFiles are the files of the npm package a browser needs.
func pkgAllowed(rel string) bool {
	switch rel {
	case "index.js", "index.d.ts", "zarr.wasm", "zarr-core.wasm", "zarr-icechunk.wasm", "wasm_exec.js", "package.json":
		return true
	}
	return strings.HasPrefix(rel, "lib/") && (strings.HasSuffix(rel, ".js") || strings.HasSuffix(rel, ".wasm"))
}

// mountList is the -mount flags: URL prefixes served from directories.
type mountList []mount

type mount struct {
	prefix string
	fs     http.Handler
}

func (m *mountList) String() string { return fmt.Sprint(len(*m), " mounts") }

func (m *mountList) Set(v string) error {
	prefix, dir, ok := strings.Cut(v, "=")
	if !ok || !strings.HasPrefix(prefix, "/") || !strings.HasSuffix(prefix, "/") || dir == "" {
		return fmt.Errorf("-mount %q: want /prefix/=directory", v)
	}
	*m = append(*m, mount{prefix, http.StripPrefix(prefix, http.FileServer(http.Dir(dir)))})
	return nil
}

func handler(demo, pkg string, verbose bool, latency time.Duration, mounts []mount) http.Handler {
	demoFS := http.FileServer(http.Dir(demo))
	pkgFS := http.StripPrefix("/pkg/", http.FileServer(http.Dir(pkg)))
	gz := &gzipCache{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if verbose {
			log.Printf("%s %s %s", r.Method, r.URL.Path, r.Header.Get("Range"))
		}
		if latency > 0 {
			time.Sleep(latency)
		}
		h := w.Header()
		// Other viewers may read the sample data; shards and zips need Range.
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "Content-Range, Content-Length, ETag")
		h.Set("Cache-Control", "no-cache")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Range, If-None-Match")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "read-only server", http.StatusMethodNotAllowed)
			return
		}
		p := path.Clean(r.URL.Path)
		for _, m := range mounts {
			if strings.HasPrefix(p+"/", m.prefix) {
				m.fs.ServeHTTP(w, r)
				return
			}
		}
		switch {
		case strings.HasPrefix(p, "/pkg/"):
			rel := strings.TrimPrefix(p, "/pkg/")
			if !pkgAllowed(rel) {
				http.NotFound(w, r)
				return
			}
			if gz.serve(w, r, filepath.Join(pkg, filepath.FromSlash(rel))) {
				return
			}
			pkgFS.ServeHTTP(w, r)
		case strings.HasPrefix(p, "/gen") || strings.HasPrefix(p, "/serve") || strings.HasSuffix(p, ".go"):
			http.NotFound(w, r)
		default:
			file := filepath.Join(demo, filepath.FromSlash(strings.TrimPrefix(p, "/")))
			if strings.HasSuffix(r.URL.Path, "/") {
				file = filepath.Join(file, "index.html")
			}
			if !strings.HasPrefix(p, "/data/") && gz.serve(w, r, file) {
				return
			}
			demoFS.ServeHTTP(w, r)
		}
	})
}

// compressible are the extensions sent gzip-compressed (the page, its
// scripts and the package's module; not the data).
var compressible = map[string]bool{".wasm": true, ".js": true, ".mjs": true, ".css": true, ".html": true, ".ts": true, ".json": true}

// gzipCache compresses each file once per version (size and modification
// time) and keeps the result in memory: the .wasm takes about half a
// second to compress, and a reload would otherwise pay it again.
type gzipCache struct {
	mu    sync.Mutex
	files map[string]gzipped
}

type gzipped struct {
	size    int64
	modTime time.Time
	body    []byte
}

// serve answers r with the gzip-compressed file when the client accepts
// gzip, asks for no range and the file is of a compressible kind; it
// reports whether it answered.
func (c *gzipCache) serve(w http.ResponseWriter, r *http.Request, file string) bool {
	if !compressible[filepath.Ext(file)] {
		return false
	}
	w.Header().Add("Vary", "Accept-Encoding")
	if r.Header.Get("Range") != "" || !acceptsGzip(r.Header.Get("Accept-Encoding")) {
		return false
	}
	info, err := os.Stat(file)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	body, err := c.get(file, info)
	if err != nil {
		return false
	}
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	// The ETag names this encoding of this version, so a cache never
	// mixes it up with the uncompressed file.
	h.Set("ETag", fmt.Sprintf(`"%x-%x-gz"`, info.ModTime().UnixNano(), info.Size()))
	// ServeContent sets Content-Type from the name (application/wasm, as
	// WebAssembly.instantiateStreaming requires) and answers
	// If-None-Match / If-Modified-Since with 304.
	http.ServeContent(w, r, filepath.Base(file), info.ModTime(), bytes.NewReader(body))
	return true
}

func (c *gzipCache) get(file string, info os.FileInfo) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g, ok := c.files[file]; ok && g.size == info.Size() && g.modTime.Equal(info.ModTime()) {
		return g.body, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if c.files == nil {
		c.files = map[string]gzipped{}
	}
	c.files[file] = gzipped{size: info.Size(), modTime: info.ModTime(), body: buf.Bytes()}
	return buf.Bytes(), nil
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip: listed
// (or "*" is) without q=0.
func acceptsGzip(header string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		ok := !strings.HasPrefix(q, "q=0") || strings.Trim(strings.TrimPrefix(q, "q=0"), ".0") != ""
		switch name {
		case "gzip":
			return ok
		case "*":
			star = ok
		}
	}
	return star
}
