//go:build js && wasm

// Package jsbridge exposes the zarr engine to JavaScript through
// syscall/js: every call returns a Promise and runs in its own goroutine;
// JS stores become Go stores whose methods await the JS promises; results
// are copied once, straight into the final TypedArray; Go errors become
// {code, message} rejections the npm wrapper turns into ZarrError. It is
// the only package that imports syscall/js.
package jsbridge

import (
	"context"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall/js"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// Version is the bridge protocol version the npm wrapper checks.
const Version = 2

// engineExited is the code of calls that reach an engine that stopped, or
// that use a handle of one (the npm wrapper restarts the engine).
const engineExited errs.Code = "ENGINE_EXITED"

// handles keeps the Go arrays, groups and stores (reference sets) JS
// objects refer to by id. Ids start above handleBase, which the npm wrapper
// sets to a different range for each engine it starts: a handle kept by an
// engine that stopped is then recognised, never confused with a new one.
var (
	handlesMu  sync.Mutex
	handles    = map[int]any{}
	nextID     = 1
	handleBase = 0
)

// SetHandleBase makes the ids this engine hands out start after base.
func SetHandleBase(base int) {
	handlesMu.Lock()
	defer handlesMu.Unlock()
	handleBase, nextID = base, base+1
}

func keep(n any) int {
	handlesMu.Lock()
	defer handlesMu.Unlock()
	id := nextID
	nextID++
	handles[id] = n
	return id
}

// lookupHandle returns the kept value of type T behind a JS handle; what
// names it in the error when it was released (or is something else).
func lookupHandle[T any](v js.Value, what string) (T, error) {
	var zero T
	if v.Type() != js.TypeNumber {
		return zero, errs.New(errs.Store, "", "bad handle")
	}
	handlesMu.Lock()
	defer handlesMu.Unlock()
	id := v.Int()
	x, ok := handles[id].(T)
	if !ok {
		if id <= handleBase {
			return zero, errs.New(engineExited, "", "the %s was opened by an engine that stopped; open it again", what)
		}
		return zero, errs.New(errs.Store, "", "the %s was released", what)
	}
	return x, nil
}

func lookup(v js.Value) (zarr.Node, error) { return lookupHandle[zarr.Node](v, "array or group") }

func lookupArray(v js.Value) (*zarr.Array, error) {
	n, err := lookup(v)
	if err != nil {
		return nil, err
	}
	a, ok := n.(*zarr.Array)
	if !ok {
		return nil, errs.New(errs.NotFound, n.Path(), "is a group, not an array")
	}
	return a, nil
}

// The bridge's functions, registered by each file of the package in init,
// so a capability adds its calls beside its code. In the order of
// registration (the package's init order, the same at every start): the
// wrapper learns the names with the order, so neither a map nor sorting is
// needed, and a fresh engine runs (and V8 compiles) less before its first
// call.
var (
	asyncNames []string
	asyncFns   []asyncCall
	syncNames  []string
	syncFns    []syncCall
)

// maxArgs is how many arguments an asyncCall may index without checking.
const maxArgs = 8

// handleAsync registers an async call: args says what its arguments are,
// by position (call.go: the wrapper reads, checks and looks them up), f
// does its work with them.
func handleAsync(name string, args string, f func(c *bridgeCall) (js.Value, error)) {
	register(name)
	asyncNames = append(asyncNames, name)
	asyncFns = append(asyncFns, asyncCall{args, f})
}

// handleSync registers a sync call: args says what its arguments are, as
// for handleAsync (no signal); f answers with them, or with an error.
func handleSync(name string, args string, f func(c *bridgeCall) (any, error)) {
	register(name)
	syncNames = append(syncNames, name)
	syncFns = append(syncFns, syncCall{args, f})
}

// register panics when name is taken (async and sync calls share the
// wrapper's namespace).
func register(name string) {
	if slices.Contains(asyncNames, name) || slices.Contains(syncNames, name) {
		panic("jsbridge: " + name + " registered twice")
	}
}

// viewFill is the fill value of an array opened from a TensorStore spec
// through a view (spec.go, in the full build only).
var viewFill func(a *zarr.Array, plain js.Value) js.Value

// API returns what the npm wrapper calls: {version, build, async, sync,
// call}. async and sync name the bridge's functions (comma-separated, in
// that order), and call(i, ...args) runs the i-th of them; the wrapper makes
// one JS function per name. (One js.Func for all: registering a hundred at
// every start made V8 optimise syscall/js's conversions, the finalizers and
// the map of funcs before the first read.)
func API() js.Value {
	call := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeNumber {
			return nil
		}
		i := args[0].Int()
		args = args[1:]
		if i >= 0 && i < len(asyncFns) {
			f := asyncFns[i]
			// Copy the arguments: the slice is reused after we return.
			a := append(make([]js.Value, 0, max(len(args), maxArgs)), args...)
			for len(a) < maxArgs {
				a = append(a, js.Undefined())
			}
			return async(func() (js.Value, error) { return runAsync(f, a) })
		}
		if i -= len(asyncFns); i >= 0 && i < len(syncFns) {
			return runSync(syncFns[i], args)
		}
		return nil
	})
	api := jsObject.New()
	api.Set("version", Version)
	api.Set("build", buildName)
	api.Set("async", strings.Join(asyncNames, ","))
	api.Set("sync", strings.Join(syncNames, ","))
	api.Set("call", call)
	return api
}

