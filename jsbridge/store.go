//go:build js && wasm

package jsbridge

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/internal/fmtx"
	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// jsStore is a JS store object seen from Go: one adapter whatever methods
// the object has, which says through Can (store.Capable) which parts of the
// contract work. JS keys are absolute ("/a/b/.zarray"), Go keys relative
// ("a/b/.zarray"). Every method calls the JS method and awaits its promise
// from the calling goroutine, so the engine's chunk goroutines each have
// their own request in flight.
//
// Versions: the engine passes {versioned: true} with {ifMatch} or
// {ifNoneMatch} to get and getRange, and {versioned: true} with {ifMatch}
// or {ifNoneMatch: "*"} (create only) to set and delete. A store that knows versions answers reads with
// {data, generation, notModified?, changed?} and writes with {generation}
// or {changed: true}; a plain store (zarrita's, a Map) answers with bytes
// or undefined, ignores the options, and is read and written without
// versions. A versioned answer {data: undefined, denied: true} is an absent
// key the server refused (an object store's 403, see FetchStore).
type jsStore struct {
	obj  js.Value
	id   int // the same for every adapter of one JS object (Identity)
	can  map[store.Capability]bool
	stat *storeStats
}

var (
	_ store.VersionedReader   = (*jsStore)(nil)
	_ store.ConditionalWriter = (*jsStore)(nil)
	_ store.Lister            = (*jsStore)(nil)
	_ store.Capable           = (*jsStore)(nil)
	_ store.Identifier        = (*jsStore)(nil)
)

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

// storeIDs numbers JS store objects (a WeakMap, so a store nobody holds
// can still be collected), so every adapter of one object shares the
// engine's chunk cache entries and write locks.
var (
	storeIDsMu  sync.Mutex
	storeIDs    = js.Global().Get("WeakMap").New()
	nextStoreID = 1
	statsByID   = map[int]*storeStats{}
)

// newStore wraps a JS store, probing which optional methods it has.
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
	storeIDsMu.Lock()
	id := 0
	if v := storeIDs.Call("get", obj); v.Type() == js.TypeNumber {
		id = v.Int()
	} else {
		id = nextStoreID
		nextStoreID++
		storeIDs.Call("set", obj, id)
	}
	st := statsByID[id]
	if st == nil {
		st = &storeStats{}
		statsByID[id] = st
	}
	storeIDsMu.Unlock()
	writes := hasMethod(obj, "set")
	return &jsStore{obj: obj, id: id, stat: st, can: map[store.Capability]bool{
		store.CanReadRange: hasMethod(obj, "getRange"),
		store.CanWrite:     writes,
		store.CanWriteIf:   writes,
		// (a FetchStore says listable: false where list() cannot work)
		store.CanList:    hasMethod(obj, "list") && (obj.Get("listable").Type() != js.TypeBoolean || obj.Get("listable").Bool()),
		store.CanVersion: true, // known from each answer
		// (an answer {data: undefined, denied: true}: absent, refused)
		store.CanTellDenied: true,
	}}, nil
}

func (s *jsStore) Can(c store.Capability) bool { return s.can[c] }

// Identity is the JS object's number: adapters made by separate open()
// calls on one store share caches and locks.
func (s *jsStore) Identity() any { return jsStoreIdentity(s.id) }

type jsStoreIdentity int

func (s *jsStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := s.ReadVersion(ctx, key, store.WholeValue(), store.Conditions{})
	return v.Data, v.Found, err
}

func (s *jsStore) GetRange(ctx context.Context, key string, r store.ByteRange) ([]byte, bool, error) {
	v, err := s.ReadVersion(ctx, key, r, store.Conditions{})
	return v.Data, v.Found, err
}

func (s *jsStore) Set(ctx context.Context, key string, value []byte) error {
	_, err := s.SetIf(ctx, key, value, "")
	return err
}

func (s *jsStore) Delete(ctx context.Context, key string) error { return s.DeleteIf(ctx, key, "") }

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

