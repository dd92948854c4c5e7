package zarr

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/zarr-wasm/zarr-wasm/zarr/budget"
	"github.com/zarr-wasm/zarr-wasm/zarr/codec"
	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
	"github.com/zarr-wasm/zarr-wasm/zarr/meta"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// Array is an opened Zarr array.
type Array struct {
	store    Store
	path     string
	meta     *meta.Array
	attrs    map[string]any
	attrsKey string
	// WriteEmptyChunks stores chunks whose every element equals the fill
	// value (zarr-python's write_empty_chunks). When false, such chunks are
	// deleted instead, and read back as the fill value.
	WriteEmptyChunks bool
	// Concurrency bounds the chunks fetched and decoded at once.
	Concurrency int
	// MissingChunksAreErrors makes reading a chunk the store does not hold
	// a NOT_FOUND error naming its key, instead of the fill value
	// (TensorStore's fill_missing_data_reads: false).
	MissingChunksAreErrors bool

	// spec is set for arrays opened with OpenSpec.
	spec *specState

	src chunkSource
	cfg openConfig // what it was opened with (children of groups inherit it)
}

func newArrayV3(s Store, path string, m *meta.Array, cfg openConfig) *Array {
	return &Array{store: s, path: path, meta: m, attrs: m.Attrs, Concurrency: DefaultConcurrency, src: newChunkSource(s, cfg), cfg: cfg}
}

func newArray(ctx context.Context, s Store, path string, m *meta.Array, attrsKey string, cfg openConfig) (*Array, error) {
	attrs, err := readAttrs(ctx, s, attrsKey)
	if err != nil {
		return nil, err
	}
	return newArrayAttrs(s, path, m, attrs, attrsKey, cfg), nil
}

// newArrayAttrs is newArray with the attributes already read.
func newArrayAttrs(s Store, path string, m *meta.Array, attrs map[string]any, attrsKey string, cfg openConfig) *Array {
	m.Attrs = attrs
	return &Array{store: s, path: path, meta: m, attrs: attrs, attrsKey: attrsKey, Concurrency: DefaultConcurrency, src: newChunkSource(s, cfg), cfg: cfg}
}

// CachePool returns the pool the array's decoded chunks are kept in.
func (a *Array) CachePool() *CachePool { return a.src.pool }

// Recheck returns the array's recheck policy for cached chunks.
func (a *Array) Recheck() Recheck { return a.src.recheck }

func (a *Array) Path() string           { return a.path }
func (a *Array) Attrs() map[string]any  { return a.attrs }
func (a *Array) ZarrFormat() int        { return a.meta.ZarrFormat }
func (a *Array) Codecs() []codec.Config { return a.meta.Codecs }
func (a *Array) Order() string          { return a.meta.Order }
func (a *Array) Metadata() *meta.Array  { return a.meta }
func (a *Array) Store() Store           { return a.store }

// view returns the view an array opened from a spec is read through, or
// nil.
func (a *Array) view() *arrayView {
	if a.spec != nil && a.spec.view.active() {
		return a.spec.view
	}
	return nil
}

// IsView reports whether the array is seen through a spec's view (a field
// of a structured type, or a transform): Shape, DType, Chunks and Fill
// then describe the view, Metadata the stored array.
func (a *Array) IsView() bool { return a.view() != nil }

// Shape is the shape Read selects from: the stored shape, or for an array
// opened from a spec with a field or transform, the extents of its domain
// (chunked dimensions, then the field's subarray dimensions, transformed).
func (a *Array) Shape() []int {
	if w := a.view(); w != nil {
		return w.shape(a)
	}
	return append([]int{}, a.meta.Shape...)
}

// DType is the element type Read returns (a field's, when one is opened).
func (a *Array) DType() *DataType {
	if w := a.view(); w != nil {
		return w.dtype(a)
	}
	return a.meta.DType
}

// Fill is the fill value of one element. For a field with subarray
// dimensions it is the subarray's first element; Schema()["fill_value"]
// has all of them.
func (a *Array) Fill() dtype.Fill {
	if w := a.view(); w != nil && !w.whole {
		f := a.meta.Fill
		if f.Null {
			return w.field.Type.ZeroFill()
		}
		off := w.field.Offset
		return dtype.Fill{Bytes: f.Bytes[off : off+w.field.Type.Size]}
	}
	return a.meta.Fill
}