func init() {
	fn := handleAsync
	// open(store, path, kind, signal, {cacheBytes, recheck}, take?) → node
	// info; take: the reads core.js made before the engine ran (store.go,
	// early)
	fn("open", inStore+inAny+inAny+inSignal+inOpenOptions+inAny, func(c *bridgeCall) (js.Value, error) {
		ctx, s, path := c.ctx, c.store, optString(c.a[1])
		if take := c.a[5]; take.Type() == js.TypeFunction {
			ctx = context.WithValue(ctx, earlyKey{}, take)
		}
		n, err := zarr.OpenKind(ctx, s, path, optString(c.a[2]), c.opts...)
		if err != nil {
			return js.Value{}, err
		}
		return nodeInfo(n), nil
	})
	// get(id, selection, signal, concurrency) → {data, shape, stride}
	fn("get", inArray+inSelection+inSignal, func(c *bridgeCall) (js.Value, error) {
		arr := c.arr
		// Per call: Read takes Concurrency before it first yields (the
		// wasm scheduler is cooperative), so concurrent calls with different
		// values do not disturb each other.
		arr.Concurrency = zarr.DefaultConcurrency
		if n := c.a[3]; n.Type() == js.TypeNumber && n.Int() > 0 {
			arr.Concurrency = n.Int()
		}
		// Into a result allocated in JS where the elements reach JS as
		// their own bytes (place.go); else built in Go and converted.
		if res, ok, err := readToJS(c.ctx, arr, c.sel); ok {
			return res, err
		}
		res, err := arr.Read(c.ctx, c.sel)
		if err != nil {
			return js.Value{}, err
		}
		return resultToJS(res)
	})
	// children(id, signal) → [node info with name], and the group's
	// consolidated (known now: listing looked for its consolidated metadata)
	fn("children", inGroup+inSignal, func(c *bridgeCall) (js.Value, error) {
		g := c.group
		kids, err := g.Children(c.ctx)
		if err != nil {
			return js.Value{}, err
		}
		out := jsArray.New(len(kids))
		for i, k := range kids {
			var info js.Value
			if k.Err != nil {
				// Listed with its error so one unreadable array does not
				// hide its siblings.
				info = jsObject.New()
				info.Set("kind", "unknown")
				info.Set("path", strings.TrimPrefix(g.Path()+"/"+k.Name, "/"))
				info.Set("error", errorValue(k.Err))
			} else {
				info = nodeInfo(k.Node)
			}
			info.Set("name", k.Name)
			out.SetIndex(i, info)
		}
		res := jsObject.New()
		res.Set("children", out)
		res.Set("consolidated", g.ConsolidatedSoFar())
		return res, nil
	})
	// openChild(id, path, kind, signal) → {node: node info, consolidated}:
	// a node below a group (relative path), sharing the group's store (and
	// its consolidated metadata, known now).
	fn("openChild", inGroup+inAny+inAny+inSignal, func(c *bridgeCall) (js.Value, error) {
		n, err := c.group.OpenKind(c.ctx, optString(c.a[1]), optString(c.a[2]))
		if err != nil {
			return js.Value{}, err
		}
		res := jsObject.New()
		res.Set("node", nodeInfo(n))
		res.Set("consolidated", c.group.ConsolidatedSoFar())
		return res, nil
	})
	// getChunk(id, coords, signal) → {data, shape, stride}: one chunk of
	// those a read decodes (a shard's inner chunks), decoded (the fill
	// value where it is absent). ReadChunk checks the coordinates against
	// its grid.
	fn("getChunk", inArray+inCoords+inSignal, func(c *bridgeCall) (js.Value, error) {
		chunk, err := c.arr.ReadChunk(c.ctx, c.idx)
		if err != nil {
			return js.Value{}, err
		}
		return resultToJS(chunk)
	})
	// decodeChunk(id, coords, bytes) → {data, shape, stride}: the pure
	// decoding step (codec chain, encoded bytes, chunk shape, data type),
	// which a worker pool can run anywhere.
	fn("decodeChunk", inArray+inChunk+inChunkBytes, func(c *bridgeCall) (js.Value, error) {
		chunk, err := c.arr.DecodeChunk(c.idx, c.data)
		if err != nil {
			return js.Value{}, err
		}
		return resultToJS(chunk)
	})
	// chunkKey(id, coords) → the store key of a chunk (absolute).
	fn("chunkKey", inArray+inChunk, func(c *bridgeCall) (js.Value, error) {
		return js.ValueOf(jsKey(c.arr.ChunkKey(c.idx))), nil
	})
	// parseSelection(text) → normalised items (checks the syntax only)
	fn("parseSelection", "", func(c *bridgeCall) (js.Value, error) {
		sel, err := zarr.ParseSelection(c.a[0].String())
		if err != nil {
			return js.Value{}, err
		}
		return js.ValueOf(sel.String()), nil
	})
	handleSync("setHelpers", inAny, func(c *bridgeCall) (any, error) {
		setHelpers(c.a[0])
		return nil, nil
	})
	handleSync("release", inAny, func(c *bridgeCall) (any, error) {
		if c.a[0].Type() == js.TypeNumber {
			handlesMu.Lock()
			delete(handles, c.a[0].Int())
			handlesMu.Unlock()
		}
		return nil, nil
	})
	handleSync("handleCount", "", func(*bridgeCall) (any, error) {
		handlesMu.Lock()
		defer handlesMu.Unlock()
		return len(handles), nil
	})
}

