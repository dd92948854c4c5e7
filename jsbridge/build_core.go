//go:build js && wasm && zarrcore && !zarricechunk

package jsbridge

import (
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// The core build: reading only, the common codecs (see package codec).
const buildName = "core"

// locatedReader: no store of the core build locates its chunks elsewhere
// (Icechunk is the full build's).
func locatedReader(store.Locator) js.Value { return js.Undefined() }