// viewDimensionNames are the labels a spec's transform gives; nil when
// there are none.
func (a *Array) viewDimensionNames(w *arrayView) []string {
	for _, l := range w.view.Labels {
		if l != "" {
			return append([]string(nil), w.view.Labels...)
		}
	}
	return nil
}

// Chunks returns the chunk shape of a regular grid, or nil for a variable
// grid (see ChunkSizes). Through a spec's view, it is over the view's
// dimensions (a subarray dimension is one chunk).
func (a *Array) Chunks() []int {
	if w := a.view(); w != nil && a.meta.ChunkShape != nil {
		base := append(append([]int(nil), a.meta.ChunkShape...), intsOf(w.field.Shape)...)
		out := make([]int, w.view.Rank)
		for i, d := range w.view.ToBase {
			out[i] = base[d]
		}
		return out
	}
	if a.meta.ChunkShape == nil {
		return nil
	}
	return append([]int{}, a.meta.ChunkShape...)
}

func intsOf(v []int64) []int {
	out := make([]int, len(v))
	for i, n := range v {
		out[i] = int(n)
	}
	return out
}

// SelectionShape is the shape Read returns for sel (and Write expects).
func (a *Array) SelectionShape(sel Selection) ([]int, error) {
	var r resolved
	var err error
	if w := a.view(); w != nil {
		r, err = w.plan(a, sel)
	} else {
		r, err = sel.resolve(a.meta.Shape)
	}
	if err != nil {
		return nil, err
	}
	return r.outShape(), nil
}

// ReadChunks returns the shape of the chunks a read decodes: the inner
// chunks of a sharded array (the innermost, when shards nest), else
// Chunks. nil for a variable grid.
func (a *Array) ReadChunks() []int {
	chunks := a.Chunks()
	if a.view() != nil {
		return chunks // over the view's dimensions, not the shard's
	}
	for cs := a.meta.Codecs; chunks != nil; {
		inner, sub, ok := shardingOf(cs)
		if !ok {
			break
		}
		chunks, cs = inner, sub
	}
	return chunks
}

// Shards returns the shard shape of a sharded array (the grid's chunk
// shape), or nil when the array is not sharded.
func (a *Array) Shards() []int {
	if _, _, ok := shardingOf(a.meta.Codecs); !ok {
		return nil
	}
	return a.Chunks()
}

// shardingOf finds a sharding_indexed codec in a chain and returns its
// inner chunk shape and inner codecs.
func shardingOf(cs []codec.Config) ([]int, []codec.Config, bool) {
	for _, c := range cs {
		if c.Name != "sharding_indexed" {
			continue
		}
		var cfg shardingShape
		if jsonx.UnmarshalStrict(c.Configuration, &cfg) != nil || cfg.ChunkShape == nil {
			return nil, nil, false
		}
		return cfg.ChunkShape, cfg.Codecs, true
	}
	return nil, nil, false
}

// DimensionNames names the dimensions: v3 "dimension_names", or for v1/v2
// arrays xarray's "_ARRAY_DIMENSIONS" attribute when it is a list of one
// string per dimension. "" stands for an unnamed dimension; nil when the
// array names none.
func (a *Array) DimensionNames() []string {
	if w := a.view(); w != nil {
		return a.viewDimensionNames(w)
	}
	if a.meta.DimensionNames != nil || a.meta.ZarrFormat == 3 {
		return append([]string(nil), a.meta.DimensionNames...)
	}
	list, ok := a.attrs[xarrayDims].([]any)
	if !ok || len(list) != len(a.meta.Shape) {
		return nil
	}
	names := make([]string, len(list))
	for i, v := range list {
		if names[i], ok = v.(string); !ok {
			return nil
		}
	}
	return names
}

// DTypeName describes the data type in the vocabulary of
// dtype.DataType.Describe, for every format alike; a v2 object array whose
// object codec is vlen-utf8 or vlen-bytes is "string" or "bytes", as its
// values are.
func (a *Array) DTypeName() any {
	dt := a.meta.DType
	if dt.Kind == dtype.Object && !dt.IsJSON() {
		for _, c := range a.meta.Codecs {
			switch strings.TrimPrefix(c.Name, "numcodecs.") {
			case "vlen-utf8":
				return "string"
			case "vlen-bytes":
				return "bytes"
			}
		}
	}
	return dt.Describe()
}

