//go:build js && wasm

package jsbridge

import (
	"encoding/binary"
	"math"
	"syscall/js"
	"unsafe"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
)

// Reads the npm package's decode workers decode and write into the result
// themselves (npm/lib/pooled.js): the engine only plans them
// (zarr.Array.PlanExternalRead). The plan is made only where the result
// crosses to JS as the elements' own bytes (no float16 widening, no
// strings) and the chunks come from a JS store object that the wrapper can
// ask itself.

func init() {
	// planRead(id, selection) → {reason} (read it with get), or the plan:
	// {store, shape, fullShape, array, itemSize, decoder, compressors,
	// fill, path, metadataKey, metadata, keys, coords, geometry}. coords
	// has ndim numbers per chunk; geometry 6·ndim per chunk: the chunk's
	// shape, then per dimension in.start, in.step, out.start, out.step,
	// count.
	// planRead(id, selection, undefined, "direct") plans a read the
	// calling thread runs itself (npm/lib/direct.js), declined unless
	// every chunk is placed straight from its stored value
	// (zarr.Array.PlanDirectRead): {store, shape, fullShape, array,
	// itemSize, direct, fill, keys, coords, geometry}. A declined read's
	// {reason} has fixed: true when every read of the array would be.
	// Synchronous: it reads nothing, and an async call costs a turn of
	// the event loop.
	handleSync("planRead", inArray+inAny+inAny, func(c *bridgeCall) (any, error) {
		return planRead(c)
	})
}

// planRead builds the plan (see above).
func planRead(c *bridgeCall) (js.Value, error) {
	a, arr := c.a, c.arr
	if len(a) > 5 && a[3].Type() == js.TypeString && a[3].String() == "parts" {
		return planShardParts(arr, a)
	}
	sel, err := selectionFromJS(a[1])
	if err != nil {
		return js.Value{}, err
	}
	// reason: the read is declined; fixed, for every read of the array.
	reason := func(why string, fixed bool) (js.Value, error) {
		o := jsObject.New()
		o.Set("reason", why)
		if fixed {
			o.Set("fixed", true)
		}
		return o, nil
	}
	dt := arr.DType()
	name, _ := typedArrayName(dt)
	if name == "" || isFloat32Like(dt) {
		return reason("data type converted on its way to JS", true)
	}
	st, ok := arr.ChunkStore().(*jsStore)
	if !ok {
		return reason("a store of the engine", true)
	}
	direct := len(a) > 3 && a[3].Type() == js.TypeString && a[3].String() == "direct"
	// (strict: a read with no compressor is declined before it is planned)
	strict := a[2].Type() == js.TypeNumber
	if strict && len(arr.Compressors()) == 0 {
		return reason("no compressor", true)
	}
	var p *zarr.ExternalRead
	var why string
	fixed := false
	if direct {
		p, why, fixed, err = arr.PlanDirectRead(sel)
	} else {
		p, why, err = arr.PlanExternalRead(sel)
	}
	if err != nil {
		return js.Value{}, err
	}
	if p == nil {
		return reason(why, fixed)
	}
	// planRead(id, selection, minBytes): a read with no compressor, one
	// chunk, or less than minBytes decoded is not worth a pool; declined
	// before the plan crosses to JS.
	if strict {
		decoded := 0
		for _, c := range p.Chunks {
			n := max(dt.Size, 1)
			for _, x := range c.Shape {
				n *= x
			}
			decoded += n
		}
		if len(p.Compressors) == 0 || len(p.Chunks) < 2 || decoded < a[2].Int() {
			return reason("not worth the pool", false)
		}
	}
	ndim := len(p.FullShape)
	keys := make([]string, len(p.Chunks))
	coords := make([]byte, 0, 8*ndim*len(p.Chunks))
	geometry := make([]byte, 0, 8*6*ndim*len(p.Chunks))
	num := func(b []byte, v int) []byte {
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(v)))
	}
	for i, c := range p.Chunks {
		keys[i] = jsKey(c.Key)
		for d := 0; d < ndim; d++ {
			coords = num(coords, c.Index[d])
		}
		for d := 0; d < ndim; d++ {
			geometry = num(geometry, c.Shape[d])
		}
		for d := 0; d < ndim; d++ {
			in, out := c.In[d], c.Out[d]
			for _, v := range []int{in.Start, in.Step, out.Start, out.Step, in.Count} {
				geometry = num(geometry, v)
			}
		}
	}
	o := jsObject.New()
	o.Set("store", st.obj)
	o.Set("shape", intsToJS(p.Shape))
	o.Set("fullShape", intsToJS(p.FullShape))
	o.Set("array", name)
	o.Set("itemSize", max(dt.Size, 1))
	if p.Fill != nil {
		o.Set("fill", bytesToJS(p.Fill))
	} else {
		o.Set("fill", js.Null())
	}
	if direct {
		o.Set("direct", p.Direct)
		if sh := p.Shard; sh != nil {
			so := jsObject.New()
			so.Set("indexSize", sh.IndexSize)
			so.Set("atEnd", sh.AtEnd)
			so.Set("inner", intsToJS(sh.Inner))
			o.Set("shard", so)
		}
	} else {
		decoder := p.Decoder
		if decoder == "" && bloscAlone(arr) {
			decoder = "blosc"
		}
		o.Set("decoder", decoder)
		comp := jsArray.New(len(p.Compressors))
		for i, c := range p.Compressors {
			comp.SetIndex(i, c)
		}
		o.Set("compressors", comp)
		o.Set("path", arr.Path())
		o.Set("metadataKey", jsKey(p.MetadataKey))
		o.Set("metadata", string(p.Metadata))
	}
	o.Set("keys", stringsToJSFrom(keys, 2))
	o.Set("coords", typedArray("Float64Array", coords))
	o.Set("geometry", typedArray("Float64Array", geometry))
	return o, nil
}

