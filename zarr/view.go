package zarr

import (
	"context"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/nd"
	"github.com/zarr-wasm/zarr-wasm/zarr/tsspec"
)

// arrayView is how an array opened from a TensorStore spec is seen: one
// field of a structured data type, whose subarray dimensions follow the
// chunked ones, through an index transform (translation, labels,
// permutation, fixed indices). Reads and writes map each selection onto
// the stored array.
type arrayView struct {
	field tsspec.Field
	// whole: the data type is not structured; elements are read as they are.
	whole   bool
	chunked int // chunked (stored) dimensions
	view    *tsspec.View
	// transformed: a transform was given, so selections are in the view's
	// domain coordinates (TensorStore's indexing) rather than NumPy's.
	transformed bool
}

func newArrayView(a *Array, base []int64, chunked int, labels []string, f tsspec.Field, whole bool, t *tsspec.Transform) (*arrayView, error) {
	w := &arrayView{field: f, whole: whole, chunked: chunked, transformed: t != nil}
	if t == nil {
		w.view = tsspec.DefaultView(base, w.chunked, labels)
		return w, nil
	}
	v, err := t.Resolve(base, w.chunked)
	if err != nil {
		return nil, err
	}
	if a.meta.ChunkShape == nil {
		return nil, errs.New(errs.Unsupported, a.path, "transforms over variable chunk grids are not supported")
	}
	w.view = v
	return w, nil
}

// active reports whether reads need the view (anything but a plain
// untransformed array).
func (w *arrayView) active() bool { return w != nil && (!w.whole || w.transformed) }

// tsView is the view with extents of resizable dimensions brought up to
// date with the array's shape.
func (w *arrayView) tsView(a *Array) *tsspec.View {
	v := *w.view
	v.Extent = make([]int64, v.Rank)
	for i := 0; i < v.Rank; i++ {
		v.Extent[i] = w.extent(a, i)
	}
	return &v
}

// extent is the extent of view dimension i (a resizable one follows the
// array's shape).
func (w *arrayView) extent(a *Array, i int) int64 {
	v := w.view
	d := v.ToBase[i]
	if v.ImplicitUpper[i] && d < w.chunked {
		return max(0, int64(a.meta.Shape[d])-v.Offset[i]-v.Origin[i])
	}
	return v.Extent[i]
}

func (w *arrayView) shape(a *Array) []int {
	s := make([]int, w.view.Rank)
	for i := range s {
		s[i] = int(w.extent(a, i))
	}
	return s
}

// dtype is the element type seen: the field's.
func (w *arrayView) dtype(a *Array) *dtype.DataType {
	if w.whole {
		return a.meta.DType
	}
	return w.field.Type
}

// plan resolves a selection over the view: per view dimension the range
// (relative to the view's origin) and whether an index dropped it.
func (w *arrayView) plan(a *Array, sel Selection) (resolved, error) {
	shape := w.shape(a)
	if !w.transformed {
		return sel.resolve(shape)
	}
	origin := make([]int, len(shape))
	for i := range origin {
		origin[i] = int(w.view.Origin[i])
	}
	return sel.resolveDomain(origin, shape)
}

// baseRanges maps a resolved view selection to ranges over the base
// dimensions (chunked, then subarray), in absolute array indices.
func (w *arrayView) baseRanges(r resolved) []nd.Range {
	v := w.view
	out := make([]nd.Range, len(v.ToBase)+len(v.Fixed))
	for d, c := range v.Fixed {
		out[d] = nd.Range{Start: int(c), Step: 1, Count: 1}
	}
	for i, rg := range r.ranges {
		rg.Start += int(v.Origin[i] + v.Offset[i])
		out[v.ToBase[i]] = rg
	}
	return out
}

// chunkedSelection is the part of base ranges over the stored dimensions,
// as slices.
func chunkedSelection(rs []nd.Range) Selection {
	sel := make(Selection, len(rs))
	for d, rg := range rs {
		start, stop := rg.Start, rg.Start
		if rg.Count > 0 {
			stop = rg.Start + (rg.Count-1)*rg.Step + 1
		}
		sel[d] = Slice(&start, &stop, rg.Step)
	}
	return sel
}

