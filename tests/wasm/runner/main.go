// Command runner checks fixture cases with the engine: the conformance
// checker of tests/conformance, built for GOOS=wasip1 so that
// tests/wasm runs it under wazero and proves the engine under WebAssembly
// without Node. It also builds and runs natively.
//
//	runner [-anynan name,...] DATA_DIR CASES_JSON [DATA_DIR CASES_JSON ...]
//
// Output: one line per case, "ok NAME", "skip NAME: REASON" or
// "FAIL NAME: REASON", then "N passed, M failed, K skipped". Exit status 1
// when a case failed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/zarr-wasm/zarr-wasm/tests/conformance"
	"github.com/zarr-wasm/zarr-wasm/zarr"
)

func main() {
	anyNaN := flag.String("anynan", "", "comma-separated case names where any NaN matches a NaN")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 || len(args)%2 != 0 {
		fmt.Fprintln(os.Stderr, "usage: runner [-anynan names] DATA_DIR CASES_JSON [DATA_DIR CASES_JSON ...]")
		os.Exit(2)
	}
	nan := map[string]bool{}
	for _, n := range strings.Split(*anyNaN, ",") {
		if n != "" {
			nan[n] = true
		}
	}
	ctx := context.Background()
	passed, failed, skipped := 0, 0, 0
	for i := 0; i < len(args); i += 2 {
		root, file := args[i], args[i+1]
		cases, err := conformance.Load(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, c := range cases {
			c.AnyNaN = nan[c.Name]
			err := conformance.Check(ctx, root, c)
			switch {
			case err == nil:
				passed++
				fmt.Printf("ok %s\n", c.Name)
			case strings.HasPrefix(c.Note, "OPTIONAL") && zarr.ErrorCodeOf(errors.Unwrap(err)) == zarr.CodeUnsupported:
				// As in the native test: optional cases may be refused
				// with UNSUPPORTED, never read wrongly.
				skipped++
				fmt.Printf("skip %s: %s\n", c.Name, oneLine(err))
			default:
				failed++
				fmt.Printf("FAIL %s: %s\n", c.Name, oneLine(err))
			}
		}
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 {
		os.Exit(1)
	}
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }
