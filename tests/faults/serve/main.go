// Command serve runs the fault server (package faults) on 127.0.0.1 over a
// directory, for the Node tests: it prints its URL on the first line of
// stdout and serves until stdin closes or it is killed.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/zarr-wasm/zarr-wasm/tests/faults"
)

func main() {
	root := flag.String("root", ".", "directory to serve")
	maxStall := flag.Duration("max-stall", 2*time.Minute, "longest a stalled answer holds its connection")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := faults.New(os.DirFS(*root))
	srv.MaxStall = *maxStall
	fmt.Printf("http://%s\n", ln.Addr())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	log.Fatal(http.Serve(ln, srv))
}