// toViewOrder turns an array over the base dimensions (counts of base
// ranges) into one over the view dimensions.
func (w *arrayView) toViewOrder(x *nd.Array) (*nd.Array, error) {
	v := w.view
	if len(v.Fixed) == 0 && isIdentity(v.ToBase) {
		return x, nil
	}
	// Drop the fixed (extent 1) dimensions, then permute.
	full := x.Shape()
	var kept []int
	reduced := map[int]int{}
	for d, n := range full {
		if _, fixed := v.Fixed[d]; fixed {
			continue
		}
		reduced[d] = len(kept)
		kept = append(kept, n)
	}
	y, err := x.Reshape(kept)
	if err != nil {
		return nil, err
	}
	perm := make([]int, v.Rank)
	for i, d := range v.ToBase {
		perm[i] = reduced[d]
	}
	return nd.Transpose(y, perm), nil
}

// toBaseOrder is the inverse of toViewOrder for a value over the view's
// dimensions, given the base counts.
func (w *arrayView) toBaseOrder(x *nd.Array, baseCounts []int) (*nd.Array, error) {
	v := w.view
	if len(v.Fixed) == 0 && isIdentity(v.ToBase) {
		return x, nil
	}
	// The reduced base order lists non-fixed base dimensions; view dim i
	// holds base dim ToBase[i].
	var order []int
	for d := range baseCounts {
		if _, fixed := v.Fixed[d]; !fixed {
			order = append(order, d)
		}
	}
	pos := map[int]int{}
	for i, d := range v.ToBase {
		pos[d] = i
	}
	perm := make([]int, len(order))
	for k, d := range order {
		perm[k] = pos[d]
	}
	return nd.Transpose(x, perm).Reshape(baseCounts)
}

func isIdentity(p []int) bool {
	for i, x := range p {
		if x != i {
			return false
		}
	}
	return true
}

func counts(rs []nd.Range) []int {
	c := make([]int, len(rs))
	for i, r := range rs {
		c[i] = r.Count
	}
	return c
}

// subRanges are the ranges over the field's subarray dimensions, relative
// to the field (the base ranges after the chunked ones).
func (w *arrayView) subRanges(rs []nd.Range) []nd.Range {
	out := make([]nd.Range, 0, len(rs)+w.chunked)
	for d := 0; d < w.chunked; d++ {
		out = append(out, nd.Range{Start: 0, Step: 1, Count: rs[d].Count})
	}
	return append(out, rs[w.chunked:]...)
}

func (w *arrayView) read(ctx context.Context, a *Array, sel Selection) (*NDArray, error) {
	r, err := w.plan(a, sel)
	if err != nil {
		return nil, err
	}
	rs := w.baseRanges(r)
	if err := checkResultSize(w.dtype(a), counts(rs)); err != nil {
		return nil, err
	}
	x, err := a.read(ctx, chunkedSelection(rs[:w.chunked]))
	if err != nil {
		return nil, err
	}
	if !w.whole {
		f, err := x.Field(w.field.Name)
		if err != nil {
			return nil, errs.Wrap(errs.Selection, a.path, err, "")
		}
		x = nd.New(f.DType(), counts(rs))
		nd.Copy(x, nd.Whole(x.Shape()), f, w.subRanges(rs))
	}
	y, err := w.toViewOrder(x)
	if err != nil {
		return nil, err
	}
	return y.Reshape(r.outShape())
}