// readOptions is the options argument of get and getRange.
func readOptions(ctx context.Context, c store.Conditions) js.Value {
	o := opts(ctx)
	o.Set("versioned", true)
	// (Absent has no form a JS store knows: the answer is compared instead.)
	if c.IfMatch != "" && c.IfMatch != store.Absent {
		o.Set("ifMatch", string(c.IfMatch))
	}
	if c.IfNoneMatch != "" && c.IfNoneMatch != store.Absent {
		o.Set("ifNoneMatch", string(c.IfNoneMatch))
	}
	return o
}

// ReadVersion calls get or getRange. A range "to the end" has no form in
// the zarrita contract: the whole value is read and sliced, as it is for a
// store without getRange.
func (s *jsStore) ReadVersion(ctx context.Context, key string, r store.ByteRange, c store.Conditions) (store.Versioned, error) {
	var p js.Value
	var err error
	q, ranged := rangeToJS(r)
	ranged = ranged && s.can[store.CanReadRange]
	if ranged {
		s.stat.ranges.Add(1)
		p, err = call(s.obj, "getRange", jsKey(key), q, readOptions(ctx, c))
	} else {
		s.stat.gets.Add(1)
		if p = early(ctx, key, r, c); p.IsUndefined() {
			p, err = call(s.obj, "get", jsKey(key), readOptions(ctx, c))
		}
	}
	if err != nil {
		return store.Versioned{}, err
	}
	res, err := await(ctx, p)
	if err != nil {
		return store.Versioned{}, err
	}
	v, err := versionedFromJS(key, res)
	if err != nil || !v.Found || v.NotModified {
		if v.NotModified {
			s.stat.notModified.Add(1)
		}
		return v, err
	}
	s.stat.bytes.Add(int64(len(v.Data)))
	if !ranged && !r.IsWhole() {
		sub, err := store.Slice(v.Data, r)
		if err != nil {
			return store.Versioned{}, errs.Wrap(errs.Store, key, err, "bad range")
		}
		v.Data = sub
		return v, nil
	}
	if ranged {
		want, ok := r.Suffix()
		if !ok {
			_, want = r.Bounds()
		}
		if int64(len(v.Data)) != want {
			return store.Versioned{}, errs.New(errs.Store, key, "the store returned %d bytes for %s", len(v.Data), r)
		}
	}
	return v, nil
}

// earlyKey carries, in the context of an open call, the reads core.js made
// of the store while the engine was starting (its earlyReads): a JS
// function take(key) that returns the promise of the store's get of that
// absolute key once, then undefined.
type earlyKey struct{}

// early is the store's answer to a read of key that core.js asked for
// before the engine ran (taken: a second read of key asks the store), or
// undefined. Only whole reads without conditions: those are what core.js
// asked for, with the options readOptions gives them.
func early(ctx context.Context, key string, r store.ByteRange, c store.Conditions) js.Value {
	take, ok := ctx.Value(earlyKey{}).(js.Value)
	if !ok || !r.IsWhole() || c != (store.Conditions{}) {
		return js.Undefined()
	}
	return take.Invoke(jsKey(key))
}

// rangeToJS is r in the zarrita form, {offset, length} or {suffixLength};
// ok is false for the whole value and for ranges to the end.
func rangeToJS(r store.ByteRange) (js.Value, bool) {
	if r.IsWhole() {
		return js.Undefined(), false
	}
	q := jsObject.New()
	if n, ok := r.Suffix(); ok {
		q.Set("suffixLength", n)
		return q, true
	}
	off, n := r.Bounds()
	if n < 0 {
		return js.Undefined(), false
	}
	q.Set("offset", off)
	q.Set("length", n)
	return q, true
}

