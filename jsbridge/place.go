//go:build js && wasm

package jsbridge

import (
	"context"
	"runtime"
	"sync"
	"syscall/js"
	"unsafe"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Reads whose elements reach JS as their own bytes (every TypedArray but
// the widened small floats) go into a result allocated in JS, where the
// caller gets it: the engine never holds the whole result, and nothing is
// copied out at the end. Each chunk is placed by the npm package's placer
// (npm/lib/place.js), one call per chunk:
//   - fromGo: a chunk decoded by the engine (Blosc, a shard's parts,
//     anything with filters), copied from Go memory (the placer has a view
//     of this instance's memory) straight into its region of the result;
//   - fetch: a chunk the placer asks the JS store for itself (its bytes,
//     or a versioned answer {data, generation}), raw or compressed by
//     zstd, zlib or gzip with a host decoder: decoded in the package's
//     libzstd/zlib memory and copied from there into the result, never
//     entering Go memory. The engine's chunk source decides which chunks go
//     this way (zarr's placeStored: no cache, a plain chain); bytes the
//     placer declines come back to the engine, which decodes (and reports)
//     them.

// placer is the npm package's (lib/place.js), set per engine (setPlacer)
// with a view of this instance's memory.
var (
	placerMu sync.Mutex
	placer   js.Value
)

func currentPlacer() (js.Value, bool) {
	placerMu.Lock()
	defer placerMu.Unlock()
	return placer, placer.Type() == js.TypeObject
}

func init() {
	// setPlacer(placer) (undefined: results are built in Go and copied
	// out).
	handleSync("setPlacer", inAny, func(c *bridgeCall) (any, error) {
		placerMu.Lock()
		defer placerMu.Unlock()
		placer = js.Undefined()
		if c.a[0].Type() == js.TypeObject {
			placer = c.a[0]
		}
		return nil, nil
	})
}

// goAddr is where b starts in this instance's linear memory (what the
// placer's view of it is indexed by). b must stay alive (and Go memory is
// not moved) while JS reads it: the calls are synchronous.
func goAddr(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

func floatsAddr(f []float64) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(f))))
}

// jsDest is a read's result in JS, kept by the placer under id: Go never
// holds it (nor the store's answers) as a js.Value, which would keep it
// alive until Go's garbage collector ran, however long ago JS dropped it.
type jsDest struct {
	placer   js.Value
	id       int
	ndim     int
	itemSize int
}

var _ zarr.StoredDest = (*jsDest)(nil)

// geometry is the placer's description of one chunk's region (as
// npm/lib/scatter.js reads it): the chunk's shape, then per dimension
// in.start, in.step, out.start, out.step, count.
func (d *jsDest) geometry(shape []int, out, in []nd.Range) []float64 {
	g := make([]float64, 0, 6*d.ndim)
	for _, n := range shape {
		g = append(g, float64(n))
	}
	for k := range d.ndim {
		g = append(g, float64(in[k].Start), float64(in[k].Step), float64(out[k].Start), float64(out[k].Step), float64(in[k].Count))
	}
	return g
}

func (d *jsDest) Place(out []nd.Range, chunk *nd.Array, in []nd.Range) {
	data := chunk.Raw()
	g := d.geometry(chunk.Shape(), out, in)
	d.placer.Call("fromGo", d.id, goAddr(data), len(data), floatsAddr(g), len(g), d.itemSize)
	runtime.KeepAlive(data)
	runtime.KeepAlive(g)
}

func (d *jsDest) CanPlaceStored(s zarr.Store) bool {
	_, ok := s.(*jsStore)
	return ok
}

func (d *jsDest) PlaceStored(ctx context.Context, s zarr.Store, key, decoder string, size int, shape []int, out, in []nd.Range, alone func() bool) (store.Versioned, bool, error) {
	g := d.geometry(shape, out, in)
	defer runtime.KeepAlive(g) // read by the placer when the store's answer comes
	return s.(*jsStore).readPlaced(ctx, key,
		func(obj js.Value, key string, opts js.Value) (js.Value, error) {
			return call(d.placer, "fetch", d.id, obj, key, opts, decoder, size, floatsAddr(g), len(g), d.itemSize)
		},
		alone,
		func(token int) int {
			return d.placer.Call("place", token, d.id, decoder, size, floatsAddr(g), len(g), d.itemSize).Int()
		},
		func(token int) js.Value { return d.placer.Call("take", token) },
		func(p js.Value) { d.placer.Call("forget", p) })
}

// readToJS reads sel of arr into a TypedArray allocated in JS: {result,
// shape, stride}, where result is the placer's id of the data (the npm
// wrapper takes it: lib/place.js takeResult); ok is false when the data
// type reaches JS converted (or there is no placer), and the caller reads
// through Read.
func readToJS(ctx context.Context, arr *zarr.Array, sel zarr.Selection) (res js.Value, ok bool, err error) {
	dt := arr.DType()
	name, _ := typedArrayName(dt)
	p, have := currentPlacer()
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
		id = p.Call("begin", name, nd.Size(full)*dt.Size, goAddr(elem), len(elem), floatsAddr(dims), len(dims)).Int()
		runtime.KeepAlive(elem)
		runtime.KeepAlive(dims)
		return &jsDest{placer: p, id: id, ndim: len(full), itemSize: dt.Size}, nil
	})
	if err != nil {
		if id != 0 {
			p.Call("drop", id)
		}
		return js.Value{}, true, err
	}
	o := shapedResult(shape)
	o.Set("result", id)
	return o, true, nil
}
