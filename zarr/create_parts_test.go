package zarr_test

import (
	"context"
	"testing"

	"github.com/zarr-wasm/zarr-wasm/zarr"
	"github.com/zarr-wasm/zarr-wasm/zarr/errs"
	"github.com/zarr-wasm/zarr-wasm/zarr/store"
)

// zarr-python 3's Filters / Serializer / Compressors write the same
// document as the whole chain given as Codecs (v3), or as Compressor (v2).
func TestCreateChainParts(t *testing.T) {
	ctx := context.Background()
	doc := func(key string, opt zarr.ArrayOptions) string {
		t.Helper()
		s := store.NewMemory()
		opt.Shape, opt.Chunks = []int{6, 4}, []int{3, 2}
		if _, err := zarr.CreateArray(ctx, s, "a", opt); err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		b, _, err := s.Get(ctx, "a/"+key)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	zstd3 := map[string]any{"name": "zstd", "configuration": map[string]any{"level": 3, "checksum": false}}
	bytesLE := map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}
	transpose := map[string]any{"name": "transpose", "configuration": map[string]any{"order": []int{1, 0}}}
	for _, c := range []struct {
		name       string
		parts, all zarr.ArrayOptions
	}{
		{"compressors", zarr.ArrayOptions{DType: "int32", Compressors: []map[string]any{zstd3}},
			zarr.ArrayOptions{DType: "int32", Codecs: []map[string]any{bytesLE, zstd3}}},
		{"no compressors", zarr.ArrayOptions{DType: "int32", Compressors: []map[string]any{}},
			zarr.ArrayOptions{DType: "int32", Codecs: []map[string]any{bytesLE}}},
		{"filters and serializer", zarr.ArrayOptions{DType: "int32", Filters: []map[string]any{transpose}, Serializer: map[string]any{"name": "bytes"}, Compressors: []map[string]any{}},
			zarr.ArrayOptions{DType: "int32", Codecs: []map[string]any{transpose, bytesLE}}},
	} {
		if a, b := doc("zarr.json", c.parts), doc("zarr.json", c.all); a != b {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, a, b)
		}
	}
	zlib := map[string]any{"id": "zlib", "level": 1}
	if a, b := doc(".zarray", zarr.ArrayOptions{ZarrFormat: 2, DType: "<i4", Compressors: []map[string]any{zlib}}), doc(".zarray", zarr.ArrayOptions{ZarrFormat: 2, DType: "<i4", Compressor: zlib}); a != b {
		t.Errorf("v2 compressors:\n%s\nwant\n%s", a, b)
	}
	if a, b := doc(".zarray", zarr.ArrayOptions{ZarrFormat: 2, DType: "<i4", Compressors: []map[string]any{}}), doc(".zarray", zarr.ArrayOptions{ZarrFormat: 2, DType: "<i4", NoCompressor: true}); a != b {
		t.Errorf("v2 no compressors:\n%s\nwant\n%s", a, b)
	}
	for _, bad := range []zarr.ArrayOptions{
		{DType: "int32", Codecs: []map[string]any{bytesLE}, Compressors: []map[string]any{zstd3}},
		{ZarrFormat: 2, DType: "<i4", Compressors: []map[string]any{zlib, zlib}},
		{ZarrFormat: 2, DType: "<i4", Serializer: bytesLE},
	} {
		bad.Shape = []int{2}
		if _, err := zarr.CreateArray(ctx, store.NewMemory(), "a", bad); errs.CodeOf(err) != errs.InvalidArgument {
			t.Errorf("%+v: %v, want INVALID_ARGUMENT", bad, err)
		}
	}
}
