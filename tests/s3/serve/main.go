// Command serve runs an S3 server for the Node tests on 127.0.0.1: the fake
// (package s3's Fake, one bucket, its settings changed by GET
// /_control?name=value, directories loaded with -load; GET /_log returns
// and forgets the requests it answered, one a line) or, with -weed,
// SeaweedFS. It prints one JSON line,
// {"endpoint", "bucket", "admin": {...}, "reader": {...}}, and serves until
// stdin closes.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"

	s3test "github.com/zarr-wasm/zarr-wasm/tests/s3"
	"github.com/zarr-wasm/zarr-wasm/zarr/s3"
)

func main() {
	weed := flag.Bool("weed", false, "run SeaweedFS instead of the fake")
	where := flag.Bool("weed-binary", false, "print where the SeaweedFS binary is expected, and exit")
	bucket := flag.String("bucket", "bucket", "the bucket")
	var loads []string
	flag.Func("load", "prefix=dir: the fake's bucket holds dir's files under prefix; key=file: the file as key (repeatable)", func(s string) error {
		loads = append(loads, s)
		return nil
	})
	flag.Parse()
	if *where {
		fmt.Println(s3test.WeedBinary())
		return
	}
	out := map[string]any{"bucket": *bucket}
	creds := func(c s3.Credentials) map[string]string {
		return map[string]string{"accessKeyId": c.AccessKeyID, "secretAccessKey": c.SecretAccessKey}
	}
	stop := func() {}
	if *weed {
		dir, err := os.MkdirTemp("", "zarr-wasm-weed-")
		if err != nil {
			log.Fatal(err)
		}
		w, err := s3test.StartWeed(context.Background(), s3test.WeedBinary(), dir)
		if err != nil {
			os.RemoveAll(dir)
			log.Fatal(err)
		}
		if err := w.CreateBucket(context.Background(), *bucket); err != nil {
			w.Stop()
			os.RemoveAll(dir)
			log.Fatal(err)
		}
		stop = func() { w.Stop(); os.RemoveAll(dir) }
		out["endpoint"] = w.Endpoint
		out["admin"], out["reader"] = creds(s3test.Admin), creds(s3test.Reader)
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		f := s3test.NewFake(*bucket)
		for _, l := range loads {
			prefix, dir, _ := strings.Cut(l, "=")
			if st, err := os.Stat(dir); err == nil && !st.IsDir() {
				data, err := os.ReadFile(dir)
				if err != nil {
					log.Fatal(err)
				}
				f.Put(prefix, data)
				continue
			}
			if err := f.PutDir(dir, prefix); err != nil {
				log.Fatal(err)
			}
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/_log", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintln(w, strings.Join(f.Log(), "\n"))
		})
		mux.Handle("/", f)
		go http.Serve(ln, mux)
		out["endpoint"] = "http://" + ln.Addr().String()
	}
	json.NewEncoder(os.Stdout).Encode(out)
	io.Copy(io.Discard, os.Stdin)
	stop()
}
