//go:build js && wasm && !zarrcore

package jsbridge

import (
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/internal/clitext"
)

// The npm package's zarr-wasm command prints what the Go command prints,
// written by the same code (internal/clitext).
func init() {
	// cliInfo(id, name, signal) → the tree of node id, named name.
	handleAsync("cliInfo", inNode+inAny+inSignal, func(c *bridgeCall) (js.Value, error) {
		return js.ValueOf(clitext.Tree(c.ctx, c.node, optString(c.a[1]))), nil
	})
	// cliCat(id, selection, all, signal) → the shape, data type and values
	// of array id's selection ("" or undefined: the whole array); all:
	// every value, not a summary.
	handleAsync("cliCat", inArray+inAny+inAny+inSignal, func(c *bridgeCall) (js.Value, error) {
		text, err := clitext.Cat(c.ctx, c.arr, optString(c.a[1]), c.a[2].Truthy())
		if err != nil {
			return js.Value{}, err
		}
		return js.ValueOf(text), nil
	})
	// cliLog(id, signal) → the ancestry of Icechunk store id's snapshot.
	handleAsync("cliLog", inGoStore+inSignal, func(c *bridgeCall) (js.Value, error) {
		h, err := lookupIcechunk(c)
		if err != nil {
			return js.Value{}, err
		}
		list, err := h.current().Ancestry(c.ctx)
		if err != nil {
			return js.Value{}, err
		}
		return js.ValueOf(clitext.Log(list)), nil
	})
}