// planShardParts(id, shards, k, "parts", undefined, indexes): the inner
// chunks k shards of a direct plan with a shard part need, from their
// index bytes (zarr.Array.PlanShardParts), in one call for all the shards
// a read has at hand (a call into the engine costs far more than planning
// one shard's parts). shards: a Uint8Array of float64s, per shard its ndim
// coordinates then its 6·ndim numbers of the plan's geometry; indexes: a
// Uint8Array of the shards' index bytes, one after the other, each of the
// same length. → a Float64Array: per shard, the count m of its inner
// chunks, then m × (2 + 6·ndim) numbers: the byte offset and length in the
// shard, then the geometry in the plan's form (the inner chunk's shape;
// per dimension in.start, in.step, out.start, out.step, count, out in the
// read's result). Or an error, for any shard (the read then goes to the
// engine, which reports it).
func planShardParts(arr *zarr.Array, a []js.Value) (js.Value, error) {
	shape := arr.Metadata().Shape // the stored grid, whatever view the array has
	ndim := len(shape)
	grid := arr.Metadata().Grid.Shape(shape)
	bad := func(what string) (js.Value, error) {
		return js.Value{}, errs.New(errs.Selection, arr.Path(), "bad shard parts request: %s", what)
	}
	if a[1].Type() != js.TypeObject || !a[1].InstanceOf(jsUint8Array) || a[5].Type() != js.TypeObject || !a[5].InstanceOf(jsUint8Array) {
		return bad("shards and indexes are Uint8Arrays")
	}
	if a[2].Type() != js.TypeNumber {
		return bad("the count of shards")
	}
	k := a[2].Int()
	hb := a[1].Get("byteLength").Int()
	if k <= 0 || hb != k*8*7*ndim {
		return bad("shards")
	}
	ib := a[5].Get("byteLength").Int()
	if ib%k != 0 {
		return bad("indexes")
	}
	head := make([]byte, hb)
	if hb > 0 {
		js.CopyBytesToGo(head, a[1])
	}
	all, err := budget.Bytes("shard index", ib)
	if err != nil {
		return js.Value{}, err
	}
	js.CopyBytesToGo(all, a[5])
	num := func(i int) (int, bool) {
		f := math.Float64frombits(binary.LittleEndian.Uint64(head[8*i:]))
		n := int(f)
		return n, float64(n) == f
	}
	var res []byte
	put := func(v int64) { res = binary.LittleEndian.AppendUint64(res, math.Float64bits(float64(v))) }
	idx := make([]int, ndim)
	in := make([]nd.Range, ndim)
	out := make([]nd.Range, ndim)
	size := ib / k
	for s := 0; s < k; s++ {
		at := s * 7 * ndim
		for d := range idx {
			n, ok := num(at + d)
			if !ok || n < 0 || n >= max(grid[d], 1) {
				return bad("chunk coordinates")
			}
			idx[d] = n
		}
		for d := 0; d < ndim; d++ {
			g := at + 2*ndim + 5*d
			var v [5]int
			for j := range v {
				n, ok := num(g + j)
				if !ok {
					return bad("geometry")
				}
				v[j] = n
			}
			in[d] = nd.Range{Start: v[0], Step: v[1], Count: v[4]}
			out[d] = nd.Range{Start: v[2], Step: v[3], Count: v[4]}
		}
		parts, inner, err := arr.PlanShardParts(idx, all[s*size:(s+1)*size], in)
		if err != nil {
			return js.Value{}, err
		}
		if res == nil {
			res = make([]byte, 0, 8*k*(1+len(parts)*(2+6*ndim)))
		}
		put(int64(len(parts)))
		for _, pt := range parts {
			put(pt.Offset)
			put(pt.Length)
			for d := 0; d < ndim; d++ {
				put(int64(inner[d]))
			}
			for d := 0; d < ndim; d++ {
				pi, po := pt.In[d], pt.Out[d]
				put(int64(pi.Start))
				put(int64(pi.Step))
				put(int64(out[d].Start + po.Start*out[d].Step))
				put(int64(po.Step * out[d].Step))
				put(int64(pi.Count))
			}
		}
	}
	return typedArray("Float64Array", res), nil
}

// bloscAlone reports whether Blosc alone turns a stored chunk into its
// elements as a read returns them (little-endian or one-byte elements, C
// order): then a decode worker may walk the Blosc chunk itself (libzstd or
// zlib for its streams, its own byte unshuffle) and leave to its engine
// only what it does not cover.
func bloscAlone(arr *zarr.Array) bool {
	cs := arr.Codecs()
	if len(cs) != 2 || cs[0].Name != "bytes" || cs[1].Name != "blosc" || arr.LayoutOrder() != "C" {
		return false
	}
	var cfg zarr.BytesEndian
	if len(cs[0].Configuration) > 0 && jsonx.Unmarshal(cs[0].Configuration, &cfg) != nil {
		return false
	}
	return cfg.Endian == "little" || (cfg.Endian == "" && arr.DType().Size <= 1)
}

// decoded keeps the last chunk decodeChunkInPlace decoded alive until the
// next call: the caller reads it from this module's memory first.
var decoded []byte

func init() {
	// decodeChunkInPlace(id, coords, bytes) → [address, length] of the
	// decoded chunk in this module's memory, valid until the next call
	// into the engine; or an error object. Synchronous, for the decode
	// workers: no promise, and no copy out (the worker copies the region
	// it needs straight into the read's result).
	handleSync("decodeChunkInPlace", inArray+inChunk+inChunkBytes, func(c *bridgeCall) (any, error) {
		decoded = nil
		chunk, err := c.arr.DecodeChunk(c.idx, c.data)
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
	})
}
