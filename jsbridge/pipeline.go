//go:build js && wasm

package jsbridge

import (
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/urlx"
)

func init() {
	// parsePipeline(url) → {root, zips, zipFiles, format, path, nodePath}: a
	// URL pipeline (urlx.Pipeline) for npm/lib/sources.js, which makes its
	// stores.
	handleSync("parsePipeline", inAny, func(c *bridgeCall) (any, error) {
		if c.a[0].Type() != js.TypeString {
			return nil, errs.New(errs.Store, "", "a URL pipeline is a string")
		}
		p, err := urlx.ParsePipeline(c.a[0].String())
		if err != nil {
			return nil, err
		}
		o := jsObject.New()
		o.Set("root", p.Root)
		o.Set("zips", stringsToJS(p.Zips))
		o.Set("zipFiles", stringsToJS(p.ZipFiles()))
		o.Set("format", p.Format)
		o.Set("path", p.Path)
		o.Set("nodePath", p.NodePath())
		return o, nil
	})
}
