//go:build js && wasm

package jsbridge

import (
	"context"
	"fmt"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// jsStore is a JS store object seen from Go. JS keys are absolute
// ("/a/b/.zarray"), Go keys relative ("a/b/.zarray"). Every method calls
// the JS method and awaits its promise from the calling goroutine, so the
// engine's chunk goroutines each have their own request in flight.
type jsStore struct {
	obj      js.Value
	hasRange bool
	hasSet   bool
	hasDel   bool
	hasList  bool
}

// signalKey carries the JS AbortSignal of the API call, passed on to the
// store's methods as {signal}.
type signalKey struct{}

func withSignal(ctx context.Context, signal js.Value) context.Context {
	return context.WithValue(ctx, signalKey{}, signal)
}

func signalOf(ctx context.Context) (js.Value, bool) {
	v, ok := ctx.Value(signalKey{}).(js.Value)
	return v, ok && v.Type() == js.TypeObject
}

func hasMethod(obj js.Value, name string) bool {
	return obj.Get(name).Type() == js.TypeFunction
}

// newStore wraps a JS store. The Go type implements exactly the optional
// interfaces (RangeReader, Writer, Lister) the object has methods for, so
// the engine's fallbacks (a whole read instead of a range, "cannot list")
// work as for any Go store.
func newStore(obj js.Value) (store.Store, error) {
	if s, ok := storeHandle(obj); ok {
		return s, nil
	}
	if obj.Type() != js.TypeObject && obj.Type() != js.TypeFunction {
		return nil, errs.New(errs.Store, "", "a store must be an object with a get(key) method, got %s", obj.Type())
	}
	if !hasMethod(obj, "get") {
		return nil, errs.New(errs.Store, "", "the store object has no get(key) method")
	}
	b := &jsStore{
		obj:      obj,
		hasRange: hasMethod(obj, "getRange"),
		hasSet:   hasMethod(obj, "set"),
		hasDel:   hasMethod(obj, "delete"),
		hasList:  hasMethod(obj, "list"),
	}
	r, w, l := b.hasRange, b.hasSet, b.hasList
	switch {
	case r && w && l:
		return storeRWL{b}, nil
	case r && w:
		return storeRW{b}, nil
	case r && l:
		return storeRL{b}, nil
	case w && l:
		return storeWL{b}, nil
	case r:
		return storeR{b}, nil
	case w:
		return storeW{b}, nil
	case l:
		return storeL{b}, nil
	}
	return storeGet{b}, nil
}

// The combinations of capabilities.
type (
	storeGet struct{ b *jsStore }
	storeR   struct{ b *jsStore }
	storeW   struct{ b *jsStore }
	storeL   struct{ b *jsStore }
	storeRW  struct{ b *jsStore }
	storeRL  struct{ b *jsStore }
	storeWL  struct{ b *jsStore }
	storeRWL struct{ b *jsStore }
)

func (s storeGet) Get(ctx context.Context, k string) ([]byte, bool, error) { return s.b.get(ctx, k) }
func (s storeR) Get(ctx context.Context, k string) ([]byte, bool, error)   { return s.b.get(ctx, k) }
func (s storeW) Get(ctx context.Context, k string) ([]byte, bool, error)   { return s.b.get(ctx, k) }
func (s storeL) Get(ctx context.Context, k string) ([]byte, bool, error)   { return s.b.get(ctx, k) }
func (s storeRW) Get(ctx context.Context, k string) ([]byte, bool, error)  { return s.b.get(ctx, k) }
func (s storeRL) Get(ctx context.Context, k string) ([]byte, bool, error)  { return s.b.get(ctx, k) }
func (s storeWL) Get(ctx context.Context, k string) ([]byte, bool, error)  { return s.b.get(ctx, k) }
func (s storeRWL) Get(ctx context.Context, k string) ([]byte, bool, error) { return s.b.get(ctx, k) }

func (s storeR) GetRange(ctx context.Context, k string, r store.ByteRange) ([]byte, bool, error) {
	return s.b.getRange(ctx, k, r)
}
func (s storeRW) GetRange(ctx context.Context, k string, r store.ByteRange) ([]byte, bool, error) {
	return s.b.getRange(ctx, k, r)
}
func (s storeRL) GetRange(ctx context.Context, k string, r store.ByteRange) ([]byte, bool, error) {
	return s.b.getRange(ctx, k, r)
}
func (s storeRWL) GetRange(ctx context.Context, k string, r store.ByteRange) ([]byte, bool, error) {
	return s.b.getRange(ctx, k, r)
}

func (s storeW) Set(ctx context.Context, k string, v []byte) error   { return s.b.set(ctx, k, v) }
func (s storeRW) Set(ctx context.Context, k string, v []byte) error  { return s.b.set(ctx, k, v) }
func (s storeWL) Set(ctx context.Context, k string, v []byte) error  { return s.b.set(ctx, k, v) }
func (s storeRWL) Set(ctx context.Context, k string, v []byte) error { return s.b.set(ctx, k, v) }
func (s storeW) Delete(ctx context.Context, k string) error          { return s.b.del(ctx, k) }
func (s storeRW) Delete(ctx context.Context, k string) error         { return s.b.del(ctx, k) }
func (s storeWL) Delete(ctx context.Context, k string) error         { return s.b.del(ctx, k) }
func (s storeRWL) Delete(ctx context.Context, k string) error        { return s.b.del(ctx, k) }

func (s storeL) List(ctx context.Context, p string) ([]string, error)   { return s.b.list(ctx, p) }
func (s storeRL) List(ctx context.Context, p string) ([]string, error)  { return s.b.list(ctx, p) }
func (s storeWL) List(ctx context.Context, p string) ([]string, error)  { return s.b.list(ctx, p) }
func (s storeRWL) List(ctx context.Context, p string) ([]string, error) { return s.b.list(ctx, p) }

// jsKey turns a relative Go key into the absolute JS key.
func jsKey(k string) string { return "/" + k }

// opts is the options argument of store calls: {signal} when the API call
// has one.
func opts(ctx context.Context) js.Value {
	o := jsObject.New()
	if sig, ok := signalOf(ctx); ok {
		o.Set("signal", sig)
	}
	return o
}

func (s *jsStore) get(ctx context.Context, key string) ([]byte, bool, error) {
	p, err := call(s.obj, "get", jsKey(key), opts(ctx))
	if err != nil {
		return nil, false, err
	}
	v, err := await(ctx, p)
	if err != nil {
		return nil, false, err
	}
	return bytesFromJS(key, v)
}

func (s *jsStore) getRange(ctx context.Context, key string, r store.ByteRange) ([]byte, bool, error) {
	q := jsObject.New()
	if r.Suffix > 0 {
		q.Set("suffixLength", r.Suffix)
	} else {
		q.Set("offset", r.Offset)
		if r.Length >= 0 {
			q.Set("length", r.Length)
		}
	}
	if r.Suffix <= 0 && r.Length < 0 {
		// "To the end" has no form in the zarrita range contract: read the
		// whole value and slice it.
		data, ok, err := s.get(ctx, key)
		if err != nil || !ok {
			return nil, ok, err
		}
		sub, err := store.Slice(data, r)
		if err != nil {
			return nil, false, errs.Wrap(errs.Store, key, err, "bad range")
		}
		return sub, true, nil
	}
	p, err := call(s.obj, "getRange", jsKey(key), q, opts(ctx))
	if err != nil {
		return nil, false, err
	}
	v, err := await(ctx, p)
	if err != nil {
		return nil, false, err
	}
	data, ok, err := bytesFromJS(key, v)
	if err != nil || !ok {
		return data, ok, err
	}
	want := r.Length
	if r.Suffix > 0 {
		want = r.Suffix
	}
	if int64(len(data)) != want {
		return nil, false, errs.New(errs.Store, key, "the store returned %d bytes for %s", len(data), r)
	}
	return data, true, nil
}

func (s *jsStore) set(ctx context.Context, key string, value []byte) error {
	u := jsUint8Array.New(len(value))
	js.CopyBytesToJS(u, value)
	p, err := call(s.obj, "set", jsKey(key), u)
	if err != nil {
		return err
	}
	_, err = await(ctx, p)
	return err
}

func (s *jsStore) del(ctx context.Context, key string) error {
	if !s.hasDel {
		return errs.New(errs.Unsupported, key, "the store has set() but no delete(); cannot remove the key")
	}
	p, err := call(s.obj, "delete", jsKey(key))
	if err != nil {
		return err
	}
	_, err = await(ctx, p)
	return err
}

func (s *jsStore) list(ctx context.Context, prefix string) ([]string, error) {
	p, err := call(s.obj, "list", jsKey(prefix))
	if err != nil {
		return nil, err
	}
	v, err := await(ctx, p)
	if err != nil {
		return nil, err
	}
	if v.IsUndefined() || v.IsNull() {
		return nil, nil
	}
	if !jsArray.Call("isArray", v).Bool() {
		return nil, errs.New(errs.Store, prefix, "list() must return an array of names")
	}
	out := make([]string, v.Length())
	for i := range out {
		e := v.Index(i)
		if e.Type() != js.TypeString {
			return nil, errs.New(errs.Store, prefix, "list() returned a non-string entry")
		}
		out[i] = e.String()
	}
	return out, nil
}

var (
	jsArrayBuffer = js.Global().Get("ArrayBuffer")
)

// bytesFromJS copies a store result into Go: undefined/null is an absent
// key; a Uint8Array (or Buffer), another ArrayBuffer view, or an
// ArrayBuffer is the value.
func bytesFromJS(key string, v js.Value) ([]byte, bool, error) {
	if v.IsUndefined() || v.IsNull() {
		return nil, false, nil
	}
	if v.Type() != js.TypeObject {
		return nil, false, errs.New(errs.Store, key, "the store returned a %s, not bytes", v.Type())
	}
	u := v
	if !v.InstanceOf(jsUint8Array) {
		switch {
		case v.InstanceOf(jsArrayBuffer):
			u = jsUint8Array.New(v)
		case jsArrayBuffer.Call("isView", v).Bool():
			u = jsUint8Array.New(v.Get("buffer"), v.Get("byteOffset"), v.Get("byteLength"))
		default:
			return nil, false, errs.New(errs.Store, key, "the store returned %s, not a Uint8Array", describe(v))
		}
	}
	data, err := budget.Bytes(key, u.Get("byteLength").Int())
	if err != nil {
		return nil, false, err
	}
	js.CopyBytesToGo(data, u)
	return data, true, nil
}

func describe(v js.Value) string {
	if c := v.Get("constructor"); c.Type() == js.TypeFunction {
		return fmt.Sprintf("a %s", c.Get("name").String())
	}
	return "an object"
}