func (w *arrayView) write(ctx context.Context, a *Array, sel Selection, v *NDArray) error {
	r, err := w.plan(a, sel)
	if err != nil {
		return err
	}
	dt := w.dtype(a)
	if !v.DType().Equal(dt) {
		return errs.New(errs.InvalidArgument, a.path, "value has data type %s, the array has %s", v.DType(), dt)
	}
	rs := w.baseRanges(r)
	full := r.fullShape()
	if err := checkResultSize(dt, full); err != nil {
		return err
	}
	src, err := conform(v, full, r.outShape())
	if err != nil {
		return errs.New(errs.Selection, a.path, "%v", err)
	}
	x, err := w.toBaseOrder(src, counts(rs))
	if err != nil {
		return err
	}
	csel := chunkedSelection(rs[:w.chunked])
	if w.whole {
		return a.write(ctx, csel, x)
	}
	// Read the elements, replace the field's part, write them back: the
	// other fields keep their bytes.
	elems, err := a.read(ctx, csel)
	if err != nil {
		return err
	}
	elems = elems.Clone()
	f, err := elems.Field(w.field.Name)
	if err != nil {
		return errs.Wrap(errs.Selection, a.path, err, "")
	}
	nd.Copy(f, w.subRanges(rs), x, nd.Whole(x.Shape()))
	if err := elems.PutField(w.field.Name, f); err != nil {
		return errs.Wrap(errs.Selection, a.path, err, "")
	}
	return a.write(ctx, csel, elems)
}

// baseShape maps a new view shape (negative: unchanged) to the stored
// array's shape for a resize.
func (w *arrayView) baseShape(a *Array, shape []int) ([]int, error) {
	v := w.view
	if len(shape) != v.Rank {
		return nil, errs.New(errs.InvalidArgument, a.path, "new shape %v has %d dimensions, the array has %d", shape, len(shape), v.Rank)
	}
	out := make([]int, w.chunked)
	for d := range out {
		out[d] = -1
	}
	for i, n := range shape {
		if n < 0 || int64(n) == w.extent(a, i) {
			continue
		}
		d := v.ToBase[i]
		if d >= w.chunked {
			return nil, errs.New(errs.InvalidArgument, a.path, "dimension %d is a subarray dimension of field %q; its extent %d cannot change", i, w.field.Name, w.extent(a, i))
		}
		if !v.ImplicitUpper[i] {
			return nil, errs.New(errs.InvalidArgument, a.path, "dimension %d has an explicit upper bound in the transform; it cannot be resized", i)
		}
		out[d] = int(v.Origin[i]+v.Offset[i]) + n
	}
	return out, nil
}

// resolveDomain resolves a selection in domain coordinates (TensorStore's
// indexing): dimension d holds indices origin[d] .. origin[d]+shape[d]-1;
// an index or slice bound outside is an error, negative numbers are
// indices, not counted from the end. Ranges are relative to the origin.
func (s Selection) resolveDomain(origin, shape []int) (resolved, error) {
	expanded, err := s.expand(len(shape))
	if err != nil {
		return resolved{}, err
	}
	r := resolved{ranges: make([]nd.Range, len(shape)), dropped: make([]bool, len(shape))}
	for d, it := range expanded {
		lo, hi := origin[d], origin[d]+shape[d]
		if it.Kind == SelIndex {
			if it.Index < lo || it.Index >= hi {
				return resolved{}, errs.New(errs.Selection, s.String(), "index %d is outside dimension %d's domain [%d, %d)", it.Index, d, lo, hi)
			}
			r.ranges[d] = nd.Range{Start: it.Index - lo, Step: 1, Count: 1}
			r.dropped[d] = true
			continue
		}
		step, err := s.step(it, d)
		if err != nil {
			return resolved{}, err
		}
		start, stop := lo, hi
		if it.Start != nil {
			start = *it.Start
		}
		if it.Stop != nil {
			stop = *it.Stop
		}
		if start < lo || stop > hi || stop < start {
			return resolved{}, errs.New(errs.Selection, s.String(), "interval [%d, %d) is outside dimension %d's domain [%d, %d)", start, stop, d, lo, hi)
		}
		r.ranges[d] = nd.Range{Start: start - lo, Step: step, Count: (stop - start + step - 1) / step}
	}
	return r, nil
}
