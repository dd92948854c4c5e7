package nd

// Range selects Count positions Start, Start+Step, ... along one dimension.
type Range struct {
	Start, Step, Count int
}

// Copy copies the region src[srcSel] into dst[dstSel]. Both selections have
// one Range per dimension of their array and the same Count per dimension.
// Both arrays must have the same element type. Runs that are contiguous on
// both sides are copied with one copy call.
func Copy(dst *Array, dstSel []Range, src *Array, srcSel []Range) {
	nd := len(dstSel)
	if nd == 0 {
		if dst.dt.Variable() {
			dst.objs[0] = src.objs[0]
		} else {
			copy(dst.data[:dst.dt.Size], src.data[:src.dt.Size])
		}
		return
	}
	for i := range dstSel {
		if dstSel[i].Count == 0 {
			return
		}
	}
	es := dst.dt.Size
	dstStrides := strides(dst.shape)
	srcStrides := strides(src.shape)
	// Merge the innermost dimensions into one run while both sides are
	// contiguous and complete.
	inner := nd - 1
	runLen := 1
	if dstSel[inner].Step == 1 && srcSel[inner].Step == 1 {
		runLen = dstSel[inner].Count
		for inner > 0 {
			d, s := dstSel[inner], srcSel[inner]
			if d.Count != dst.shape[inner] || s.Count != src.shape[inner] || d.Start != 0 || s.Start != 0 {
				break
			}
			pd, ps := dstSel[inner-1], srcSel[inner-1]
			if pd.Step != 1 || ps.Step != 1 {
				break
			}
			runLen *= pd.Count
			inner--
		}
	}
	// Dimensions [0, inner) are iterated; dimension inner starts a run of
	// runLen elements when runLen > 1, otherwise it is iterated too.
	loopDims := inner
	if runLen == 1 {
		loopDims = nd
	}
	dstBase, srcBase := 0, 0
	for i := 0; i < nd; i++ {
		dstBase += dstSel[i].Start * dstStrides[i]
		srcBase += srcSel[i].Start * srcStrides[i]
	}
	idx := make([]int, loopDims)
	dOff, sOff := dstBase, srcBase
	variable := dst.dt.Variable()
	for {
		if variable {
			if runLen == 1 {
				dst.objs[dOff] = src.objs[sOff]
			} else {
				copy(dst.objs[dOff:dOff+runLen], src.objs[sOff:sOff+runLen])
			}
		} else if runLen == 1 {
			copy(dst.data[dOff*es:(dOff+1)*es], src.data[sOff*es:(sOff+1)*es])
		} else {
			copy(dst.data[dOff*es:(dOff+runLen)*es], src.data[sOff*es:(sOff+runLen)*es])
		}
		// advance the odometer
		k := loopDims - 1
		for ; k >= 0; k-- {
			idx[k]++
			dOff += dstSel[k].Step * dstStrides[k]
			sOff += srcSel[k].Step * srcStrides[k]
			if idx[k] < dstSel[k].Count {
				break
			}
			dOff -= dstSel[k].Count * dstSel[k].Step * dstStrides[k]
			sOff -= srcSel[k].Count * srcSel[k].Step * srcStrides[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// strides returns C-order element strides.
func strides(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

// Whole returns the selection of every element of shape.
func Whole(shape []int) []Range {
	r := make([]Range, len(shape))
	for i, s := range shape {
		r[i] = Range{0, 1, s}
	}
	return r
}

// Transpose returns a new array b with b.shape[i] = a.shape[perm[i]] and
// b[..., j_i, ...] = a[..., j at position perm[i], ...].
func Transpose(a *Array, perm []int) *Array {
	nd := len(perm)
	shape := make([]int, nd)
	for i, p := range perm {
		shape[i] = a.shape[p]
	}
	b := New(a.dt, shape)
	n := a.Len()
	if n == 0 {
		return b
	}
	as := strides(a.shape)
	// srcStride[i]: step in a when b's index i increases.
	srcStride := make([]int, nd)
	for i, p := range perm {
		srcStride[i] = as[p]
	}
	es := a.dt.Size
	idx := make([]int, nd)
	src := 0
	variable := a.dt.Variable()
	for dst := 0; dst < n; dst++ {
		if variable {
			b.objs[dst] = a.objs[src]
		} else {
			copy(b.data[dst*es:(dst+1)*es], a.data[src*es:(src+1)*es])
		}
		for k := nd - 1; k >= 0; k-- {
			idx[k]++
			src += srcStride[k]
			if idx[k] < shape[k] {
				break
			}
			src -= shape[k] * srcStride[k]
			idx[k] = 0
		}
	}
	return b
}

// InversePermutation returns q with q[perm[i]] = i.
func InversePermutation(perm []int) []int {
	q := make([]int, len(perm))
	for i, p := range perm {
		q[p] = i
	}
	return q
}