// xarrayDims is the attribute xarray stores v2 dimension names in.
const xarrayDims = "_ARRAY_DIMENSIONS"

// LayoutOrder is the memory order chunks are stored in: the v1/v2 "order",
// or for v3 "F" when the chain starts with a transpose that reverses the
// dimensions, else "C".
func (a *Array) LayoutOrder() string {
	if a.meta.Order != "" {
		return a.meta.Order
	}
	if len(a.meta.Codecs) > 0 && a.meta.Codecs[0].Name == "transpose" && len(a.meta.Shape) > 1 {
		var cfg transposeOrder
		if jsonx.UnmarshalStrict(a.meta.Codecs[0].Configuration, &cfg) == nil {
			var s string
			var perm []int
			if jsonx.UnmarshalStrict(cfg.Order, &s) == nil && s == "F" {
				return "F"
			}
			if jsonx.UnmarshalStrict(cfg.Order, &perm) == nil && len(perm) == len(a.meta.Shape) {
				reversed := true
				for i, p := range perm {
					reversed = reversed && p == len(perm)-1-i
				}
				if reversed {
					return "F"
				}
			}
		}
	}
	return "C"
}

// ChunkSizes returns, for a variable chunk grid, each dimension's chunk sizes.
func (a *Array) ChunkSizes() [][]int { return a.meta.ChunkSizes }

// ChunkStore is the store the array's chunks are read from (beneath a
// group's consolidated metadata, which serves only metadata documents).
func (a *Array) ChunkStore() Store {
	if cs, ok := a.src.store.(*consolidatedStore); ok {
		return cs.base
	}
	return a.src.store
}

// ChunkKey returns the store key of chunk idx.
func (a *Array) ChunkKey(idx []int) string {
	return meta.Prefix(a.path) + a.meta.Keys.Key(idx)
}

// DecodeChunk decodes the stored bytes of chunk idx: the pure step a worker
// can run anywhere.
func (a *Array) DecodeChunk(idx []int, data []byte) (*nd.Array, error) {
	key := a.ChunkKey(idx)
	shape := a.meta.Grid.ChunkShape(idx)
	chain, err := a.meta.Chain(shape)
	if err != nil {
		return nil, err
	}
	if err := a.checkChunkWork(key, shape, decodeCopies); err != nil {
		return nil, err
	}
	chunk, err := chain.Decode(data)
	if err != nil {
		return nil, decodeError(key, err)
	}
	return chunk, nil
}

func decodeError(key string, err error) error {
	code := errs.CodeOf(err)
	switch code {
	case errs.Aborted, errs.Store, errs.Unsupported:
		return err
	case "", errs.InvalidMetadata:
		code = errs.Codec
	}
	return &errs.Error{Code: code, Where: key, Msg: "cannot decode chunk", Err: err}
}

// readRegion reads the part c.In of chunk c.Index into the result's region
// c.Out, through the array's chunk source. Codecs that decode by parts
// (sharding) fetch only what the region needs.
func (a *Array) readRegion(ctx context.Context, dest Dest, c PlannedChunk) error {
	chain, err := a.meta.Chain(c.Shape)
	if err != nil {
		return err
	}
	if p := chain.Partial(); p != nil && !wholeChunk(c.In, c.Shape) {
		region, ok, err := a.partialRegion(ctx, c.Index, c.In, p)
		if err != nil {
			return err
		}
		if !ok {
			return a.missingChunk(c.Index)
		}
		dest.Place(c.Out, region, nd.Whole(region.Shape()))
		return nil
	}
	chunk, _, ok, err := a.wholeChunk(ctx, c.Index, readShared)
	if err != nil {
		return err
	}
	if !ok {
		return a.missingChunk(c.Index)
	}
	dest.Place(c.Out, chunk, c.In)
	return nil
}

// missingChunk is nil (the fill value stands in), or the NOT_FOUND error
// of MissingChunksAreErrors.
func (a *Array) missingChunk(idx []int) error {
	if !a.MissingChunksAreErrors {
		return nil
	}
	key := a.ChunkKey(idx)
	return errs.New(errs.NotFound, key, "chunk %v stored at %q is missing (fill_missing_data_reads is false)", idx, key)
}

