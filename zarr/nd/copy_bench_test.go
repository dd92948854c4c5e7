package nd

import (
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr/dtype"
)

var f32 = &dtype.DataType{Kind: dtype.Float, Size: 4, Name: "float32"}

// A 256² float32 chunk copied into a result: whole (one run), a window
// (rows), and every 4th element both ways (the strided read of a viewer).
func BenchmarkCopy(b *testing.B) {
	src := New(f32, []int{256, 256})
	for i := range src.data {
		src.data[i] = byte(i)
	}
	cases := []struct {
		name     string
		dstShape []int
		dstSel   []Range
		srcSel   []Range
	}{
		{"whole", []int{256, 256}, Whole([]int{256, 256}), Whole([]int{256, 256})},
		{"window", []int{1000, 1000}, []Range{{10, 1, 200}, {20, 1, 200}}, []Range{{3, 1, 200}, {5, 1, 200}}},
		{"stride4", []int{64, 64}, Whole([]int{64, 64}), []Range{{0, 4, 64}, {0, 4, 64}}},
		{"column", []int{256, 1}, Whole([]int{256, 1}), []Range{{0, 1, 256}, {7, 1, 1}}},
	}
	for _, c := range cases {
		dst := New(f32, c.dstShape)
		n := 1
		for _, r := range c.srcSel {
			n *= r.Count
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(n * 4))
			for i := 0; i < b.N; i++ {
				Copy(dst, c.dstSel, src, c.srcSel)
			}
		})
	}
}

func BenchmarkTranspose(b *testing.B) {
	src := New(f32, []int{256, 256})
	b.SetBytes(int64(len(src.data)))
	for i := 0; i < b.N; i++ {
		Transpose(src, []int{1, 0})
	}
}
