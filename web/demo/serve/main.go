// Command serve is the demo viewer's static file server: the page
// (web/demo), the npm package it imports (npm/, at /pkg/) and the sample
// data (web/demo/data, at /data/), on 127.0.0.1 only. net/http's file
// server answers Range requests, which the viewer's stores use for shards
// and zip entries. Not part of the WebAssembly module.
//
//	go run ./web/demo/serve [-addr 127.0.0.1:8080] [-v]
//
// The first line on stdout is the page's URL.
package main

import (
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
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (port 0 picks a free port; a busy 8080 moves to the next free port)")
	demo := flag.String("demo", "web/demo", "the page's directory")
	pkg := flag.String("pkg", "npm", "the npm package directory (needs zarr.wasm: run make wasm)")
	verbose := flag.Bool("v", false, "log every request")
	flag.Parse()

	for _, f := range []string{filepath.Join(*demo, "index.html"), filepath.Join(*pkg, "zarr.wasm"), filepath.Join(*pkg, "wasm_exec.js")} {
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
		Handler:           handler(*demo, *pkg, *verbose),
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
	case "index.js", "index.d.ts", "zarr.wasm", "wasm_exec.js", "package.json":
		return true
	}
	return strings.HasPrefix(rel, "lib/") && strings.HasSuffix(rel, ".js")
}

func handler(demo, pkg string, verbose bool) http.Handler {
	demoFS := http.FileServer(http.Dir(demo))
	pkgFS := http.StripPrefix("/pkg/", http.FileServer(http.Dir(pkg)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if verbose {
			log.Printf("%s %s %s", r.Method, r.URL.Path, r.Header.Get("Range"))
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
		switch {
		case strings.HasPrefix(p, "/pkg/"):
			if !pkgAllowed(strings.TrimPrefix(p, "/pkg/")) {
				http.NotFound(w, r)
				return
			}
			pkgFS.ServeHTTP(w, r)
		case strings.HasPrefix(p, "/gen") || strings.HasPrefix(p, "/serve") || strings.HasSuffix(p, ".go"):
			http.NotFound(w, r)
		default:
			demoFS.ServeHTTP(w, r)
		}
	})
}
