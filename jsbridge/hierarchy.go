//go:build js && wasm

package jsbridge

import (
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
)

func init() {
	// consolidatedDocs(key, bytes, v3) → {key: Uint8Array}: the documents of
	// a consolidated metadata file (v2 .zmetadata, or a v3 root zarr.json)
	// by store key, each as its writer wrote it (withConsolidatedMetadata).
	handleAsync("consolidatedDocs", "", func(c *bridgeCall) (js.Value, error) {
		key := c.a[0].String()
		data, ok, err := bytesFromJS(key, c.a[1])
		if err != nil {
			return js.Value{}, err
		}
		if !ok {
			return js.Value{}, errs.New(errs.NotFound, key, "no consolidated metadata")
		}
		docs, err := zarr.ConsolidatedDocuments(key, data, c.a[2].Truthy())
		if err != nil {
			return js.Value{}, err
		}
		out := jsObject.New()
		for k, v := range docs {
			out.Set(jsKey(k), bytesToJS(v))
		}
		return out, nil
	})
	// nearest(name, candidates) → the near name ("did you mean"), or "".
	handleSync("nearest", inAny+inAny, func(c *bridgeCall) (any, error) {
		name, list := c.a[0], c.a[1]
		if name.Type() != js.TypeString || !jsArray.Call("isArray", list).Bool() {
			return "", nil
		}
		names := make([]string, 0, list.Length())
		for i := 0; i < list.Length(); i++ {
			if v := list.Index(i); v.Type() == js.TypeString {
				names = append(names, v.String())
			}
		}
		return errs.Nearest(name.String(), names), nil
	})
}