// wholeChunk reports whether a region covers every element of a chunk.
func wholeChunk(in []nd.Range, shape []int) bool {
	for d, r := range in {
		if r.Start != 0 || r.Count != shape[d] || (r.Step != 1 && r.Count > 1) {
			return false
		}
	}
	return true
}

// Read returns the selected elements. A missing chunk reads as the fill value.
func (a *Array) Read(ctx context.Context, sel Selection) (*NDArray, error) {
	if err := a.recheckMetadata(ctx); err != nil {
		return nil, err
	}
	if w := a.view(); w != nil {
		return w.read(ctx, a, sel)
	}
	return a.read(ctx, sel)
}

func (a *Array) read(ctx context.Context, sel Selection) (*NDArray, error) {
	var out *nd.Array
	shape, err := a.readInto(ctx, sel, func(full []int, fill *dtype.Fill) (Dest, error) {
		out = nd.New(a.meta.DType, full)
		if fill != nil {
			out.Fill(*fill)
		}
		return arrayDest{out}, nil
	})
	if err != nil {
		return nil, err
	}
	return out.Reshape(shape)
}

// A Dest is where a read puts what it decodes: ReadInto's result, in place
// of the NDArray Read returns (the bridge's is the JS TypedArray the caller
// gets). Place may be called from several goroutines at once, for disjoint
// regions of the result; chunk is only read, and not kept.
type Dest interface {
	// Place copies region in of chunk into region out of the result (the
	// read's full shape: an integer index is a dimension of 1).
	Place(out []nd.Range, chunk *nd.Array, in []nd.Range)
}

// arrayDest is the Dest of Read: an NDArray.
type arrayDest struct{ a *nd.Array }

func (d arrayDest) Place(out []nd.Range, chunk *nd.Array, in []nd.Range) {
	nd.Copy(d.a, out, chunk, in)
}

// ReadInto reads sel as Read does, into the destination dest returns for
// the read's full shape (an integer index is a dimension of 1), told the
// fill value when a zeroed result is not already filled with it; it returns
// the result's shape (Read's). A missing chunk leaves its region as it was.
func (a *Array) ReadInto(ctx context.Context, sel Selection, dest func(full []int, fill *dtype.Fill) (Dest, error)) ([]int, error) {
	if err := a.recheckMetadata(ctx); err != nil {
		return nil, err
	}
	if w := a.view(); w != nil {
		res, err := w.read(ctx, a, sel)
		if err != nil {
			return nil, err
		}
		d, err := dest(res.Shape(), nil)
		if err != nil {
			return nil, err
		}
		d.Place(nd.Whole(res.Shape()), res, nd.Whole(res.Shape()))
		return res.Shape(), nil
	}
	return a.readInto(ctx, sel, dest)
}

func (a *Array) readInto(ctx context.Context, sel Selection, dest func(full []int, fill *dtype.Fill) (Dest, error)) ([]int, error) {
	p, err := a.PlanRead(sel)
	if err != nil {
		return nil, err
	}
	var fill *dtype.Fill
	if needsFill(a.meta.DType, a.meta.Fill) {
		fill = &a.meta.Fill
	}
	d, err := dest(p.FullShape, fill)
	if err != nil {
		return nil, err
	}
	if err := a.runPlan(ctx, p, d); err != nil {
		return nil, err
	}
	return p.Shape, nil
}

// MaxResultBytes bounds one Read (and the broadcast of one Write) whatever
// the memory budget (zarr/budget), which usually refuses far less.
const MaxResultBytes = 1 << 40

func checkResultSize(dt *dtype.DataType, shape []int) error {
	n, ok := nd.CheckedSize(shape, elementBytes(dt))
	if !ok || n > MaxResultBytes {
		return errs.New(errs.Selection, shapeString(shape), "the selection is too large to hold in memory")
	}
	return budget.Check("selection of shape "+shapeString(shape), int64(n))
}

