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
//   - stored: a chunk as the JS store answered (its bytes, or a versioned
//     answer {data, generation}), raw or compressed by
//     zstd, zlib or gzip with a host decoder: decoded in the package's
//     libzstd/zlib memory and copied from there into the result, never
//     entering Go memory. The engine's chunk source decides which chunks go
//     this way (zarr's placeStored: no cache, a plain chain); bytes the
//     placer declines come back to the engine, which decodes (and reports)
//     them.

// placer is the npm package's: {fromGo, stored, fill}, set per engine
// (setPlacer) with a view of this instance's memory.
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
	// setPlacer({fromGo, stored, fill}) (undefined: results are built in Go
	// and copied out).
	handleSync("setPlacer", func(args []js.Value) any {
		placerMu.Lock()
		defer placerMu.Unlock()
		placer = js.Undefined()
		if len(args) > 0 && args[0].Type() == js.TypeObject {
			placer = args[0]
		}
		return nil
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

// jsDest is a read's result in JS: a Uint8Array over the TypedArray the
// caller gets.
type jsDest struct {
	placer   js.Value
	bytes    js.Value // Uint8Array over the result
	shape    js.Value // the full shape, a JS array
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
	d.placer.Call("fromGo", d.bytes, d.shape, goAddr(data), len(data), floatsAddr(g), len(g), d.itemSize)
	runtime.KeepAlive(data)
	runtime.KeepAlive(g)
}

func (d *jsDest) CanPlaceStored(s zarr.Store) bool {
	_, ok := s.(*jsStore)
	return ok
}

func (d *jsDest) PlaceStored(ctx context.Context, s zarr.Store, key, decoder string, size int, shape []int, out, in []nd.Range, alone func() bool) (store.Versioned, bool, error) {
	return s.(*jsStore).readPlaced(ctx, key, func(answer js.Value) int {
		if !alone() {
			return -1 // others wait for this chunk: the engine decodes it for all
		}
		g := d.geometry(shape, out, in)
		n := d.placer.Call("stored", d.bytes, d.shape, answer, decoder, size, floatsAddr(g), len(g), d.itemSize).Int()
		runtime.KeepAlive(g)
		return n
	})
}

// readToJS reads sel of arr into a TypedArray allocated in JS: {data,
// shape, stride}; ok is false when the data type reaches JS converted (or
// there is no placer), and the caller reads through Read.
func readToJS(ctx context.Context, arr *zarr.Array, sel zarr.Selection) (res js.Value, ok bool, err error) {
	dt := arr.DType()
	name, _ := typedArrayName(dt)
	p, have := currentPlacer()
	if name == "" || isFloat32Like(dt) || dt.Variable() || !have {
		return js.Value{}, false, nil
	}
	var ta js.Value
	shape, err := arr.ReadInto(ctx, sel, func(full []int, fill *dtype.Fill) (zarr.Dest, error) {
		ctor := js.Global().Get(name)
		n := nd.Size(full) * dt.Size
		ta = ctor.New(n / ctor.Get("BYTES_PER_ELEMENT").Int())
		d := &jsDest{placer: p, bytes: jsUint8Array.New(ta.Get("buffer"), ta.Get("byteOffset"), ta.Get("byteLength")), shape: intsToJS(full), ndim: len(full), itemSize: dt.Size}
		if fill != nil && n > 0 && len(fill.Bytes) >= dt.Size {
			elem := fill.Bytes[:dt.Size]
			p.Call("fill", d.bytes, goAddr(elem), len(elem))
			runtime.KeepAlive(elem)
		}
		return d, nil
	})
	if err != nil {
		return js.Value{}, true, err
	}
	stride := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		stride[i] = s
		s *= shape[i]
	}
	o := jsObject.New()
	o.Set("data", ta)
	o.Set("shape", intsToJS(shape))
	o.Set("stride", intsToJS(stride))
	return o, true, nil
}
