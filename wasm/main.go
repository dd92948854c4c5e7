//go:build js && wasm

// Command wasm is the zarr-wasm WebAssembly module (GOOS=js GOARCH=wasm).
// The npm wrapper starts it with the name of a global function and the
// first handle id less one; main hands the bridge's API object to that
// function and then blocks, serving calls until the page or process ends.
package main

import (
	"os"
	"strconv"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/jsbridge"
)

func main() {
	api := jsbridge.API()
	name := "__zarrWasmReady"
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	// The wrapper gives each engine it starts its own range of handle ids.
	if len(os.Args) > 2 {
		if base, err := strconv.Atoi(os.Args[2]); err == nil && base >= 0 {
			jsbridge.SetHandleBase(base)
		}
	}
	ready := js.Global().Get(name)
	if ready.Type() != js.TypeFunction {
		println("zarr-wasm: no global function", name, "to hand the API to")
		return
	}
	ready.Invoke(api)
	select {}
}