// needsFill reports whether a fresh (zeroed) array differs from the fill.
func needsFill(dt *dtype.DataType, f dtype.Fill) bool {
	if dt.Variable() {
		return f.Value != nil
	}
	for _, c := range f.Bytes {
		if c != 0 {
			return true
		}
	}
	return false
}

// Write stores v into the selected region. v has the selection's shape
// (dimensions dropped by integer indices may be present as 1) or a single
// element, which is broadcast. Partially covered chunks are read, modified
// and written back.
func (a *Array) Write(ctx context.Context, sel Selection, v *NDArray) error {
	if err := a.recheckMetadata(ctx); err != nil {
		return err
	}
	if w := a.view(); w != nil {
		return w.write(ctx, a, sel, v)
	}
	return a.write(ctx, sel, v)
}

func (a *Array) write(ctx context.Context, sel Selection, v *NDArray) error {
	if _, ok := store.AsWriter(a.store); !ok {
		return errs.New(errs.ReadOnly, a.path, "the store cannot be written")
	}
	r, err := sel.resolve(a.meta.Shape)
	if err != nil {
		return err
	}
	if !v.DType().Equal(a.meta.DType) {
		return errs.New(errs.InvalidArgument, a.path, "value has data type %s, the array has %s", v.DType(), a.meta.DType)
	}
	full := r.fullShape()
	if err := checkResultSize(a.meta.DType, full); err != nil {
		return err
	}
	src, err := conform(v, full, r.outShape())
	if err != nil {
		return errs.New(errs.Selection, a.path, "%v", err)
	}
	tasks := plan(a.meta.Grid, r)
	return runTasks(ctx, tasks, a.Concurrency, func(ctx context.Context, t chunkTask) error {
		return a.writeChunk(ctx, t, src)
	})
}

// conform returns v with shape full: reshaped when it has the selection's
// shape, or broadcast when it has one element.
func conform(v *NDArray, full, out []int) (*NDArray, error) {
	if sameShape(v.Shape(), full) {
		return v, nil
	}
	if sameShape(v.Shape(), out) {
		return v.Reshape(full)
	}
	if v.Len() == 1 {
		b := nd.New(v.DType(), full)
		if v.DType().Variable() {
			objs, _ := v.Objects()
			b.Fill(dtype.Fill{Value: objs[0]})
		} else {
			b.Fill(dtype.Fill{Bytes: v.Bytes()})
		}
		return b, nil
	}
	return nil, errors.New("value shape " + shapeString(v.Shape()) + " does not match the selection shape " + shapeString(out))
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func shapeString(s []int) string {
	b := []byte{'('}
	for i, n := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendInt(b, n)
	}
	if len(s) == 1 {
		b = append(b, ',')
	}
	return string(append(b, ')'))
}

func appendInt(b []byte, n int) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// writeAttempts bounds how often a read-modify-write starts over when the
// chunk changed between its read and its conditional write.
const writeAttempts = 16

// writeChunk stores the part t.in of chunk t.idx. Writes of one chunk are
// serialised in this process (chunkLocks); a partial write reads the
// chunk, modifies it and writes it back on condition that it is still the
// version read, and starts over when another process changed it meanwhile
// (stores with conditional writes; see ConditionalWriter).
func (a *Array) writeChunk(ctx context.Context, t chunkTask, src *NDArray) error {
	key := a.ChunkKey(t.idx)
	id := a.chunkID(key)
	unlock, err := chunkLocks.lock(ctx, id)
	if err != nil {
		return err
	}
	defer unlock()
	shape := a.meta.Grid.ChunkShape(t.idx)
	complete := true
	for d, rg := range t.in {
		inBounds := min(shape[d], a.meta.Shape[d]-a.meta.Grid[d].Start(t.idx[d]))
		if rg.Start != 0 || (rg.Step != 1 && rg.Count > 1) || rg.Count != inBounds {
			complete = false
			break
		}
	}
	copies := int64(encodeCopies)
	if !complete {
		copies += rewriteCopies
	}
	if err := a.checkChunkWork(key, shape, copies); err != nil {
		return err
	}
	chain, err := a.meta.Chain(shape)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		var chunk *nd.Array
		var gen store.Generation // "" writes unconditionally
		if !complete {
			how := readForWrite
			if attempt > 1 {
				how = readAgain
			}
			existing, g, ok, err := a.wholeChunk(ctx, t.idx, how)
			if err != nil {
				return err
			}
			gen = g
			if ok {
				chunk = existing.Clone() // cached, or sharing the store's bytes
			}
		}
		if chunk == nil {
			chunk = nd.Filled(a.meta.DType, shape, a.meta.Fill)
		}
		nd.Copy(chunk, t.in, src, t.out)
		var newGen store.Generation
		if !a.WriteEmptyChunks && !a.meta.Fill.Null && chunk.AllEqual(a.meta.Fill) {
			err = a.deleteChunk(ctx, key, gen)
			chunk = nil
			if store.Has(a.store, store.CanVersion) {
				newGen = store.Absent
			}
		} else {
			newGen, err = a.storeChunk(ctx, key, chain, chunk, gen)
		}
		if errs.CodeOf(err) == errs.Conflict && attempt < writeAttempts {
			if err := pause(ctx, attempt); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			a.src.pool.forget(id)
			return err
		}
		a.src.pool.wrote(id, newGen, chunk, time.Now())
		return nil
	}
}