// chunkCoords reads chunk coordinates and checks them against the grid.
func chunkCoords(arr *zarr.Array, v js.Value) ([]int, error) {
	idx, err := coordsFromJS(arr, v)
	if err != nil {
		return nil, err
	}
	shape := arr.Metadata().Shape // the stored grid, whatever view the array has
	grid := arr.Metadata().Grid.Shape(shape)
	for d, n := range idx {
		if n < 0 || n >= max(grid[d], 1) {
			return nil, errs.New(errs.Selection, arr.Path(), "chunk coordinate %d is out of range for dimension %d (%d chunks)", n, d, grid[d])
		}
	}
	return idx, nil
}

// coordsFromJS reads one integer per dimension of the stored array.
func coordsFromJS(arr *zarr.Array, v js.Value) ([]int, error) {
	if v.Type() != js.TypeObject || !jsArray.Call("isArray", v).Bool() {
		return nil, errs.New(errs.Selection, arr.Path(), "chunk coordinates are an array of integers")
	}
	ndim := len(arr.Metadata().Shape)
	if v.Length() != ndim {
		return nil, errs.New(errs.Selection, arr.Path(), "%d chunk coordinates for %d dimensions", v.Length(), ndim)
	}
	idx := make([]int, ndim)
	for d := range idx {
		n, err := intFromJS(v.Index(d), "chunk coordinate")
		if err != nil {
			return nil, err
		}
		idx[d] = n
	}
	return idx, nil
}

func optString(v js.Value) string {
	if v.Type() == js.TypeString {
		return v.String()
	}
	return ""
}

// nodeInfo describes a node to the JS wrapper, and keeps it under a new id.
func nodeInfo(n zarr.Node) js.Value {
	o := jsObject.New()
	o.Set("id", keep(n))
	o.Set("path", n.Path())
	o.Set("zarrFormat", n.ZarrFormat())
	o.Set("attrs", valueToJS(n.Attrs()))
	switch x := n.(type) {
	case *zarr.Array:
		o.Set("kind", "array")
		arrayInfo(x, o)
	case *zarr.Group:
		o.Set("kind", "group")
		o.Set("consolidated", x.ConsolidatedSoFar())
	}
	return o
}

func arrayInfo(a *zarr.Array, o js.Value) js.Value {
	o.Set("shape", intsToJS(a.Shape()))
	o.Set("chunks", optIntsToJS(a.ReadChunks()))
	o.Set("gridChunks", optIntsToJS(a.Chunks()))
	o.Set("shards", optIntsToJS(a.Shards()))
	if cs := a.ChunkSizes(); cs != nil {
		l := jsArray.New(len(cs))
		for i, d := range cs {
			l.SetIndex(i, optIntsToJS(d))
		}
		o.Set("chunkSizes", l)
	}
	dt := a.DType()
	o.Set("dtype", valueToJS(a.DTypeName()))
	info := typeInfo(dt)
	o.Set("type", info)
	o.Set("fillValue", fillToJS(dt, a.Fill()))
	if a.IsView() && viewFill != nil {
		o.Set("fillValue", viewFill(a, o.Get("fillValue")))
	}
	o.Set("order", a.LayoutOrder())
	codecs := jsArray.New(len(a.Codecs()))
	for i, c := range a.Codecs() {
		co := jsObject.New()
		co.Set("name", c.Name)
		if len(c.Configuration) > 0 {
			co.Set("configuration", valueToJS(jsonx.RawMessage(c.Configuration)))
		}
		codecs.SetIndex(i, co)
	}
	o.Set("codecs", codecs)
	if names := a.DimensionNames(); names != nil {
		l := jsArray.New(len(names))
		for i, s := range names {
			if s == "" {
				l.SetIndex(i, js.Null())
			} else {
				l.SetIndex(i, s)
			}
		}
		o.Set("dimensionNames", l)
	}
	// The document as stored (with the current shape), and in it the data
	// type as written: the v2 typestr or descr, the v3 data_type.
	// Field by field, as Document would write it and valueToJS read it back
	// (keys sorted), without writing it: on the first open that writing,
	// the reading and the code they need were most of arrayInfo's time.
	m := docToJS(a.Metadata().Fields())
	o.Set("metadata", m)
	if m.Type() == js.TypeObject {
		stored := m.Get("data_type")
		if stored.IsUndefined() {
			stored = m.Get("dtype")
		}
		info.Set("stored", stored)
	}
	return o
}