// rangeFromJS reads {offset, length} ({offset} alone: to the end) or
// {suffixLength}.
func rangeFromJS(key string, q js.Value) (store.ByteRange, error) {
	if q.Type() != js.TypeObject {
		return store.ByteRange{}, errs.New(errs.Store, key, "a range is {offset, length} or {suffixLength}")
	}
	if sl := q.Get("suffixLength"); sl.Type() == js.TypeNumber {
		n := int64(sl.Float())
		if n <= 0 {
			return store.ByteRange{}, errs.New(errs.Store, key, "bad suffixLength %d", n)
		}
		return store.Last(n), nil
	}
	var off int64
	if v := q.Get("offset"); v.Type() == js.TypeNumber {
		off = int64(v.Float())
	}
	if off < 0 {
		return store.ByteRange{}, errs.New(errs.Store, key, "bad range offset %d", off)
	}
	v := q.Get("length")
	if v.Type() != js.TypeNumber {
		return store.From(off), nil
	}
	n := int64(v.Float())
	if n < 0 {
		return store.ByteRange{}, errs.New(errs.Store, key, "bad range length %d", n)
	}
	return store.Span(off, n), nil
}

// readPlaced reads the whole value of key without conditions, as
// ReadVersion does (but without asking for its version: the engine keeps
// no generation of a chunk it does not cache), through fetch, which asks
// the store and places what it can on the JS side, so the answer never
// becomes a Go value (a JS value Go holds stays alive until Go's garbage
// collector finalizes it, and placed chunks make Go allocate nothing). fetch
// returns, or resolves to, a number: n >= 0 placed (n stored bytes), -2
// absent, else the token -n-3 of an answer the placer keeps: alone() is
// asked, and then the answer is either placed by token (place) or taken
// (take) and read here as ReadVersion reads it (an error, or the bytes,
// copied, for the engine to decode). When ctx ends before fetch's promise
// settles (the read was aborted, or failed on another chunk), forget(p)
// has the placer drop the answer it will keep for nobody.
func (s *jsStore) readPlaced(ctx context.Context, key string, fetch func(obj js.Value, key string, opts js.Value) (js.Value, error), alone func() bool, place func(token int) int, take func(token int) js.Value, forget func(p js.Value)) (v store.Versioned, placed bool, err error) {
	s.stat.gets.Add(1)
	p, err := fetch(s.obj, jsKey(key), opts(ctx))
	if err != nil {
		return store.Versioned{}, false, err
	}
	res, err := await(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			forget(p)
		}
		return store.Versioned{}, false, err
	}
	n := res.Int()
	if n <= -3 && alone() {
		n = place(-n - 3)
	}
	switch {
	case n >= 0:
		s.stat.bytes.Add(int64(n))
		return store.Versioned{Found: true}, true, nil
	case n == -2:
		return store.Versioned{}, false, nil
	}
	v, err = versionedFromJS(key, take(-n-3))
	if err == nil && v.Found && !v.NotModified {
		s.stat.bytes.Add(int64(len(v.Data)))
	}
	return v, false, err
}

// versionedFromJS reads a store's answer: bytes or undefined from a plain
// store, {data, generation, notModified, changed} from a versioned one.
func versionedFromJS(key string, v js.Value) (store.Versioned, error) {
	if v.Type() != js.TypeObject || isBytes(v) || !isVersioned(v) {
		data, ok, err := bytesFromJS(key, v)
		return store.Versioned{Data: data, Found: ok}, err
	}
	if v.Get("changed").Truthy() {
		return store.Versioned{}, store.Conflict(key, "changed (the store's answer to ifMatch)")
	}
	gen := store.Generation("")
	if g := v.Get("generation"); g.Type() == js.TypeString {
		gen = store.Generation(g.String())
	}
	if v.Get("notModified").Truthy() {
		return store.Versioned{Found: true, Generation: gen, NotModified: true}, nil
	}
	data, ok, err := bytesFromJS(key, v.Get("data"))
	if err != nil {
		return store.Versioned{}, err
	}
	if !ok && gen == "" {
		gen = store.Absent
	}
	return store.Versioned{Data: data, Found: ok, Generation: gen, Denied: !ok && v.Get("denied").Truthy()}, nil
}

// writeOptions is the options argument of set and delete.
func writeOptions(ctx context.Context, ifMatch store.Generation) js.Value {
	o := opts(ctx)
	o.Set("versioned", true)
	switch ifMatch {
	case "":
	case store.Absent:
		o.Set("ifNoneMatch", "*")
	default:
		o.Set("ifMatch", string(ifMatch))
	}
	return o
}

