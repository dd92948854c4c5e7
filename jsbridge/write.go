//go:build js && wasm && !zarrcore

package jsbridge

import (
	"context"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// Writing (set, resize, attributes, create, consolidate) is in the full
// build only: the core build a read-only page loads first leaves out the
// encoders, and the npm wrapper moves a node to the full build when it is
// written to.

func init() {
	// set(id, selection, value, signal)
	handleAsync("set", inArray+inSelection, func(c *bridgeCall) (js.Value, error) {
		arr, sel := c.arr, c.sel
		selShape, err := arr.SelectionShape(sel)
		if err != nil {
			return js.Value{}, err
		}
		v, err := valueToND(arr.DType(), c.a[2], selShape)
		if err != nil {
			return js.Value{}, err
		}
		// The context after the value is checked (a bad value fails with
		// its error even when the signal has aborted).
		if err := callSignal(c, 3); err != nil {
			return js.Value{}, err
		}
		if err := arr.Write(c.ctx, sel, v); err != nil {
			return js.Value{}, err
		}
		return js.Undefined(), nil
	})
	// resize(id, shape, {expandOnly, shrinkOnly, resizeMetadataOnly}) →
	// array info; a null in shape keeps that dimension.
	handleAsync("resize", inArray, func(c *bridgeCall) (js.Value, error) {
		a, arr := c.a, c.arr
		var err error
		shape := make([]int, a[1].Length())
		for i := range shape {
			shape[i] = -1
			if v := a[1].Index(i); v.Type() == js.TypeNumber {
				if shape[i], err = intFromJS(v, "shape entry"); err != nil {
					return js.Value{}, err
				}
				if shape[i] < 0 {
					return js.Value{}, errs.New(errs.InvalidArgument, arr.Path(), "negative dimension in new shape")
				}
			}
		}
		o := a[2]
		flag := func(name string) bool { return o.Type() == js.TypeObject && o.Get(name).Truthy() }
		opt := zarr.ResizeOptions{ExpandOnly: flag("expandOnly"), ShrinkOnly: flag("shrinkOnly"), MetadataOnly: flag("resizeMetadataOnly")}
		if err := arr.ResizeWith(context.Background(), shape, opt); err != nil {
			return js.Value{}, err
		}
		return arrayInfo(arr, jsObject.New()), nil
	})
	// setAttrs(id, json, merge) → attrs
	handleAsync("setAttrs", inNode, func(c *bridgeCall) (js.Value, error) {
		n := c.node
		var attrs map[string]any
		if err := jsonx.Unmarshal([]byte(c.a[1].String()), &attrs); err != nil {
			return js.Value{}, errs.Wrap(errs.InvalidMetadata, n.Path(), err, "attributes")
		}
		ctx := context.Background()
		merge := c.a[2].Truthy()
		var err error
		switch x := n.(type) {
		case *zarr.Array:
			if merge {
				err = x.UpdateAttrs(ctx, attrs)
			} else {
				err = x.SetAttrs(ctx, attrs)
			}
		case *zarr.Group:
			if merge {
				err = x.UpdateAttrs(ctx, attrs)
			} else {
				err = x.SetAttrs(ctx, attrs)
			}
		}
		if err != nil {
			return js.Value{}, err
		}
		return valueToJS(n.Attrs()), nil
	})
	// create(store, optionsJSON) → node info; the options object is matched
	// to zarr.ArrayOptions field by field (case-insensitive), so options the
	// engine adds (codecs, chunk key encodings, ...) pass straight through.
	handleAsync("create", inStore, func(c *bridgeCall) (js.Value, error) {
		s := c.store
		path, opt, err := arrayOptions(c.a[1].String())
		if err != nil {
			return js.Value{}, err
		}
		arr, err := zarr.CreateArray(context.Background(), s, path, opt)
		if err != nil {
			return js.Value{}, err
		}
		return nodeInfo(arr), nil
	})
	handleAsync("createGroup", inStore, func(c *bridgeCall) (js.Value, error) {
		s := c.store
		var opt zarr.GroupOptions
		path, err := decodeOptions("createGroup", c.a[1].String(), &opt)
		if err != nil {
			return js.Value{}, err
		}
		g, err := zarr.CreateGroup(context.Background(), s, path, opt)
		if err != nil {
			return js.Value{}, err
		}
		return nodeInfo(g), nil
	})
	// consolidate(store, path) → group info: writes consolidated metadata
	// for the hierarchy at path, then opens the group through it.
	handleAsync("consolidate", inStore, func(c *bridgeCall) (js.Value, error) {
		s := c.store
		ctx := context.Background()
		path := optString(c.a[1])
		if err := zarr.Consolidate(ctx, s, path); err != nil {
			return js.Value{}, err
		}
		g, err := zarr.OpenGroup(ctx, s, path)
		if err != nil {
			return js.Value{}, err
		}
		if _, err := g.Consolidated(ctx); err != nil {
			return js.Value{}, err
		}
		return nodeInfo(g), nil
	})
}
