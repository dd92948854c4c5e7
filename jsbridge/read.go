//go:build js && wasm

package jsbridge

import (
	"context"
	"runtime"
	"strconv"
	"syscall/js"
	"unsafe"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/hostread"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Reads. The npm package's executor (npm/lib/read.js) runs every read of
// an array whose chunks come from a JS store and whose elements reach JS as
// their own bytes: it asks planRead for the plan (zarr/hostread, JSON),
// fetches, decodes, asks expandShards what a shard's index leads to and
// decodeInPlace for the chunks only the engine decodes. Anything else —
// a plan that says "engine" (a chunk cache, a spec's view, strings, a
// store that lives in the engine: a zip, a reference set), or a read the
// executor hands back (a store that failed, a shard that changed, an
// abort) — is the engine's own read, get below: its chunks are placed
// into a result allocated in JS (jsDest), so the engine never holds the
// whole result.

func init() {
	// planRead(id, selection, host) → [the plan's JSON text (schema:
	// docs/read-plan.md), the JS store its fetches go to (none when the
	// engine reads)]. host: {decoders: ["zstd", ...], workers, minBytes,
	// concurrency}. Synchronous: it reads nothing.
	handleSync("planRead", inArray+inSelection+inAny, func(c *bridgeCall) (any, error) {
		return planRead(c.arr, c.sel, c.a[2])
	})
	// expandShards(id, requests, indexes, host) → the expansions' JSON
	// text: requests is the JSON text of [{shard, generation, size}] (each
	// a plan's fetch's shard, with its answer's generation and, for a
	// whole shard, its length), indexes their index bytes one after the
	// other.
	handleSync("expandShards", inArray+inAny+inAny+inAny, func(c *bridgeCall) (any, error) {
		return expandShards(c.arr, c.a[1], c.a[2], c.a[3])
	})
	// decodeInPlace(id, coords, bytes) and decodeInnerInPlace(id, coords,
	// bytes) → [address, length] of the decoded chunk (an inner chunk of
	// shard coords) in this module's memory, valid until the next call
	// into the engine. The executor copies the region it needs straight
	// from there into the result.
	handleSync("decodeInPlace", inArray+inChunk+inChunkBytes, func(c *bridgeCall) (any, error) {
		return decodedInPlace(c.arr.DecodeChunk(c.idx, c.data))
	})
	handleSync("decodeInnerInPlace", inArray+inChunk+inChunkBytes, func(c *bridgeCall) (any, error) {
		return decodedInPlace(c.arr.DecodeInner(c.idx, c.data))
	})
}

// hostOf reads the executor's description of itself.
func hostOf(v js.Value) hostread.Host {
	var h hostread.Host
	if v.Type() != js.TypeObject {
		return h
	}
	if d := v.Get("decoders"); d.Type() == js.TypeObject {
		for i := 0; i < d.Length(); i++ {
			if s := d.Index(i); s.Type() == js.TypeString {
				h.Decoders = append(h.Decoders, s.String())
			}
		}
	}
	if n := v.Get("workers"); n.Type() == js.TypeNumber && n.Int() > 0 {
		h.Workers = n.Int()
	}
	h.MinWorkerRead = -1
	if n := v.Get("minBytes"); n.Type() == js.TypeNumber && n.Int() >= 0 {
		h.MinWorkerRead = n.Int()
	}
	if n := v.Get("concurrency"); n.Type() == js.TypeNumber && n.Int() > 0 {
		h.Concurrency = n.Int()
	}
	h.Transfer = v.Get("transfer").Truthy()
	return h
}

func planRead(arr *zarr.Array, sel zarr.Selection, host js.Value) (any, error) {
	var p *hostread.Plan
	dt := arr.DType()
	name, _ := typedArrayName(dt)
	st, ok := arr.ChunkStore().(*jsStore)
	if l, src, _, located := locatedIn(arr); located && l != nil && src != nil && name != "" && !isFloat32Like(dt) {
		return js.ValueOf([]any{`{"version":` + strconv.Itoa(hostread.Version) + `,"locate":true}`}), nil
	}
	if !ok {
		p = &hostread.Plan{Engine: "a store of the engine", Fixed: true}
	} else if name == "" || isFloat32Like(dt) {
		p = &hostread.Plan{Engine: "data type converted on its way to JS", Fixed: true}
	} else {
		var err error
		h := hostOf(host)
		h.NoRanges = !st.Can(store.CanReadRange)
		if p, err = hostread.New(arr, sel, h); err != nil {
			return nil, err
		}
	}
	b := p.AppendJSON(make([]byte, 0, 256+160*len(p.Fetches)))
	out := jsArray.New(2)
	if p.Engine == "" {
		// (the TypedArray of the result, by its constructor's name)
		b = append(b[:len(b)-1], `,"array":"`...)
		b = append(b, name...)
		b = append(b, `"}`...)
		out.SetIndex(1, st.obj)
	}
	out.SetIndex(0, string(b))
	return out, nil
}

func expandShards(arr *zarr.Array, text, indexes, host js.Value) (any, error) {
	if text.Type() != js.TypeString || indexes.Type() != js.TypeObject || !indexes.InstanceOf(jsUint8Array) {
		return nil, errs.New(errs.InvalidArgument, "expandShards", "requests are JSON text and indexes a Uint8Array")
	}
	n := indexes.Get("byteLength").Int()
	idx, err := budget.Bytes("shard indexes", n)
	if err != nil {
		return nil, err
	}
	js.CopyBytesToGo(idx, indexes)
	reqs, err := hostread.ParseShardRequests([]byte(text.String()), idx, len(arr.Metadata().Shape))
	if err != nil {
		return nil, err
	}
	xs, err := hostread.Expand(arr, reqs, hostOf(host))
	if err != nil {
		return nil, err
	}
	return string(hostread.AppendExpansionsJSON(nil, xs)), nil
}

// decoded keeps the last chunk decodeInPlace decoded alive until the next
// call: the caller reads it from this module's memory first.
var decoded []byte

func decodedInPlace(chunk *nd.Array, err error) (any, error) {
	decoded = nil
	if err != nil {
		return nil, err
	}
	decoded = chunk.Bytes()
	out := jsArray.New(2)
	if len(decoded) > 0 {
		out.SetIndex(0, int(uintptr(unsafe.Pointer(&decoded[0]))))
	}
	out.SetIndex(1, len(decoded))
	return out, nil
}

// jsDest is the engine's read's result in JS, kept by the host under id:
// Go never holds it as a js.Value, which would keep it alive until Go's
// garbage collector ran, however long ago JS dropped it.
type jsDest struct {
	host     js.Value
	id       int
	ndim     int
	itemSize int
}

// Place copies region in of chunk into region out of the result: the
// host's place(id, address, length, region address, ndim, item size), the
// region being float64s in Go memory: the chunk's shape, then per
// dimension in's start, step, count, then per dimension out's start, step
// (npm/lib/scatter.js's arguments).
func (d *jsDest) Place(out []nd.Range, chunk *nd.Array, in []nd.Range) {
	data := chunk.Raw()
	g := make([]float64, 0, 6*d.ndim)
	for _, n := range chunk.Shape() {
		g = append(g, float64(n))
	}
	for _, r := range in {
		g = append(g, float64(r.Start), float64(r.Step), float64(r.Count))
	}
	for _, r := range out {
		g = append(g, float64(r.Start), float64(r.Step))
	}
	d.host.Call("place", d.id, goAddr(data), len(data), floatsAddr(g), d.ndim, d.itemSize)
	runtime.KeepAlive(data)
	runtime.KeepAlive(g)
}

// readToJS is the engine's read of sel into a TypedArray allocated in JS:
// {result, shape, stride}, where result is the host's id of the data (the
// npm wrapper takes it); ok is false when the data type reaches JS
// converted (or there is no host), and the caller reads through Read.
func readToJS(ctx context.Context, arr *zarr.Array, sel zarr.Selection) (res js.Value, ok bool, err error) {
	dt := arr.DType()
	name, _ := typedArrayName(dt)
	h, have := currentHost()
	if name == "" || isFloat32Like(dt) || dt.Variable() || !have {
		return js.Value{}, false, nil
	}
	id := 0
	shape, err := arr.ReadInto(ctx, sel, func(full []int, fill *dtype.Fill) (zarr.Dest, error) {
		var elem []byte
		if fill != nil && len(fill.Bytes) >= dt.Size {
			elem = fill.Bytes[:dt.Size]
		}
		dims := make([]float64, len(full))
		for i, n := range full {
			dims[i] = float64(n)
		}
		id = h.Call("begin", name, nd.Size(full)*dt.Size, goAddr(elem), len(elem), floatsAddr(dims), len(dims)).Int()
		runtime.KeepAlive(elem)
		runtime.KeepAlive(dims)
		return &jsDest{host: h, id: id, ndim: len(full), itemSize: dt.Size}, nil
	})
	if err != nil {
		if id != 0 {
			h.Call("drop", id)
		}
		return js.Value{}, true, err
	}
	o := shapedResult(shape)
	o.Set("result", id)
	return o, true, nil
}
