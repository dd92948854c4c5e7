package codec_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/jsonx"
)

// floatPlanes encodes one row of float32 samples the way TIFF's
// floating-point predictor stores them (TIFF Technical Note 3): the bytes
// of all samples grouped by significance, most significant first, whatever
// the file's byte order, then each byte minus the one before it.
func floatPlanes(v []float32) []byte {
	n := len(v)
	b := make([]byte, 4*n)
	for i, x := range v {
		bits := math.Float32bits(x)
		for k := 0; k < 4; k++ {
			b[k*n+i] = byte(bits >> (8 * (3 - k)))
		}
	}
	for i := len(b) - 1; i > 0; i-- {
		b[i] -= b[i-1]
	}
	return b
}

// The floating-point predictor gives the same samples for a little- and a
// big-endian dtype: tifffile writes the dtype in the file's byte order, and
// the planes are the same either way.
func TestFloatPredictorByteOrder(t *testing.T) {
	ctx := context.Background()
	want := []float32{1, 2.5, -3, 100, 1e-7, -65504}
	for _, dt := range []string{"<f4", ">f4"} {
		s := zarr.NewMemoryStore()
		meta, _ := jsonx.MarshalStrict(map[string]any{
			"zarr_format": 2, "shape": []int{len(want)}, "chunks": []int{len(want)}, "dtype": dt,
			"compressor": nil, "fill_value": 0, "order": "C",
			"filters": []any{map[string]any{"id": "imagecodecs_floatpred", "axis": -1, "dist": 1, "shape": []int{len(want)}, "dtype": dt}},
		})
		_ = s.Set(ctx, "a/.zarray", meta)
		_ = s.Set(ctx, "a/0", floatPlanes(want))
		arr, err := zarr.OpenArray(ctx, s, "a")
		if err != nil {
			t.Fatal(err)
		}
		sel, _ := zarr.ParseSelection("")
		got, err := arr.Read(ctx, sel)
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		for i, w := range want {
			if g := math.Float32frombits(binary.LittleEndian.Uint32(got.Bytes()[4*i:])); g != w {
				t.Errorf("%s: sample %d = %v, want %v", dt, i, g, w)
			}
		}
	}
}