// pause waits a little before a write starts over (longer each time, with
// jitter, so writers in several processes do not collide again).
func pause(ctx context.Context, attempt int) error {
	// (the clock's low bits are jitter enough, and cost no random package)
	d := time.Duration(time.Now().UnixNano()%(int64(attempt)*int64(time.Millisecond)) + 1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errs.Wrap(errs.Aborted, "", ctx.Err(), "aborted")
	}
}

// storeChunk encodes and writes a chunk, on condition that the key is
// still at ifMatch ("": unconditionally).
func (a *Array) storeChunk(ctx context.Context, key string, chain *codec.Chain, chunk *nd.Array, ifMatch store.Generation) (store.Generation, error) {
	data, err := chain.Encode(chunk)
	if err != nil {
		return "", errs.Wrap(errs.Codec, key, err, "cannot encode chunk")
	}
	if err := ctx.Err(); err != nil {
		return "", errs.Wrap(errs.Aborted, key, err, "aborted")
	}
	gen, err := store.SetIf(ctx, a.store, key, data, ifMatch)
	if err != nil {
		return "", errs.Wrap(errs.Store, key, err, "write failed")
	}
	return gen, nil
}

// deleteChunk deletes a chunk that holds only the fill value, on condition
// that it is still at ifMatch.
func (a *Array) deleteChunk(ctx context.Context, key string, ifMatch store.Generation) error {
	if ifMatch == store.Absent {
		return nil // nothing stored, nothing to delete
	}
	if err := store.DeleteIf(ctx, a.store, key, ifMatch); err != nil {
		return errs.Wrap(errs.Store, key, err, "delete failed")
	}
	return nil
}

func setKey(ctx context.Context, w store.Writer, key string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return errs.Wrap(errs.Aborted, key, err, "aborted")
	}
	if err := w.Set(ctx, key, data); err != nil {
		return errs.Wrap(errs.Store, key, err, "write failed")
	}
	return nil
}

func deleteKey(ctx context.Context, w store.Writer, key string) error {
	if err := w.Delete(ctx, key); err != nil {
		return errs.Wrap(errs.Store, key, err, "delete failed")
	}
	return nil
}

// Resize changes the shape. Chunks entirely outside the new shape are
// deleted; data inside the kept chunks stays. For an array opened from a
// spec, it is ResizeWith without options.
func (a *Array) Resize(ctx context.Context, shape []int) error {
	if a.spec != nil {
		return a.ResizeWith(ctx, shape, ResizeOptions{})
	}
	return a.resize(ctx, shape, true)
}