// docToJS is a metadata document's fields as a JS object, keys sorted, or
// null when one of them is not JSON.
func docToJS(fields map[string]jsonx.RawMessage) js.Value {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	o := jsObject.New()
	for _, k := range keys {
		var v any
		if jsonx.Unmarshal(fields[k], &v) != nil {
			return js.Null()
		}
		o.Set(k, valueToJS(v))
	}
	return o
}

// optIntsToJS is ints as a JS array, or null for nil.
func optIntsToJS(v []int) js.Value {
	if v == nil {
		return js.Null()
	}
	return intsToJS(v)
}

// decodeOptions reads the JSON options of create: "path" is taken out,
// the rest fills v (field names matched case-insensitively, so
// {"fillValue": 0} sets FillValue). Attributes may hold bare NaN/Infinity
// tokens; they are decoded on their own.
// Names that are not options of v are refused (INVALID_ARGUMENT with the
// near name): the npm wrapper checks them first, and this keeps the bridge
// from ignoring one it lets through.
func decodeOptions(call, text string, v any) (string, error) {
	var raw map[string]jsonx.RawMessage
	if err := jsonx.Unmarshal([]byte(strings.TrimSpace(text)), &raw); err != nil {
		return "", errs.Wrap(errs.InvalidMetadata, "", err, "bad options")
	}
	if err := checkOptionNames(call, raw, v); err != nil {
		return "", err
	}
	path := ""
	if p, ok := raw["path"]; ok {
		if err := jsonx.UnmarshalStrict(p, &path); err != nil {
			return "", errs.Wrap(errs.InvalidMetadata, "path", err, "bad path")
		}
	}
	attrsRaw, hasAttrs := raw["attributes"]
	for _, k := range []string{"path", "kind", "attributes"} {
		delete(raw, k)
	}
	rest, err := jsonx.MarshalStrict(raw)
	if err != nil {
		return "", errs.Wrap(errs.InvalidMetadata, "", err, "bad options")
	}
	if err := jsonx.Unmarshal(rest, v); err != nil {
		return "", errs.Wrap(errs.InvalidMetadata, "", err, "bad options")
	}
	if hasAttrs && string(attrsRaw) != "null" {
		var attrs map[string]any
		if err := jsonx.Unmarshal(attrsRaw, &attrs); err != nil {
			return "", errs.Wrap(errs.InvalidMetadata, "attributes", err, "attributes must be an object")
		}
		if f := reflect.ValueOf(v).Elem().FieldByName("Attributes"); f.IsValid() && f.CanSet() {
			f.Set(reflect.ValueOf(attrs))
		}
	}
	return path, nil
}

func arrayOptions(text string) (string, zarr.ArrayOptions, error) {
	var opt zarr.ArrayOptions
	path, err := decodeOptions("create", text, &opt)
	return path, opt, err
}

// checkOptionNames refuses a member of raw that names no field of the
// struct v points to (matched without regard to case, as the decoding
// does), nor path, kind or attributes.
func checkOptionNames(call string, raw map[string]jsonx.RawMessage, v any) error {
	t := reflect.TypeOf(v).Elem()
	accepted := []string{"path", "kind", "attributes"}
	for i := range t.NumField() {
		// the JS name: the leading capitals lowered (FillValue → fillValue, DType → dtype)
		n := t.Field(i).Name
		k := 0
		for k < len(n) && n[k] >= 'A' && n[k] <= 'Z' {
			k++
		}
		accepted = append(accepted, strings.ToLower(n[:k])+n[k:])
	}
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !slices.ContainsFunc(accepted, func(a string) bool { return strings.EqualFold(a, k) }) {
			return errs.Unknown("option of "+call, k, accepted)
		}
	}
	return nil
}
