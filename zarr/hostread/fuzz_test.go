package hostread

import (
	"context"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// Shard requests come from the package's own executor, but the bridge
// takes whatever JS passes: any text and index bytes must give requests
// or a typed error, and Expand any such requests a plan or a typed error,
// never a panic or an allocation beyond the index bytes given.
func FuzzShardRequests(f *testing.F) {
	ctx := context.Background()
	s := zarr.NewMemoryStore()
	arr, err := zarr.CreateArray(ctx, s, "s", zarr.ArrayOptions{Shape: []int{10, 12}, Chunks: []int{4, 6}, DType: "<i4", Codecs: sharding("end", []int{2, 3})})
	if err != nil {
		f.Fatal(err)
	}
	sel, _ := zarr.ParseSelection("1:9, 2:11")
	if err := arr.Write(ctx, sel, mustFilled(f, arr, []int{8, 9})); err != nil {
		f.Fatal(err)
	}
	whole, _, _ := s.Get(ctx, "s/c/0/0")
	index := whole[len(whole)-68:]
	f.Add([]byte(`[{"shard":{"coords":[0,0],"shape":[4,6],"in":[1,1,3,2,1,4],"out":[0,1,0,1],"indexLength":68,"atEnd":true,"whole":false},"generation":"1"}]`), index)
	f.Add([]byte(`[{"shard":{"coords":[0,0],"shape":[4,6],"in":[0,1,4,0,1,6],"out":[0,1,0,1],"indexLength":68,"atEnd":true,"whole":true},"size":200}]`), index)
	f.Add([]byte(`[]`), []byte{})
	f.Add([]byte(`[{"shard":{"coords":[9,9],"shape":[4,6],"in":[0,2,2,0,3,2],"out":[5,1,7,1],"indexLength":4}}]`), []byte{1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, text, indexes []byte) {
		reqs, err := ParseShardRequests(text, indexes, 2)
		if err != nil {
			return
		}
		xs, err := Expand(arr, reqs, allDecoders)
		if err != nil {
			return
		}
		_ = AppendExpansionsJSON(nil, xs)
	})
}

func mustFilled(f *testing.F, arr *zarr.Array, shape []int) *zarr.NDArray {
	n := 1
	for _, x := range shape {
		n *= x
	}
	b := make([]byte, n*arr.DType().Size)
	for i := range b {
		b[i] = byte(i * 3)
	}
	v, err := zarr.NDArrayFromBytes(arr.DType(), shape, b)
	if err != nil {
		f.Fatal(err)
	}
	return v
}
