package nd

import "encoding/binary"

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
	variable := dst.dt.Variable()
	// Dimensions selecting one position add only to the base offsets.
	var dimsBuf [8]int
	dims := dimsBuf[:0]
	for d := 0; d < loopDims; d++ {
		if dstSel[d].Count > 1 {
			dims = append(dims, d)
		}
	}
	// The innermost iterated dimension is copied a row at a time: one
	// copy call for a contiguous run, a tight strided loop otherwise.
	rowLen, dRowStep, sRowStep := runLen, 1, 1
	if runLen == 1 && len(dims) > 0 {
		rowDim := dims[len(dims)-1]
		rowLen = dstSel[rowDim].Count
		dRowStep = dstSel[rowDim].Step * dstStrides[rowDim]
		sRowStep = srcSel[rowDim].Step * srcStrides[rowDim]
		dims = dims[:len(dims)-1]
	}
	var idxBuf [8]int
	idx := idxBuf[:0]
	if len(dims) > len(idxBuf) {
		idx = make([]int, 0, len(dims))
	}
	idx = idx[:len(dims)]
	dOff, sOff := dstBase, srcBase
	for {
		switch {
		case variable && runLen > 1:
			copy(dst.objs[dOff:dOff+runLen], src.objs[sOff:sOff+runLen])
		case variable:
			for i, d, s := 0, dOff, sOff; i < rowLen; i, d, s = i+1, d+dRowStep, s+sRowStep {
				dst.objs[d] = src.objs[s]
			}
		case runLen > 1:
			copy(dst.data[dOff*es:(dOff+runLen)*es], src.data[sOff*es:(sOff+runLen)*es])
		default:
			copyStrided(dst.data, dOff*es, dRowStep*es, src.data, sOff*es, sRowStep*es, rowLen, es)
		}
		// advance the odometer over the outer dimensions
		k := len(dims) - 1
		for ; k >= 0; k-- {
			d := dims[k]
			idx[k]++
			dOff += dstSel[d].Step * dstStrides[d]
			sOff += srcSel[d].Step * srcStrides[d]
			if idx[k] < dstSel[d].Count {
				break
			}
			dOff -= dstSel[d].Count * dstSel[d].Step * dstStrides[d]
			sOff -= srcSel[d].Count * srcSel[d].Step * srcStrides[d]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// copyStrided copies n elements of es bytes from src (at byte offset s,
// then every sStep bytes) to dst (at d, every dStep bytes). Common element
// sizes get their own loop: a per-element copy call costs several times
// the element itself, most of all in WebAssembly.
func copyStrided(dst []byte, d, dStep int, src []byte, s, sStep, n, es int) {
	if n == 0 {
		return
	}
	// Fail before writing anything if the row does not fit (steps are positive).
	_, _ = dst[d+(n-1)*dStep+es-1], src[s+(n-1)*sStep+es-1]
	switch es {
	case 1:
		for ; n > 0; n-- {
			dst[d] = src[s]
			d, s = d+dStep, s+sStep
		}
	case 2:
		for ; n > 0; n-- {
			binary.LittleEndian.PutUint16(dst[d:], binary.LittleEndian.Uint16(src[s:]))
			d, s = d+dStep, s+sStep
		}
	case 4:
		for ; n > 0; n-- {
			binary.LittleEndian.PutUint32(dst[d:], binary.LittleEndian.Uint32(src[s:]))
			d, s = d+dStep, s+sStep
		}
	case 8:
		for ; n > 0; n-- {
			binary.LittleEndian.PutUint64(dst[d:], binary.LittleEndian.Uint64(src[s:]))
			d, s = d+dStep, s+sStep
		}
	default:
		for ; n > 0; n-- {
			copy(dst[d:d+es], src[s:s+es])
			d, s = d+dStep, s+sStep
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
	if n == 0 || nd == 0 {
		if n > 0 {
			copy(b.data, a.data)
			copy(b.objs, a.objs)
		}
		return b
	}
	as := strides(a.shape)
	// srcStride[i]: step in a when b's index i increases.
	srcStride := make([]int, nd)
	for i, p := range perm {
		srcStride[i] = as[p]
	}
	// b is written row by row; along b's last dimension a is read with a
	// constant stride.
	es := a.dt.Size
	rowLen, rowStride := shape[nd-1], srcStride[nd-1]
	idx := make([]int, nd-1)
	src := 0
	variable := a.dt.Variable()
	for dst := 0; dst < n; dst += rowLen {
		if variable {
			for i := 0; i < rowLen; i++ {
				b.objs[dst+i] = a.objs[src+i*rowStride]
			}
		} else {
			copyStrided(b.data, dst*es, es, a.data, src*es, rowStride*es, rowLen, es)
		}
		for k := nd - 2; k >= 0; k-- {
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