// resize writes the new shape and, when deleteChunks, deletes the chunks
// wholly outside it.
func (a *Array) resize(ctx context.Context, shape []int, deleteChunks bool) error {
	w, ok := store.AsWriter(a.store)
	if !ok {
		return errs.New(errs.ReadOnly, a.path, "the store cannot be written")
	}
	if len(shape) != len(a.meta.Shape) {
		return errs.New(errs.InvalidArgument, a.path, "new shape %v has %d dimensions, the array has %d", shape, len(shape), len(a.meta.Shape))
	}
	if a.meta.ChunkShape == nil {
		return errs.New(errs.Unsupported, a.path, "resizing arrays with variable chunk grids is not supported")
	}
	for _, n := range shape {
		if n < 0 {
			return errs.New(errs.InvalidArgument, a.path, "negative dimension in new shape %v", shape)
		}
	}
	old := a.meta.Shape
	oldGrid := a.meta.Grid.Shape(old)
	newGrid := a.meta.Grid.Shape(shape)
	// Delete chunks that fall outside the new grid.
	var tasks []chunkTask
	if deleteChunks && nd.Size(oldGrid) > 0 {
		idx := make([]int, len(oldGrid))
		for {
			outside := false
			for d := range idx {
				if idx[d] >= newGrid[d] {
					outside = true
				}
			}
			if outside {
				tasks = append(tasks, chunkTask{idx: append([]int(nil), idx...)})
			}
			k := len(idx) - 1
			for ; k >= 0; k-- {
				idx[k]++
				if idx[k] < oldGrid[k] {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
	}
	a.meta.SetShape(shape)
	doc, err := a.meta.Document()
	if err != nil {
		a.meta.SetShape(old)
		return errs.Wrap(errs.InvalidMetadata, a.meta.Key, err, "cannot write metadata")
	}
	if err := setKey(ctx, w, a.meta.Key, doc); err != nil {
		a.meta.SetShape(old)
		return err
	}
	return runTasks(ctx, tasks, a.Concurrency, func(ctx context.Context, t chunkTask) error {
		key := a.ChunkKey(t.idx)
		defer a.src.pool.forget(a.chunkID(key))
		return deleteKey(ctx, w, key)
	})
}

// SetAttrs replaces the attributes.
func (a *Array) SetAttrs(ctx context.Context, attrs map[string]any) error {
	if a.meta.ZarrFormat == 3 {
		w, ok := store.AsWriter(a.store)
		if !ok {
			return errs.New(errs.ReadOnly, a.path, "the store cannot be written")
		}
		old := a.meta.Attrs
		if err := a.meta.SetAttributes(attrs); err != nil {
			return errs.Wrap(errs.InvalidMetadata, a.meta.Key, err, "attributes cannot be written as JSON")
		}
		doc, err := a.meta.Document()
		if err == nil {
			err = setKey(ctx, w, a.meta.Key, doc)
		}
		if err != nil {
			_ = a.meta.SetAttributes(old)
			return err
		}
		a.attrs = a.meta.Attrs
		return nil
	}
	if err := writeAttrs(ctx, a.store, a.attrsKey, attrs); err != nil {
		return err
	}
	a.attrs = attrs
	a.meta.Attrs = attrs
	return nil
}

// UpdateAttrs merges attrs into the attributes (like zarr-python's
// attrs.update).
func (a *Array) UpdateAttrs(ctx context.Context, attrs map[string]any) error {
	return a.SetAttrs(ctx, mergeAttrs(a.attrs, attrs))
}

func mergeAttrs(old, upd map[string]any) map[string]any {
	m := make(map[string]any, len(old)+len(upd))
	for k, v := range old {
		m[k] = v
	}
	for k, v := range upd {
		m[k] = v
	}
	return m
}

func writeAttrs(ctx context.Context, s Store, key string, attrs map[string]any) error {
	w, ok := store.AsWriter(s)
	if !ok {
		return errs.New(errs.ReadOnly, key, "the store cannot be written")
	}
	data, err := meta.MarshalAttrs(attrs)
	if err != nil {
		return errs.Wrap(errs.InvalidMetadata, key, err, "attributes cannot be written as JSON")
	}
	return setKey(ctx, w, key, data)
}

// The codec configurations the array reads, described to jsonx (no
// reflect in the core build).

type shardingShape struct {
	ChunkShape []int          `json:"chunk_shape"`
	Codecs     []codec.Config `json:"codecs"`
}

func (c *shardingShape) JSONFields() []jsonx.Field {
	return []jsonx.Field{jsonx.F("chunk_shape", &c.ChunkShape), jsonx.F("codecs", jsonx.Objects(&c.Codecs))}
}

type transposeOrder struct {
	Order jsonx.RawMessage `json:"order"`
}

func (c *transposeOrder) JSONFields() []jsonx.Field { return []jsonx.Field{jsonx.F("order", &c.Order)} }