func (s *jsStore) SetIf(ctx context.Context, key string, value []byte, ifMatch store.Generation) (store.Generation, error) {
	if !s.can[store.CanWrite] {
		return "", errs.New(errs.ReadOnly, key, "the store has no set(); it cannot be written")
	}
	s.stat.sets.Add(1)
	u := jsUint8Array.New(len(value))
	js.CopyBytesToJS(u, value)
	p, err := call(s.obj, "set", jsKey(key), u, writeOptions(ctx, ifMatch))
	if err != nil {
		return "", err
	}
	res, err := await(ctx, p)
	if err != nil {
		return "", err
	}
	return writeAnswer(key, res)
}

func (s *jsStore) DeleteIf(ctx context.Context, key string, ifMatch store.Generation) error {
	if !hasMethod(s.obj, "delete") {
		return errs.New(errs.Unsupported, key, "the store has set() but no delete(); cannot remove the key")
	}
	s.stat.deletes.Add(1)
	p, err := call(s.obj, "delete", jsKey(key), writeOptions(ctx, ifMatch))
	if err != nil {
		return err
	}
	res, err := await(ctx, p)
	if err != nil {
		return err
	}
	_, err = writeAnswer(key, res)
	return err
}

// writeAnswer reads what set or delete resolved to: {changed: true} is a
// CONFLICT, {generation} the new version; anything else (undefined, a
// boolean) a plain write.
func writeAnswer(key string, v js.Value) (store.Generation, error) {
	if v.Type() != js.TypeObject {
		return "", nil
	}
	if v.Get("changed").Truthy() {
		return "", store.Conflict(key, "changed since it was read (the store refused the write)")
	}
	if g := v.Get("generation"); g.Type() == js.TypeString {
		return store.Generation(g.String()), nil
	}
	return "", nil
}

func (s *jsStore) List(ctx context.Context, prefix string) ([]string, error) {
	if !s.can[store.CanList] {
		return nil, errs.New(errs.Unsupported, prefix, "the store has no list()")
	}
	s.stat.lists.Add(1)
	return s.list(ctx, prefix)
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

// isVersioned tells a versioned answer from other objects (an error then).
func isVersioned(v js.Value) bool {
	for _, k := range []string{"data", "generation", "notModified", "changed", "denied"} {
		if !v.Get(k).IsUndefined() {
			return true
		}
	}
	return false
}

func isBytes(v js.Value) bool {
	return v.InstanceOf(jsUint8Array) || v.InstanceOf(jsArrayBuffer) || jsArrayBuffer.Call("isView", v).Bool()
}

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
		return fmtx.Sprintf("a %s", c.Get("name").String())
	}
	return "an object"
}

// storeStats counts the requests the engine made of one JS store.
type storeStats struct {
	gets, ranges, sets, deletes, lists, notModified, bytes atomic.Int64
}

func init() {
	// storeStats(store) → {get, getRange, set, delete, list, notModified,
	// bytes}: the requests the engine made of a JS store since it was
	// first opened.
	handleSync("storeStats", inAny, func(c *bridgeCall) (any, error) {
		if c.a[0].Type() != js.TypeObject {
			return js.Null(), nil
		}
		storeIDsMu.Lock()
		v := storeIDs.Call("get", c.a[0])
		var st *storeStats
		if v.Type() == js.TypeNumber {
			st = statsByID[v.Int()]
		}
		storeIDsMu.Unlock()
		if st == nil {
			return js.Null(), nil
		}
		o := jsObject.New()
		o.Set("get", st.gets.Load())
		o.Set("getRange", st.ranges.Load())
		o.Set("set", st.sets.Load())
		o.Set("delete", st.deletes.Load())
		o.Set("list", st.lists.Load())
		o.Set("notModified", st.notModified.Load())
		o.Set("bytes", st.bytes.Load())
		return o, nil
	})
}
