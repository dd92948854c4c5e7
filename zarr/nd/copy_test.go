package nd

import (
	"math/rand"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
)

// elementAt is the definition Copy and Transpose must agree with: the
// C-order offset of one multi-index.
func elementAt(shape, idx []int) int {
	off := 0
	for d := range shape {
		off = off*shape[d] + idx[d]
	}
	return off
}

// forEach calls f with every multi-index of counts.
func forEach(counts []int, f func(idx []int)) {
	for _, c := range counts {
		if c == 0 {
			return
		}
	}
	idx := make([]int, len(counts))
	for {
		f(idx)
		k := len(counts) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < counts[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

func randomSelection(r *rand.Rand, shape []int) []Range {
	sel := make([]Range, len(shape))
	for d, n := range shape {
		start := r.Intn(n)
		step := 1 + r.Intn(3)
		if r.Intn(3) == 0 {
			start, step = 0, 1
		}
		count := 1 + r.Intn((n-start+step-1)/step)
		if start == 0 && step == 1 && r.Intn(2) == 0 {
			count = n
		}
		sel[d] = Range{start, step, count}
	}
	return sel
}

func TestCopyMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, size := range []int{1, 2, 3, 4, 8, 16} {
		dt := &dtype.DataType{Kind: dtype.Bytes, Size: size}
		for trial := 0; trial < 300; trial++ {
			ndim := 1 + r.Intn(4)
			srcShape, dstShape := make([]int, ndim), make([]int, ndim)
			for d := range srcShape {
				srcShape[d] = 1 + r.Intn(9)
			}
			srcSel := randomSelection(r, srcShape)
			dstSel := make([]Range, ndim)
			for d := range dstShape {
				// the destination region: same counts, its own start and step
				step := 1 + r.Intn(2)
				start := r.Intn(3)
				dstShape[d] = start + (srcSel[d].Count-1)*step + 1 + r.Intn(2)
				dstSel[d] = Range{start, step, srcSel[d].Count}
				if r.Intn(3) == 0 {
					dstShape[d], dstSel[d] = srcSel[d].Count, Range{0, 1, srcSel[d].Count}
				}
			}
			src, dst := New(dt, srcShape), New(dt, dstShape)
			r.Read(src.data)
			r.Read(dst.data)
			want := append([]byte(nil), dst.data...)
			counts := make([]int, ndim)
			for d := range counts {
				counts[d] = srcSel[d].Count
			}
			si, di := make([]int, ndim), make([]int, ndim)
			forEach(counts, func(idx []int) {
				for d := range idx {
					si[d] = srcSel[d].Start + idx[d]*srcSel[d].Step
					di[d] = dstSel[d].Start + idx[d]*dstSel[d].Step
				}
				s, o := elementAt(srcShape, si)*size, elementAt(dstShape, di)*size
				copy(want[o:o+size], src.data[s:s+size])
			})
			Copy(dst, dstSel, src, srcSel)
			if string(dst.data) != string(want) {
				t.Fatalf("size %d: Copy(%v %v ← %v %v) differs from the element-wise definition", size, dstShape, dstSel, srcShape, srcSel)
			}
		}
	}
}

func TestCopyObjects(t *testing.T) {
	dt := &dtype.DataType{Kind: dtype.String}
	src := New(dt, []int{3, 4})
	for i := range src.objs {
		src.objs[i] = string(rune('a' + i))
	}
	dst := New(dt, []int{2, 2})
	Copy(dst, Whole([]int{2, 2}), src, []Range{{1, 1, 2}, {0, 3, 2}})
	want := []any{"e", "h", "i", "l"}
	for i, w := range want {
		if dst.objs[i] != w {
			t.Fatalf("objs = %v, want %v", dst.objs, want)
		}
	}
}

func TestTransposeMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, size := range []int{1, 2, 4, 8, 3} {
		dt := &dtype.DataType{Kind: dtype.Bytes, Size: size}
		for trial := 0; trial < 100; trial++ {
			ndim := r.Intn(5)
			shape := make([]int, ndim)
			for d := range shape {
				shape[d] = 1 + r.Intn(6)
			}
			perm := r.Perm(ndim)
			a := New(dt, shape)
			r.Read(a.data)
			b := Transpose(a, perm)
			bi := make([]int, ndim)
			forEach(shape, func(ai []int) {
				for i, p := range perm {
					bi[i] = ai[p]
				}
				s, o := elementAt(shape, ai)*size, elementAt(b.shape, bi)*size
				if string(a.data[s:s+size]) != string(b.data[o:o+size]) {
					t.Fatalf("Transpose(%v, %v) at %v differs", shape, perm, ai)
				}
			})
		}
	}
}
