//go:build js && wasm && zarrcore && !zarricechunk

package jsbridge

import (
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// The core build: reading only, the common codecs (see package codec).
const buildName = "core"

// locatedIn: no store of the core build locates its chunks elsewhere
// (Icechunk is the other builds'), so it has no planLocated either.
func locatedIn(*zarr.Array) (store.Locator, *jsStore, js.Value, bool) {
	return nil, nil, js.Undefined(), false
}
