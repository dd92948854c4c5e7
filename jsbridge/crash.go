//go:build js && wasm

package jsbridge

import (
	"os"
	"syscall/js"
)

// keepAlive holds what crash("oom") allocates, so the collector cannot
// free it.
var keepAlive [][]byte

func init() {
	// _crash(kind) stops the engine the ways a bug or the runtime would,
	// for the npm package's tests of its restart: "panic" (a panic in a
	// goroutine no call recovers), "oom" (the Go heap outgrowing
	// WebAssembly memory, past the budget's checks), "exit".
	handleSync("_crash", inAny, func(c *bridgeCall) (any, error) {
		kind := ""
		if c.a[0].Type() == js.TypeString {
			kind = c.a[0].String()
		}
		switch kind {
		case "panic":
			go func() { panic("zarr-wasm: _crash(\"panic\")") }()
		case "oom":
			go func() {
				for {
					keepAlive = append(keepAlive, make([]byte, 256<<20))
				}
			}()
		case "exit":
			go os.Exit(3)
		}
		return nil, nil
	})
}
