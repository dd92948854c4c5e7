//go:build js && wasm && !zarrcore

package jsbridge

import (
	"context"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/tsspec"
)

func init() {
	// A subarray field's fill is the whole subarray, as the schema has it.
	viewFill = func(a *zarr.Array, plain js.Value) js.Value {
		if s, err := a.Schema(); err == nil {
			return jsonToJS(s["fill_value"])
		}
		return plain
	}
	// openSpec(spec, store, openKvStore, signal) → node info. spec is the
	// JSON text of a TensorStore spec or a TensorStore URL; store, when an
	// object, is the kvstore (a JS store the spec could not name);
	// openKvStore(kv) returns the JS store of a file, http, s3 or gcs kvstore.
	handleAsync("openSpec", inAny+inAny+inAny+inSignal, func(c *bridgeCall) (js.Value, error) {
		ctx := c.ctx
		var opt zarr.SpecOptions
		if c.a[1].Type() == js.TypeObject {
			var err error
			if opt.Store, err = newStore(c.a[1]); err != nil {
				return js.Value{}, err
			}
		}
		if open := c.a[2]; open.Type() == js.TypeFunction {
			opt.OpenKvStore = func(ctx context.Context, kv *tsspec.KvStore) (zarr.Store, error) {
				return openJSKvStore(ctx, open, kv)
			}
		}
		arr, err := zarr.OpenSpecWith(ctx, optString(c.a[0]), opt)
		if err != nil {
			return js.Value{}, err
		}
		return nodeInfo(arr), nil
	})
	// arraySpec(id) → {schema, spec} or {error}: TensorStore's Schema and
	// Spec of an array, answered at once (the getter arr.schema is sync).
	handleSync("arraySpec", inArray, func(c *bridgeCall) (any, error) {
		schema, err := c.arr.Schema()
		if err != nil {
			return nil, err
		}
		spec, err := c.arr.Spec()
		if err != nil {
			return nil, err
		}
		o := jsObject.New()
		o.Set("schema", jsonToJS(schema))
		o.Set("spec", jsonToJS(spec))
		return o, nil
	})
}

// openJSKvStore asks the JS wrapper for the store of a file or http
// kvstore ({driver, path} or {driver, url, headers}) and wraps it.
func openJSKvStore(ctx context.Context, open js.Value, kv *tsspec.KvStore) (zarr.Store, error) {
	desc := jsObject.New()
	desc.Set("driver", kv.Driver)
	desc.Set("path", kv.Path)
	if kv.Driver == "http" {
		desc.Set("url", kv.URL())
		headers := make([]any, len(kv.Headers))
		for i, h := range kv.Headers {
			headers[i] = h
		}
		desc.Set("headers", valueToJS(headers))
	}
	if loc := kv.Location(); loc != "" {
		desc.Set("location", loc)
		desc.Set("endpoint", kv.Endpoint)
		desc.Set("region", kv.Region)
	}
	v, err := call(open, "call", js.Undefined(), desc)
	if err == nil {
		v, err = await(ctx, v)
	}
	if err != nil {
		return nil, errs.Wrap(errs.Store, "spec.kvstore", err, "cannot open the %s kvstore", kv.Driver)
	}
	return newStore(v)
}

// jsonToJS converts a JSON-shaped Go value (maps, lists, numbers,
// jsonx.RawMessage members) to a JS value.
func jsonToJS(v any) js.Value {
	b, err := jsonx.Marshal(v, "")
	if err != nil {
		return js.Null()
	}
	return valueToJS(jsonx.RawMessage(b))
}

func init() {
	// memoryKvStore() → handle of the store behind the "memory" kvstore.
	handleAsync("memoryKvStore", "", func(*bridgeCall) (js.Value, error) {
		return js.ValueOf(keep(zarr.Store(zarr.MemoryKvStore()))), nil
	})
}
