package zarr_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/zarr-wasm/zarr-wasm/zarr"
)

// Example writes a small Zarr v3 float32 array into an in-memory store, reads a
// strided window back, and lists the hierarchy.
func Example() {
	ctx := context.Background()
	store := zarr.NewMemoryStore()

	arr, err := zarr.CreateArray(ctx, store, "weather/temperature", zarr.ArrayOptions{
		Shape:     []int{4, 6},
		Chunks:    []int{2, 4},
		DType:     "<f4",
		FillValue: math.NaN(),
		Codecs: []map[string]any{
			{"name": "bytes", "configuration": map[string]any{"endian": "little"}},
			{"name": "blosc", "configuration": map[string]any{"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4}},
		},
		Attributes: map[string]any{"units": "K"},
	})
	if err != nil {
		panic(err)
	}

	// Write rows 0..1 (elements are little-endian bytes, C order).
	data := make([]byte, 2*6*4)
	for i := 0; i < 12; i++ {
		binary.LittleEndian.PutUint32(data[i*4:], math.Float32bits(float32(i)/2))
	}
	rows, _ := zarr.NDArrayFromBytes(arr.DType(), []int{2, 6}, data)
	sel, _ := zarr.ParseSelection("0:2, :")
	if err := arr.Write(ctx, sel, rows); err != nil {
		panic(err)
	}

	// Read every second column of rows 1..2; row 2 was never written.
	sel, _ = zarr.ParseSelection("1:3, ::2")
	nd, err := arr.Read(ctx, sel)
	if err != nil {
		panic(err)
	}
	b := nd.Bytes()
	vals := make([]float32, len(b)/4)
	for i := range vals {
		vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
	}
	fmt.Println(nd.Shape(), vals)

	grp, _ := zarr.OpenGroup(ctx, store, "weather")
	kids, _ := grp.Children(ctx)
	for _, k := range kids {
		fmt.Println(k.Name, k.Node.(*zarr.Array).Shape(), k.Node.Attrs()["units"])
	}
	// Output:
	// [2 3] [3 4 5 NaN NaN NaN]
	// temperature [4 6] K
}
