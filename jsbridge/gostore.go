//go:build js && wasm

package jsbridge

import (
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
	s, ok := handles[h.Int()].(store.Store)
	handlesMu.Unlock()
	if p, pins := s.(pinner); pins {
		return p.pinned(), true
	}
	return s, ok
}

// pinner is a Go store whose contents JS can replace (an IcechunkStore's
// refresh): what is opened from it reads the version of that moment.
type pinner interface{ pinned() store.Store }

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
	handleAsync("zipOpen", inStore+inKey+inSignal, func(c *bridgeCall) (js.Value, error) {
		z, err := zarr.NewZipStore(c.ctx, c.store, c.key)
		if err != nil {
			return js.Value{}, err
		}
		o := jsObject.New()
		o.Set("id", keep(z))
		return o, nil
	})
	// storeGet(id, key, signal) → Uint8Array | undefined
	handleAsync("storeGet", inGoStore+inKey+inSignal, func(c *bridgeCall) (js.Value, error) {
		return readGoStore(c, false)
	})
	// storeGetRange(id, key, {offset, length} | {suffixLength}, signal)
	handleAsync("storeGetRange", inGoStore+inKey+inRange+inSignal, func(c *bridgeCall) (js.Value, error) {
		return readGoStore(c, true)
	})
	// storeList(id, prefix) → names directly under prefix ("/" or "/a/")
	handleAsync("storeList", inGoStore+inKey, func(c *bridgeCall) (js.Value, error) {
		prefix := c.key
		if prefix != "" && prefix[len(prefix)-1] != '/' {
			prefix += "/"
		}
		l, ok := store.AsLister(c.store)
		if !ok {
			return js.Value{}, errs.New(errs.Unsupported, prefix, "the store cannot list")
		}
		names, err := l.List(c.ctx, prefix)
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

// readGoStore answers storeGet and storeGetRange (ranged): the bytes, or
// undefined when the key is absent.
func readGoStore(c *bridgeCall, ranged bool) (js.Value, error) {
	var data []byte
	var ok bool
	var err error
	if ranged {
		data, ok, err = store.GetRange(c.ctx, c.store, c.key, c.br)
	} else {
		data, ok, err = c.store.Get(c.ctx, c.key)
	}
	if err != nil {
		return js.Value{}, err
	}
	if !ok {
		return js.Undefined(), nil
	}
	return bytesToJS(data), nil
}
