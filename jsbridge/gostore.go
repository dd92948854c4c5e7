//go:build js && wasm

package jsbridge

import (
	"context"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Stores that live in the engine (a zip file's entries; in the full engine
// also reference sets) are kept by handle: open() given the JS object that
// carries the handle reads the Go store directly, and storeGet,
// storeGetRange and storeList make it a plain store for other JS code.

// lookupGoStore returns a Go store the bridge keeps for JS (a reference
// set, a zip store).
func lookupGoStore(v js.Value) (store.Store, error) { return lookupHandle[store.Store](v, "store") }

// storeHandle returns the Go store behind a JS object that carries a
// bridge handle (a ReferenceStore), so the engine reads it without a trip
// through JS.
func storeHandle(obj js.Value) (store.Store, bool) {
	if obj.Type() != js.TypeObject {
		return nil, false
	}
	h := obj.Get("_zarrWasmHandle")
	if h.Type() != js.TypeNumber {
		return nil, false
	}
	handlesMu.Lock()
	defer handlesMu.Unlock()
	s, ok := handles[h.Int()].(store.Store)
	return s, ok
}

// goKey turns an absolute JS key into a Go key.
func goKey(v js.Value) (string, error) {
	if v.Type() != js.TypeString || len(v.String()) == 0 || v.String()[0] != '/' {
		return "", errs.New(errs.Store, "", "store keys are absolute paths starting with \"/\"")
	}
	return v.String()[1:], nil
}

func init() {
	// zipOpen(store, key, signal) → {id}: the zip file at key in a store,
	// read through range requests.
	handleAsync("zipOpen", func(a []js.Value) (js.Value, error) {
		base, err := newStore(a[0])
		if err != nil {
			return js.Value{}, err
		}
		key, err := goKey(a[1])
		if err != nil {
			return js.Value{}, err
		}
		ctx, done, err := callContext(a[2])
		if err != nil {
			return js.Value{}, err
		}
		defer done()
		z, err := zarr.NewZipStore(ctx, base, key)
		if err != nil {
			return js.Value{}, abortAware(ctx, err)
		}
		o := jsObject.New()
		o.Set("id", keep(z))
		return o, nil
	})
	// storeGet(id, key, signal) → Uint8Array | undefined
	handleAsync("storeGet", func(a []js.Value) (js.Value, error) {
		return readGoStore(a[0], a[1], nil, a[2])
	})
	// storeGetRange(id, key, {offset, length} | {suffixLength}, signal)
	handleAsync("storeGetRange", func(a []js.Value) (js.Value, error) {
		return readGoStore(a[0], a[1], &a[2], a[3])
	})
	// storeList(id, prefix) → names directly under prefix ("/" or "/a/")
	handleAsync("storeList", func(a []js.Value) (js.Value, error) {
		s, err := lookupGoStore(a[0])
		if err != nil {
			return js.Value{}, err
		}
		prefix, err := goKey(a[1])
		if err != nil {
			return js.Value{}, err
		}
		if prefix != "" && prefix[len(prefix)-1] != '/' {
			prefix += "/"
		}
		l, ok := store.AsLister(s)
		if !ok {
			return js.Value{}, errs.New(errs.Unsupported, prefix, "the store cannot list")
		}
		names, err := l.List(context.Background(), prefix)
		if err != nil {
			return js.Value{}, err
		}
		out := jsArray.New(len(names))
		for i, n := range names {
			out.SetIndex(i, n)
		}
		return out, nil
	})
}

// readGoStore answers storeGet (rangeArg nil: the whole value) and
// storeGetRange: the bytes, or undefined when the key is absent.
func readGoStore(id, keyArg js.Value, rangeArg *js.Value, signal js.Value) (js.Value, error) {
	s, err := lookupGoStore(id)
	if err != nil {
		return js.Value{}, err
	}
	key, err := goKey(keyArg)
	if err != nil {
		return js.Value{}, err
	}
	var br store.ByteRange
	if rangeArg != nil {
		if br, err = rangeFromJS(key, *rangeArg); err != nil {
			return js.Value{}, err
		}
	}
	ctx, done, err := callContext(signal)
	if err != nil {
		return js.Value{}, err
	}
	defer done()
	var data []byte
	var ok bool
	if rangeArg != nil {
		data, ok, err = store.GetRange(ctx, s, key, br)
	} else {
		data, ok, err = s.Get(ctx, key)
	}
	if err != nil {
		return js.Value{}, abortAware(ctx, err)
	}
	if !ok {
		return js.Undefined(), nil
	}
	return bytesToJS(data), nil
}
